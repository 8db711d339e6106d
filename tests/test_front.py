"""Production's front: nginx (deploy/nginx.conf) → gunicorn (deploy/gunicorn.conf.py), on loopback.

The shipped configurations, rendered for free ports: nginx terminates TLS, buffers requests and
answers, serves /static/ and sends downloads that Django hands over with X-Accel-Redirect;
gunicorn runs threaded workers. Each test is the attack or the use it answers: a deposit over
HTTPS, a download that gunicorn never streams, slow clients that must not hold a worker, and
readers stalled on a silent Archive that must not block everyone else.

`make test` runs it on SQLite with tasks in process; `.ci/run` runs it once more against
PostgreSQL, with Redis as the broker of a real Celery worker (IBI_TEST_FRONT_DATABASE_URL,
IBI_TEST_FRONT_BROKER_URL): the deployment docs/operators/deployment.md shows.
"""
from __future__ import annotations

import base64
import concurrent.futures
import datetime
import grp
import hashlib
import io
import json
import os
import pwd
import shutil
import socket
import ssl
import subprocess
import time
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from tusclient.client import TusClient

from tests import factories as make

from .conftest import BROWSER
from .servers import (
    ROOT,
    CountingSilentArchive,
    FakeArchiveService,
    LiveServers,
    _python,
    free_port,
)

KEY = "1234567890-0987654321"
SILENT_SERVICE = "ibi.test/silent/2024/01.02.03.04"
DEADLINE = 4  # seconds a resolution may wait for the silent Archive
PDF = b"%PDF-1.4\n" + bytes(range(256)) * 64 + b"\n%%EOF\n"


class Front:
    def __init__(self, root: Path, server) -> None:
        self.root, self.server = root, server
        self.http_port, self.https_port = free_port(), free_port()
        self.http = f"http://127.0.0.1:{self.http_port}"
        self.https = f"https://127.0.0.1:{self.https_port}"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        prefix = self.root / "nginx"
        prefix.mkdir()
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                        "-subj", "/CN=127.0.0.1", "-keyout", prefix / "tls.key",
                        "-out", prefix / "tls.pem"], check=True, capture_output=True)
        user = pwd.getpwuid(os.getuid()).pw_name
        group = grp.getgrgid(os.getgid()).gr_name
        env = {**os.environ, "IBI_NGINX_USER": f"{user} {group}", "IBI_NGINX_PREFIX": str(prefix),
               "IBI_HTTP_LISTEN": f"127.0.0.1:{self.http_port}",
               "IBI_HTTPS_LISTEN": f"127.0.0.1:{self.https_port}",
               "IBI_TLS_CERT": str(prefix / "tls.pem"), "IBI_TLS_KEY": str(prefix / "tls.key"),
               "IBI_UPSTREAM": self.server.address,
               "IBI_STATIC_ROOT": self.server.env["STATIC_ROOT"],
               "IBI_MEDIA_ROOT": self.server.env["MEDIA_ROOT"], "IBI_MAX_BODY": "64m"}
        config = subprocess.run([str(ROOT / "deploy" / "render-nginx")], env=env, check=True,
                                capture_output=True, text=True).stdout
        (prefix / "nginx.conf").write_text(config)
        self.process = subprocess.Popen(
            [nginx(), "-p", str(prefix), "-c", str(prefix / "nginx.conf"), "-g", "daemon off;"],
            stdout=subprocess.DEVNULL, stderr=(prefix / "stderr.log").open("wb"))
        deadline = time.monotonic() + 30
        while True:
            assert self.process.poll() is None, (prefix / "stderr.log").read_text()
            try:
                if httpx.get(self.http + "/", timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, (prefix / "error.log").read_text()
            time.sleep(0.05)  # polling interval, not a synchronisation

    def log(self) -> list[str]:
        return (self.root / "nginx" / "access.log").read_text().splitlines()

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=20)


def nginx() -> str:
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists()
                                      else None)
    assert found, "Debian's nginx is missing: `make test` installs it (see the Makefile)"
    return found


