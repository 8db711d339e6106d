"""The one outgoing HTTP client (#40, 4) for what this server asks of others over plain HTTP
requests: other Archives' REST API (preservation/peer.py), OAI-PMH sources and their files
(dspace/remote.py), metadata documents (resolver/formats.py). The resolver's fan-out of
urlRequests, tuned for latency, is client.py's own.

Every request this server makes on someone's behalf is a server-side request forgery waiting
to happen, so there is one way to make one:

* `client()`: an httpx client whose transport is guarded (`GuardedTransport`: the host
  resolved once, no address in IBI_RESOLVER_DENY_NETWORKS, the checked address pinned), with
  no proxies from the environment, no compression (a small gzip body could expand past a cap
  before it is counted) and no redirect followed by httpx itself;
* `send()`: the response to one request, as a stream: a redirect followed only when the caller
  allows some (each hop guarded, and to a URL `allowed` accepts; credentials never carried to
  another origin), a 503 asked again after its Retry-After (`retry_after`) when the caller
  allows retries;
* `read()` a body up to a cap; `download()` one to a temporary file beside the uploads, hashed
  with SHA-256 as it arrives and stopped past a cap.

What goes wrong is an `OutgoingError` (refused, too many redirects, too large) or httpx's own
`HTTPError` (not reachable, cut); the callers say it in their words.
"""
from __future__ import annotations

import hashlib
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urljoin

import httpx
from django.conf import settings
from django.core.files.uploadedfile import TemporaryUploadedFile

from .client import USER_AGENT, AddressError, checked_ips, tls_context

CHUNK = 1024 * 1024
MAX_RETRY_AFTER = 600.0  # seconds: a Retry-After asking for longer is waited this long
DEFAULT_RETRY_AFTER = 10.0  # seconds, when a 503 says no Retry-After or one unreadable


class OutgoingError(Exception):
    """A request not made, or an answer not taken; `url` is the one it concerns."""

    def __init__(self, url: str, detail: str = "") -> None:
        super().__init__(f"{url}: {detail}" if detail else url)
        self.url = url


class Refused(OutgoingError):
    """A URL (asked, or a redirect's) that the caller does not allow."""


class TooManyRedirects(OutgoingError):
    """More redirects than the caller allows."""


class TooLarge(OutgoingError):
    """A body longer than its cap."""

    def __init__(self, url: str, cap: int) -> None:
        super().__init__(url, f"longer than {cap} bytes")
        self.cap = cap


class GuardedTransport(httpx.HTTPTransport):
    """Each request, redirects included, goes to an address checked against the deny-list.

    The host is resolved once per request and the connection made to the checked address; the
    ``Host`` header (set by the client from the URL) and, for https, the TLS server name keep
    naming the host, so certificates are verified against it; so does the request's URL once
    the connection is made (errors, logs, relative redirects). A denied host is an
    ``httpx.ConnectError``: callers treat it as any other unreachable server.
    """

    def __init__(self, networks: Sequence[str], **kwargs) -> None:
        super().__init__(**kwargs)
        self.networks = tuple(networks)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        host = request.url.host
        port = request.url.port or (443 if request.url.scheme == "https" else 80)
        try:
            ip = checked_ips(host, port, self.networks)[0]
        except AddressError as exc:
            raise httpx.ConnectError(str(exc), request=request) from None
        if request.url.scheme == "https":
            request.extensions = {**request.extensions, "sni_hostname": host}
        named, request.url = request.url, request.url.copy_with(host=ip)
        try:
            return super().handle_request(request)
        finally:  # the connection is made: the request (and its response) name the host again
            request.url = named


def client(*, user_agent: str, timeout: float | httpx.Timeout,
           headers: dict[str, str] | None = None) -> httpx.Client:
    """An httpx client through the guarded transport (see the module docstring)."""
    return httpx.Client(
        timeout=timeout, follow_redirects=False, trust_env=False,
        transport=GuardedTransport(settings.IBI_RESOLVER_DENY_NETWORKS, verify=tls_context()),
        headers={"User-Agent": user_agent, "Accept-Encoding": "identity", **(headers or {})})


def _origin(url: httpx.URL) -> tuple[str, str, int | None]:
    return url.scheme, url.host, url.port


