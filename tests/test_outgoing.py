"""The one outgoing HTTP client (archive/protocol/outgoing.py, #40 4): guarded, redirects
and 503s as its caller allows, bodies capped, downloads hashed as they arrive."""
from __future__ import annotations

import hashlib
import threading
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler

import httpx
import pytest

from archive.protocol import outgoing
from tests.servers import PromptHTTPServer


def test_retry_after_in_seconds_or_as_a_date():
    now = datetime(2026, 11, 26, 12, 0, 0, tzinfo=UTC)
    assert outgoing.retry_after("2") == 2.0
    assert outgoing.retry_after("Thu, 26 Nov 2026 12:00:30 GMT", now) == 30.0
    assert outgoing.retry_after("99999") == outgoing.MAX_RETRY_AFTER
    assert outgoing.retry_after("0") == 1.0
    assert outgoing.retry_after(None) == outgoing.retry_after("soon") == (
        outgoing.DEFAULT_RETRY_AFTER)


def mocked(answer) -> tuple[httpx.Client, list[httpx.Request]]:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return answer(request, len(seen))

    return httpx.Client(transport=httpx.MockTransport(handler)), seen


def test_redirects_are_followed_as_far_as_allowed_and_credentials_stay_home():
    def answer(request, n):
        if n < 3:
            return httpx.Response(302, headers={"Location": f"http://b.example/{n}"})
        return httpx.Response(200, content=b"there")

    http, seen = mocked(answer)
    response = outgoing.send(http, "GET", "http://a.example/f", redirects=3,
                             headers={"Authorization": "Token t", "Range": "bytes=0-"})
    assert response.status_code == 200 and str(response.url) == "http://b.example/2"
    assert [r.headers.get("Authorization") for r in seen] == ["Token t", None, None]
    assert all(r.headers["Range"] == "bytes=0-" for r in seen)

    http, seen = mocked(answer)
    assert outgoing.send(http, "GET", "http://a.example/f").status_code == 302  # none allowed
    http, seen = mocked(answer)
    with pytest.raises(outgoing.TooManyRedirects):
        outgoing.send(http, "GET", "http://a.example/f", redirects=1)
    http, seen = mocked(answer)
    with pytest.raises(outgoing.Refused) as refused:
        outgoing.send(http, "GET", "http://a.example/f", redirects=3,
                      allowed=lambda url: "a.example" in url)
    assert refused.value.url == "http://b.example/1" and len(seen) == 1


def test_a_503_is_asked_again_after_its_retry_after_as_often_as_allowed():
    http, seen = mocked(lambda request, n: httpx.Response(503, headers={"Retry-After": "7"}))
    waits, polite = [], []
    response = outgoing.send(http, "GET", "http://a.example/", retries=2, sleep=waits.append,
                             before=lambda: polite.append(1))
    assert (response.status_code, waits, len(seen), len(polite)) == (503, [7.0, 7.0], 3, 3)


def test_a_body_is_read_up_to_its_cap_and_a_download_is_hashed_and_capped(settings, tmp_path):
    settings.FILE_UPLOAD_TEMP_DIR = str(tmp_path)
    body = b"x" * 3000
    http, _ = mocked(lambda request, n: httpx.Response(  # a stream, as from the network
        200, content=iter([body[:1000], body[1000:]])))
    assert outgoing.read(outgoing.send(http, "GET", "http://a.example/"), cap=3000) == body
    with pytest.raises(outgoing.TooLarge):
        outgoing.read(outgoing.send(http, "GET", "http://a.example/"), cap=2999)

    md5, counted = hashlib.md5(usedforsecurity=False), []
    into = outgoing.Download("a.bin", "application/octet-stream", 3000, "job-1-")
    got = outgoing.download(outgoing.send(http, "GET", "http://a.example/"), into, cap=3000,
                            also=[md5], arrived=counted.append)
    assert (got.sha256, got.size, got.read()) == (hashlib.sha256(body).hexdigest(), 3000, body)
    assert md5.hexdigest() == hashlib.md5(body).hexdigest() and sum(counted) == 3000
    assert got.temporary_file_path().startswith(f"{tmp_path}/job-1-")
    got.close()

    into = outgoing.Download("a.bin", "application/octet-stream", 3000)
    with pytest.raises(outgoing.TooLarge):
        outgoing.download(outgoing.send(http, "GET", "http://a.example/"), into, cap=10)
    assert into.closed and list(tmp_path.glob("*.download")) == []


class _Hello(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802
        self.send_response(200)
        self.send_header("Content-Length", "5")
        self.end_headers()
        self.wfile.write(b"hello")

    def log_message(self, *args) -> None:
        pass


def test_the_client_connects_only_to_allowed_addresses_and_names_the_host(settings):
    server = PromptHTTPServer(("127.0.0.1", 0), _Hello)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://localhost:{server.server_port}/"
    try:
        settings.IBI_RESOLVER_DENY_NETWORKS = ("127.0.0.0/8", "::1/128")
        with outgoing.client(user_agent="test/1", timeout=5) as http, \
                pytest.raises(httpx.ConnectError, match="denied"):
            http.get(url)
        settings.IBI_RESOLVER_DENY_NETWORKS = ()
        with outgoing.client(user_agent="test/1", timeout=5) as http:
            response = outgoing.send(http, "GET", url)
            assert outgoing.read(response, cap=5) == b"hello"
            assert response.url.host == "localhost"  # not the address it was pinned to
            assert response.request.headers["Accept-Encoding"] == "identity"
    finally:
        server.shutdown()
        server.server_close()