@pytest.fixture(scope="module")
def front(tmp_path_factory):
    root = tmp_path_factory.mktemp("front")
    settings = {"IBI_ACCEL_REDIRECT": "/_protected/", "SECURE_PROXY_SSL_HEADER": "1",
                "SECURE_SSL_REDIRECT": "1", "SESSION_COOKIE_SECURE": "1",
                "CSRF_COOKIE_SECURE": "1", "STATIC_ROOT": str(root / "static"),
                "IBI_RESOLVER_TIMEOUT": str(DEADLINE), "IBI_RESOLVER_DEADLINE": str(DEADLINE),
                "WEB_CONCURRENCY": "2", "GUNICORN_THREADS": "8"}
    if os.environ.get("IBI_TEST_FRONT_DATABASE_URL"):
        settings["DATABASE_URL"] = os.environ["IBI_TEST_FRONT_DATABASE_URL"]
    if os.environ.get("IBI_TEST_FRONT_BROKER_URL"):
        settings["CELERY_BROKER_URL"] = os.environ["IBI_TEST_FRONT_BROKER_URL"]
    with LiveServers(root) as servers:
        server = servers.prepare("front", **settings)
        server.manage("collectstatic", "--no-input")
        # The shipped configuration; the bind flag of tests/servers.py picks the free port.
        server.start(extra_args=("-c", str(ROOT / "deploy" / "gunicorn.conf.py")))
        worker = None
        if "CELERY_BROKER_URL" in settings:
            worker = subprocess.Popen(
                [str(Path(_python()).parent / "celery"), "-A", "ibirepo", "worker",
                 "--pool", "solo", "--loglevel", "INFO"], cwd=ROOT, env=server.env,
                stdout=(root / "worker.log").open("wb"), stderr=subprocess.STDOUT)
        proxy = Front(root, server)
        proxy.start()
        try:
            yield proxy
        finally:
            proxy.stop()
            if worker is not None:
                worker.terminate()
                worker.wait(timeout=30)


def test_a_deposit_over_https_and_its_persistent_url_over_http(front):
    token = front.server.librarian_token()
    with httpx.Client(verify=False, timeout=30) as client:
        plain = client.get(f"{front.http}/api/items/")
        assert plain.status_code == 301 and plain.headers["location"].startswith("https://")
        created = client.post(f"{front.https}/api/items/", data={"title": "Behind nginx"},
                              files={"files": ("paper.pdf", PDF, "application/pdf")},
                              headers={"Authorization": f"Token {token}"})
    assert created.status_code == 201, created.text
    item = created.json()
    # The resolution protocol stays on plain HTTP (RTC-11 speaks http://).
    assert item["persistent_url"].startswith("http://")
    resolved = httpx.get(f"{front.http}/{item['ibip']}", timeout=30)
    assert resolved.status_code == 302
    assert resolved.headers["location"].endswith(f"/col/{item['ibi']}/doc/paper.pdf")


def test_downloads_are_sent_by_nginx_not_streamed_by_gunicorn(front):
    token = front.server.librarian_token("downloads")
    created = httpx.post(f"{front.https}/api/items/", verify=False, timeout=30,
                         data={"title": "Sent by nginx"},
                         files={"files": ("Relatório.pdf", PDF, "application/pdf")},
                         headers={"Authorization": f"Token {token}"})
    path = f"/col/{created.json()['ibi']}/doc/Relat%C3%B3rio.pdf"

    whole = httpx.get(front.http + path, timeout=30)
    assert whole.status_code == 200 and whole.content == PDF
    assert whole.headers["etag"] == f'"{hashlib.sha256(PDF).hexdigest()}"'
    assert whole.headers["content-disposition"] == (
        "inline; filename=Relatorio.pdf; filename*=UTF-8''Relat%C3%B3rio.pdf")
    assert whole.headers["x-content-type-options"] == "nosniff"
    part = httpx.get(front.http + path, headers={"Range": "bytes=9-18"}, timeout=30)
    assert part.status_code == 206 and part.content == PDF[9:19]
    assert "x-accel-redirect" not in whole.headers
    # nginx writes a log line once its answer is sent: both waited for, not assumed.
    def handed() -> list[str]:
        return [line for line in front.log() if path in line and "accel=/_protected/col/" in line]

    make.wait_until(lambda: len(handed()) >= 2, timeout=10, what="nginx's two log lines")
    assert len(handed()) == 2
    # gunicorn itself answers only the headers: nginx sends the bytes.
    direct = httpx.get(front.server.url + path, timeout=30)
    assert direct.content == b""
    assert direct.headers["x-accel-redirect"].startswith("/_protected/col/")