def send(http: httpx.Client, method: str, url: str, *, redirects: int = 0, retries: int = 0,
         allowed: Callable[[str], bool] | None = None, before: Callable[[], object] | None = None,
         sleep: Callable[[float], object] = time.sleep, headers: dict[str, str] | None = None,
         **request: Any) -> httpx.Response:
    """The response to `method url` as a stream (close it). Up to `redirects` redirects are
    followed (a redirect past them is TooManyRedirects; with none allowed it is the answer),
    the Authorization header only within the first URL's origin; each URL asked is one that
    `allowed` accepts (else Refused). A 503 is asked again after its Retry-After, `retries`
    times at most. `before` runs before each request (a polite delay); `request`: httpx's
    build_request arguments (json, content, params)."""
    hops = tries = 0
    headers = dict(headers or {})
    first = httpx.URL(url)
    while True:
        if allowed is not None and not allowed(url):
            raise Refused(url)
        if before is not None:
            before()
        if _origin(httpx.URL(url)) != _origin(first):  # as httpx does: no credentials away
            headers.pop("Authorization", None)
        response = http.send(http.build_request(method, url, headers=headers, **request),
                             stream=True)
        if response.status_code == 503 and tries < retries:
            response.close()
            tries += 1
            sleep(retry_after(response.headers.get("Retry-After")))
            continue
        if response.is_redirect and redirects:
            response.close()
            hops += 1
            if hops > redirects:
                raise TooManyRedirects(url, f"more than {redirects} redirects")
            url = urljoin(url, response.headers.get("Location", ""))
            continue
        return response


def read(response: httpx.Response, *, cap: int) -> bytes:
    """The body of a response, TooLarge past `cap` bytes (read no further)."""
    body = bytearray()
    for chunk in response.iter_raw():
        body += chunk
        if len(body) > cap:
            raise TooLarge(str(response.url), cap)
    return bytes(body)


class Download(TemporaryUploadedFile):
    """A temporary upload beside the uploads (FILE_UPLOAD_TEMP_DIR: on the local disk, storing
    it is a link, not a second write), its name starting with `prefix` (a copy job's, so that
    a run taking the job over sweeps what a killed one left: preservation/jobs.py). It carries
    .sha256 and .size once downloaded, so storage.store does not read it again."""

    def __init__(self, name: str, content_type: str, size: int, prefix: str = "") -> None:
        file = tempfile.NamedTemporaryFile(prefix=prefix or "download-", suffix=".download",
                                           dir=settings.FILE_UPLOAD_TEMP_DIR)
        super(TemporaryUploadedFile, self).__init__(file, name, content_type, size, None, None)
        self.sha256 = ""


def download(response: httpx.Response, into: Download, *, cap: int,
             also: Iterable[Any] = (), arrived: Callable[[int], object] | None = None
             ) -> Download:
    """The body of `response` written to `into`, hashed with SHA-256 (and with each hash
    object of `also`, e.g. an MD5 to compare) as it arrives, `arrived(n)` told of each chunk;
    TooLarge past `cap` bytes. `into` rewound, with .sha256 and .size; closed when this
    raises (httpx's HTTPError for a download cut)."""
    digest, size, others = hashlib.sha256(), 0, list(also)
    try:
        for chunk in response.iter_raw(CHUNK):
            size += len(chunk)
            if size > cap:
                raise TooLarge(str(response.url), cap)
            digest.update(chunk)
            for other in others:
                other.update(chunk)
            into.write(chunk)
            if arrived is not None:
                arrived(len(chunk))
    except BaseException:
        into.close()
        raise
    into.flush()
    into.seek(0)
    into.sha256, into.size = digest.hexdigest(), size
    return into


def get_document(url: str, *, accept: str, max_bytes: int | None = None,
                 user_agent: str = USER_AGENT) -> bytes:
    """The body of a 200 answer to GET url: no redirect, at most `max_bytes`
    (IBI_RESOLVER_MAX_RESPONSE) read, within IBI_RESOLVER_TIMEOUT. AddressError for anything
    else (another status, a longer body, no answer in time, a refused address)."""
    limit = max_bytes or settings.IBI_RESOLVER_MAX_RESPONSE
    try:
        with client(user_agent=user_agent, timeout=settings.IBI_RESOLVER_TIMEOUT,
                    headers={"Accept": accept}) as http:
            response = send(http, "GET", url)
            try:
                if response.status_code != 200:
                    raise AddressError(f"{url} answered HTTP {response.status_code}")
                return read(response, cap=limit)
            finally:
                response.close()
    except TooLarge:
        raise AddressError(f"{url}: answer longer than {limit} bytes") from None
    except httpx.HTTPError as exc:
        raise AddressError(f"{url}: {type(exc).__name__}: {exc}"[:300]) from None


def retry_after(value: str | None, now: datetime | None = None) -> float:
    """Seconds a Retry-After asks for (RFC 9110 §10.2.3: seconds or an HTTP date), within
    [1, MAX_RETRY_AFTER]; DEFAULT_RETRY_AFTER when absent or unreadable.

    >>> retry_after("120"), retry_after("0"), retry_after(None)
    (120.0, 1.0, 10.0)
    """
    text = (value or "").strip()
    if text.isdigit():
        return min(max(float(text), 1.0), MAX_RETRY_AFTER)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return DEFAULT_RETRY_AFTER
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    seconds = (when - (now or datetime.now(UTC))).total_seconds()
    return min(max(seconds, 1.0), MAX_RETRY_AFTER)