def test_a_closed_file_behind_nginx_is_a_403_and_never_handed_to_nginx(front):
    """An embargoed file (#26): the 403 page, its bytes never sent (no X-Accel-Redirect from
    gunicorn, nothing of the file in the answer); the librarian's token reads it."""
    token = front.server.librarian_token("closed")
    until = (datetime.datetime.now(datetime.UTC).date()
             + datetime.timedelta(days=30)).isoformat()
    created = httpx.post(f"{front.https}/api/items/", verify=False, timeout=30,
                         data={"title": "Closed behind nginx", "access": json.dumps(
                             {"rights": "embargoed", "embargo_until": until})},
                         files={"files": ("tese.pdf", PDF, "application/pdf")},
                         headers={"Authorization": f"Token {token}"})
    assert created.status_code == 201, created.text
    path = f"/col/{created.json()['ibi']}/doc/tese.pdf"

    closed = httpx.get(front.http + path, timeout=30)
    direct = httpx.get(front.server.url + path, timeout=30)

    assert closed.status_code == 403 and PDF not in closed.content
    assert "etag" not in closed.headers and "content-disposition" not in closed.headers
    assert direct.status_code == 403 and "x-accel-redirect" not in direct.headers
    assert not [line for line in front.log() if path in line and "accel=/_protected" in line]
    opened = httpx.get(front.http + path, headers={"Authorization": f"Token {token}"},
                       timeout=30)
    assert opened.status_code == 200 and opened.content == PDF


def test_static_files_never_reach_gunicorn(front):
    response = httpx.get(f"{front.http}/static/admin/css/base.css", timeout=30)

    assert response.status_code == 200 and b"body" in response.content
    assert "max-age=604800" in response.headers["cache-control"]
    line = next(line for line in reversed(front.log()) if "/static/admin/css/base.css" in line)
    assert "upstream=-" in line


def test_a_repository_name_under_static_reaches_the_resolver(front):
    """#41, 7: the Archive at x.static mints static/x/2013/…; nginx's /static/ does not take
    its persistent URL (nobody holds this one: the resolver's own 404 page says so)."""
    response = httpx.get(f"{front.http}/static/x/2013/09.04.12.27.57", timeout=30)
    assert response.status_code == 404 and "static/x/2013/09.04.12.27.57" in response.text
    # nginx writes its log line once the answer is sent: waited for, not assumed.
    line = make.wait_until(lambda: next((line for line in reversed(front.log())
                                         if "/static/x/2013/" in line), None),
                           timeout=10, what="nginx's log line")
    assert "upstream=-" not in line


def test_a_method_nginx_refuses_itself_says_what_is_allowed(front):
    response = httpx.request("TRACE", f"{front.http}/api/items/", timeout=30)
    assert response.status_code == 405
    assert response.headers["allow"] == "GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE"


def test_slow_clients_do_not_hold_the_workers(front):
    """Far more trickling clients than gunicorn has threads (2 workers × 8): headers that never
    end, and bodies that never arrive. nginx holds them; gunicorn never sees them."""
    stalled = []
    for _ in range(80):
        sock = socket.create_connection(("127.0.0.1", front.http_port))
        sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        stalled.append(sock)
    for _ in range(20):
        sock = socket.create_connection(("127.0.0.1", front.http_port))
        sock.sendall(b"POST /api/items/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     b"Content-Type: application/octet-stream\r\nContent-Length: 10000000\r\n\r\n"
                     + b"x" * 1024)
        stalled.append(sock)
    try:
        start = time.monotonic()
        response = httpx.get(f"{front.http}/", timeout=10)
        took = time.monotonic() - start
    finally:
        for sock in stalled:
            sock.close()
    assert response.status_code == 200
    assert took < 2, f"the home page took {took:.2f} s behind 100 slow clients"


def test_wrong_tokens_through_nginx_lock_out_their_sender_only(front):
    """Behind nginx every connection reaches gunicorn from nginx: the shipped configuration
    must still count each client by its own address, or one attacker locks everyone out."""
    right = front.server.librarian_token("behind-nginx")
    attacker = httpx.Client(verify=False, timeout=30,
                            transport=httpx.HTTPTransport(local_address="127.0.0.2", verify=False))
    reader = httpx.Client(verify=False, timeout=30,
                          transport=httpx.HTTPTransport(local_address="127.0.0.3", verify=False))
    with attacker, reader:
        statuses = [attacker.get(f"{front.https}/api/items/",
                                 headers={"Authorization": f"Token {n:040x}",
                                          "X-Forwarded-For": f"192.0.2.{n}"}).status_code
                    for n in range(30)]
        assert 429 in statuses and set(statuses[statuses.index(429):]) == {429}
        assert set(statuses[:statuses.index(429)]) == {401}
        mine = reader.get(f"{front.https}/api/items/", headers={"Authorization": f"Token {right}"})
    assert mine.status_code == 200


READERS = 40  # more than the front's 2 workers × 8 threads


def reader(address: str) -> httpx.Client:
    """A client connecting from `address` (any of 127.0.0.0/8), as nginx will see it."""
    return httpx.Client(timeout=30, transport=httpx.HTTPTransport(local_address=address))


def test_readers_stalled_on_a_silent_archive_do_not_block_everyone(front):
    """Forty readers, each from an address of its own, resolve an IBI that a registered
    Archive stalls on, more than gunicorn has threads. At most IBI_RESOLVER_MAX_WAITING of them
    per worker wait (up to the deadline, then a 503: nothing was heard of the item); the others
    are told at once to come back (503, Retry-After), and meanwhile the site and persistent
    URLs held here answer at once. (From one address, one resolution per worker waits:
    tests/test_faults.py.)"""
    token = front.server.librarian_token("stalled")
    here = httpx.post(f"{front.https}/api/items/", verify=False, timeout=30,
                      data={"title": "Held here"},
                      files={"files": ("here.pdf", PDF, "application/pdf")},
                      headers={"Authorization": f"Token {token}"}).json()
    silent = CountingSilentArchive()
    front.server.manage("registerarchive", SILENT_SERVICE, KEY)
    front.server.shell("from archive.models import RegisteredArchive as R; "
                       f"R.objects.filter(archive_service_ibi='{SILENT_SERVICE}')"
                       f".update(included=True, address='{silent.address}')")
    clients = [reader(f"127.0.1.{n + 1}") for n in range(READERS)]
    try:
        with concurrent.futures.ThreadPoolExecutor(READERS) as pool:
            readers = [pool.submit(client.get, f"{front.http}/LK47B6W/362SFKH")
                       for client in clients]
            # Every reader is either answered already or waiting at the silent Archive.
            deadline = time.monotonic() + 20
            while sum(f.done() for f in readers) + len(silent.accepted) < READERS:
                assert time.monotonic() < deadline, "readers neither answered nor waiting"
                concurrent.futures.wait([f for f in readers if not f.done()], timeout=0.1,
                                        return_when=concurrent.futures.FIRST_COMPLETED)
            waiting = len(silent.accepted)
            start = time.monotonic()
            home = httpx.get(f"{front.http}/", timeout=30)
            local = httpx.get(f"{front.http}/{here['ibip']}", timeout=30)
            took = time.monotonic() - start
            # Answered while those at the silent Archive still wait (they wait until the
            # deadline): the site is not queued behind them.
            still_waiting = sum(not f.done() for f in readers)
            results = [f.result() for f in readers]
    finally:
        silent.close()
        for client in clients:
            client.close()
        front.server.shell("from archive.models import RegisteredArchive as R; "
                           f"R.objects.filter(archive_service_ibi='{SILENT_SERVICE}').delete()")
    assert home.status_code == 200 and local.status_code == 302
    assert still_waiting == waiting, (
        f"home page and a local persistent URL took {took:.2f} s: answered after "
        f"{waiting - still_waiting} of the {waiting} readers waiting at the silent Archive")
    # 2 workers × IBI_RESOLVER_MAX_WAITING (half of 8 threads, deploy/gunicorn.conf.py).
    assert 1 <= waiting <= 2 * 4
    # Those that waited: the silent Archive said nothing of the item, a 503 too (#41).
    unheard = [r for r in results if "could not be asked" in r.text]
    busy = [r for r in results if "Too many readers are waiting" in r.text]
    assert (len(unheard), len(busy)) == (waiting, READERS - waiting)
    assert {(r.status_code, r.headers["retry-after"]) for r in results} == {(503, str(DEADLINE))}


def test_a_large_upload_is_buffered_by_nginx_and_stored_whole(front):
    token = front.server.librarian_token("large")
    big = os.urandom(20 * 1024 * 1024)
    created = httpx.post(f"{front.https}/api/items/", verify=False, timeout=120,
                         data={"title": "Large"},
                         files={"files": ("large.bin", big, "application/octet-stream")},
                         headers={"Authorization": f"Token {token}"})
    assert created.status_code == 201, created.text[:300]
    fetched = httpx.get(f"{front.http}/col/{created.json()['ibi']}/doc/large.bin", timeout=120)
    assert fetched.status_code == 200 and hashlib.sha256(fetched.content).digest() == \
        hashlib.sha256(big).digest()


@pytest.mark.filterwarnings("ignore::urllib3.exceptions.InsecureRequestWarning")
def test_a_resumable_upload_cut_behind_nginx_keeps_what_arrived_and_tuspy_resumes(front):
    """nginx passes tus requests on unbuffered: the bytes of a request whose connection drops
    reach gunicorn and are kept, and a real tus client resumes from the last byte held."""
    token = front.server.librarian_token("resumable")
    data = os.urandom(8 * 1024 * 1024 + 5)
    client = TusClient(f"{front.https}/api/uploads/", headers={"Authorization": f"Token {token}"})
    url = client.uploader(file_stream=io.BytesIO(data), metadata={"filename": "grande.bin"},
                          verify_tls_cert=False).create_url()
    assert url.startswith(f"{front.https}/api/uploads/")
    tls = ssl.create_default_context()
    tls.check_hostname, tls.verify_mode = False, ssl.CERT_NONE
    with socket.create_connection(("127.0.0.1", front.https_port)) as raw, \
            tls.wrap_socket(raw, server_hostname="127.0.0.1") as sock:
        sock.sendall((f"PATCH {urlsplit(url).path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                      f"Authorization: Token {token}\r\nTus-Resumable: 1.0.0\r\n"
                      f"Upload-Offset: 0\r\nContent-Type: application/offset+octet-stream\r\n"
                      f"Content-Length: {len(data)}\r\n\r\n").encode() + data[:5 * 1024 * 1024])

    def held() -> int:
        answer = httpx.head(url, verify=False, timeout=30, headers={
            "Authorization": f"Token {token}", "Tus-Resumable": "1.0.0"})
        return int(answer.headers["upload-offset"])

    kept = make.wait_until(held, what="the bytes of the cut request kept")
    assert 0 < kept <= 5 * 1024 * 1024
    # tuspy asks where to resume (HEAD), and again if the cut request was still being closed.
    resumed = client.uploader(file_stream=io.BytesIO(data), url=url, verify_tls_cert=False,
                              retries=5, retry_delay=1)
    assert resumed.offset > 0
    resumed.upload()
    state = httpx.get(url, verify=False, timeout=30, headers={
        "Authorization": f"Token {token}", "Tus-Resumable": "1.0.0"}).json()
    assert state["complete"] and state["sha256"] == hashlib.sha256(data).hexdigest()


def test_a_resolution_elsewhere_is_acknowledged_after_the_answer(front):
    """nginx → gunicorn → (Redis → the Celery worker, in CI) → the chosen Archive: the
    acknowledgment of Table 8.11 leaves after the reader has the redirect."""
    elsewhere = "ibi.test/elsewhere/2024/01.02.03.05"
    service = "ibi.test/fake/2024/01.02.03.04"
    with FakeArchiveService(service) as fake:
        url = f"http://{fake.address}/col/{elsewhere}/doc/paper.pdf"
        fake.respond = lambda pairs: (200, (
            f"archiveaddress {fake.address}\r\ncontenttype Data\r\nibi {{rep {elsewhere}}}\r\n"
            f"state Original\r\ntimestamp 2024-01-02T03:04:05Z\r\nurl {url}\r\n"
            "urlkey 1700000000-123456789012345678")
            if pairs.get("parsedibiurl.ibi") == elsewhere else "")
        front.server.manage("registerarchive", service, KEY)
        front.server.shell("from archive.models import RegisteredArchive as R; "
                           f"R.objects.filter(archive_service_ibi='{service}')"
                           f".update(included=True, address='{fake.address}')")
        try:
            # A reader's browser: a robot's resolution is acknowledged to nobody (COUNTER R5).
            response = httpx.get(f"{front.http}/{elsewhere}", timeout=30,
                                 headers={"User-Agent": BROWSER})
            assert response.status_code == 302 and response.headers["location"] == url
            deadline = time.monotonic() + 30
            while not fake.requests("acknowledgment"):
                assert time.monotonic() < deadline, "no acknowledgment reached the Archive"
                time.sleep(0.05)  # polling interval, not a synchronisation
        finally:
            front.server.shell("from archive.models import RegisteredArchive as R; "
                               f"R.objects.filter(archive_service_ibi='{service}').delete()")
    (ack,) = fake.requests("acknowledgment")
    assert ack["url"] == url and ack["urlkey"] == "1700000000-123456789012345678"


def test_a_refused_upload_request_never_breaks_the_next_one_on_its_connection(front):
    """A PATCH refused before its body is read (409: not the upload's offset; 413: longer than
    what the upload lacks) must not leave its bytes on nginx's kept connection to gunicorn:
    the next upload request nginx sends there, another librarian's, is answered, never 502;
    and the refused one gets its own answer, not a reset (issue #42, 10)."""
    mine = front.server.librarian_token("refused-uploads")
    theirs = front.server.librarian_token("next-librarian")
    body = os.urandom(4 * 1024 * 1024)

    def tus(token: str, **headers: str) -> dict[str, str]:
        return {"Authorization": f"Token {token}", "Tus-Resumable": "1.0.0", **headers}

    def created(client: httpx.Client, token: str) -> str:
        answer = client.post(f"{front.https}/api/uploads/", headers=tus(
            token, **{"Upload-Length": str(len(body)), "Upload-Metadata": "filename "
                      + base64.b64encode(b"a.bin").decode()}))
        assert answer.status_code == 201, answer.text
        return answer.headers["location"]

    statuses = []
    with httpx.Client(verify=False, timeout=60) as other:
        for _ in range(8):
            url = created(other, theirs)
            for offset, refused_with in ((7, 409), (0, 413)):
                # Each refused request on a connection of its own (nginx closes it after an
                # answer that left the request's body unread).
                with httpx.Client(verify=False, timeout=60) as librarian:
                    refused = librarian.patch(
                        created(librarian, mine), content=body + b"x" * (refused_with == 413),
                        headers=tus(mine, **{"Upload-Offset": str(offset),
                                             "Content-Type": "application/offset+octet-stream"}))
                assert refused.status_code == refused_with, refused.text
                held = 1000 * (refused_with == 413)
                good = other.patch(url, content=body[held:held + 1000], headers=tus(
                    theirs, **{"Upload-Offset": str(held),
                               "Content-Type": "application/offset+octet-stream"}))
                statuses.append(good.status_code)
    assert statuses == [204] * 16


def test_a_download_sent_by_nginx_keeps_djangos_headers(front):
    """nginx sends the bytes of an X-Accel-Redirect answer with its own headers: Django's
    Signposting Link and its security headers must reach the reader all the same (issue #42,
    9)."""
    token = front.server.librarian_token("signposted")
    created = httpx.post(f"{front.https}/api/items/", verify=False, timeout=30,
                         data={"title": "Signposted behind nginx"},
                         files={"files": ("artigo.pdf", PDF, "application/pdf")},
                         headers={"Authorization": f"Token {token}"})
    assert created.status_code == 201, created.text
    path = f"/col/{created.json()['ibi']}/doc/artigo.pdf"

    # Django's answer as nginx gets it, to the same host (its links name the host asked).
    django = httpx.get(front.server.url + path, timeout=30,
                       headers={"Host": f"127.0.0.1:{front.http_port}"}).headers
    sent = httpx.get(front.http + path, timeout=30)
    assert sent.status_code == 200 and sent.content == PDF
    assert "x-accel-redirect" in django
    for name in ("link", "x-frame-options", "referrer-policy", "content-security-policy",
                 "cross-origin-opener-policy", "x-content-type-options", "vary",
                 "content-language", "etag", "content-disposition"):
        assert django.get(name), name
        assert sent.headers.get_list(name) == [django[name]], name
    assert 'rel="cite-as"' in sent.headers["link"]


def test_secret_link_tokens_are_never_logged_and_never_leave_in_a_referrer(front):
    """(#42, 4) A reader follows a secret link: nginx's access log and gunicorn's keep the path,
    never the token (however its name is written: Django decodes %74oken as token), sent in
    the query or in the Referer a browser sends from the landing page; and every page the
    token opens says Referrer-Policy, so the browser sends the address to no other site."""
    token = front.server.librarian_token("links-logged")
    until = (datetime.datetime.now(datetime.UTC).date()
             + datetime.timedelta(days=30)).isoformat()
    auth = {"Authorization": f"Token {token}"}
    with httpx.Client(verify=False, timeout=30) as client:
        created = client.post(f"{front.https}/api/items/", headers=auth, data={
            "title": "Logged nowhere", "access": json.dumps(
                {"rights": "embargoed", "embargo_until": until})},
            files={"files": ("tese.pdf", PDF, "application/pdf")})
        assert created.status_code == 201, created.text
        ibi = created.json()["ibi"]
        made = client.post(f"{front.https}/api/items/{ibi}/links", headers=auth,
                           json={"expires": until})
    assert made.status_code == 201, made.text
    secret = made.json()["url"].rsplit("token=", 1)[1]
    landing = f"/items/{ibi}?token={secret}"
    file_path = f"/col/{ibi}/doc/tese.pdf"

    reader = httpx.Client(timeout=30, headers={"User-Agent": BROWSER})
    with reader:
        page = reader.get(front.http + landing)
        opened = reader.get(f"{front.http}{file_path}?lang=pt&token={secret}",
                            headers={"Referer": front.http + landing})
        encoded = reader.get(f"{front.http}{file_path}?%74oken={secret}")
        wrong = reader.get(f"{front.http}{file_path}?token=WRONG{secret[5:]}")
        done = reader.get(f"{front.http}/items/{ibi}/request")  # the last one logged
    assert page.status_code == 200 and page.headers["referrer-policy"] == "same-origin"
    for response in (opened, encoded):
        assert response.status_code == 200 and response.content == PDF
        assert response.headers["referrer-policy"] == "same-origin"
    assert wrong.status_code == 403 and wrong.headers["referrer-policy"] == "same-origin"
    assert done.status_code == 200

    last = f"/items/{ibi}/request "
    nginx_log = make.wait_until(lambda: any(last in line for line in front.log())
                                and front.log(), what="nginx's access log line")
    gunicorn_log = make.wait_until(lambda: last in (text := front.server.log.read_text())
                                   and text, what="gunicorn's access log line")
    assert [line for line in nginx_log if f"/items/{ibi}?[token withheld]" in line]
    assert [line for line in nginx_log if f"{file_path}?[token withheld]" in line]
    assert f"/items/{ibi}" in gunicorn_log and file_path in gunicorn_log
    for log in ("\n".join(nginx_log), gunicorn_log):
        assert secret[5:] not in log


def test_a_worker_freezes_what_it_loaded_after_its_first_request_only(monkeypatch):
    """gunicorn's post_request hook (ibirepo/gunicorn.py, deploy/gunicorn.conf.py): what the
    first request loaded leaves the garbage collector's full collections, once."""
    from ibirepo import gunicorn as hooks

    frozen = []
    monkeypatch.setattr(hooks, "_frozen", False)
    monkeypatch.setattr(hooks.gc, "freeze", lambda: frozen.append(True))
    for _ in range(3):
        hooks.post_request(None, None, {}, None)
    assert frozen == [True]
    conf = (ROOT / "deploy" / "gunicorn.conf.py").read_text()
    assert "post_request" in conf.split("from ibirepo.gunicorn import", 1)[1].split("\n")[0]
