"""The harvester's outgoing HTTP: only the source's host and the hosts named for files.

Every request goes through the resolver's guarded transport (archive/protocol/client.py:
the host resolved once, no address in IBI_RESOLVER_DENY_NETWORKS, the checked address
pinned), without proxies from the environment or compression. Besides:

* a redirect is followed (at most MAX_REDIRECTS) only to an allowed host: the host of the
  base URL given on the command line, or one given with --files-from; any other is refused;
* an OAI-PMH page is read up to MAX_PAGE_BYTES, a file up to IBI_MAX_FILE_SIZE and never past
  the size its record announced; a file's MD5, when its record gives one (METS), is checked;
* every request has a timeout; a 503 is retried after its Retry-After (seconds or an HTTP
  date; MAX_RETRY_AFTER at most), MAX_RETRIES times; and `delay` seconds pass between two
  requests to the source, so that a harvest never floods a small repository.
"""
from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from urllib.parse import urlencode, urljoin, urlsplit

import httpx
from django.conf import settings
from django.core.files.uploadedfile import TemporaryUploadedFile
from django.utils.translation import gettext as _

from ..deposit import limits
from ..protocol import client as guarded
from .oaipmh import RemoteFile

logger = logging.getLogger(__name__)

USER_AGENT = "ibirepo-harvester/1"
MAX_PAGE_BYTES = 64 * 1024 * 1024
MAX_REDIRECTS = 3
MAX_RETRIES = 5
MAX_RETRY_AFTER = 600.0
DEFAULT_RETRY_AFTER = 10.0
CHUNK = 1024 * 1024
_PORTS = {"http": 80, "https": 443}


class RemoteError(RuntimeError):
    """The source (or a file host) could not be asked, or answered what cannot be used."""


def _endpoint(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    return (parts.hostname or "").lower(), parts.port or _PORTS.get(parts.scheme, 0)


def base_url(text: str) -> str:
    """An OAI-PMH base URL: http(s), a host, no query, fragment or user; else RemoteError."""
    parts = urlsplit((text or "").strip())
    if parts.scheme not in _PORTS or not parts.hostname or parts.query or parts.fragment \
            or parts.username or parts.password:
        raise RemoteError(_("%(text)r is not the base URL of an OAI-PMH repository, e.g. "
                            "https://repositorio.example.br/server/oai/request") % {"text": text})
    return f"{parts.scheme}://{parts.netloc}{parts.path}"


class Remote:
    """The source at `base` and the file hosts `files_from` ("host" or "host:port")."""

    def __init__(self, base: str, files_from: Sequence[str] = (), *, timeout: float = 60.0,
                 delay: float = 0.0, sleep: Callable[[float], None] = time.sleep) -> None:
        self.base = base_url(base)
        self.hosts = {_endpoint(self.base)}
        self.any_port: set[str] = set()
        for entry in files_from:
            text = entry.strip()
            if "//" in text:
                self.hosts.add(_endpoint(text))
                continue
            host, colon, port = text.rpartition(":") if ":" in text else (text, "", "")
            if colon and port.isdigit():
                self.hosts.add((host.lower(), int(port)))
            else:
                self.any_port.add(text.lower())
        self.delay, self.sleep, self.last = delay, sleep, 0.0
        self.client = httpx.Client(
            timeout=httpx.Timeout(timeout), follow_redirects=False, trust_env=False,
            transport=guarded.GuardedTransport(settings.IBI_RESOLVER_DENY_NETWORKS),
            headers={"User-Agent": USER_AGENT, "Accept-Encoding": "identity"})

    def close(self) -> None:
        self.client.close()

    def allowed(self, url: str) -> bool:
        parts = urlsplit(url)
        if parts.scheme not in _PORTS:
            return False
        host, port = _endpoint(url)
        return (host, port) in self.hosts or host in self.any_port

    def _polite(self) -> None:
        wait = self.last + self.delay - time.monotonic()
        if wait > 0:
            self.sleep(wait)
        self.last = time.monotonic()

    def _open(self, url: str) -> httpx.Response:
        """The response to GET url (a stream: close it), redirects followed to allowed hosts,
        503s retried after their Retry-After."""
        hops = retries = 0
        while True:
            if not self.allowed(url):
                raise RemoteError(_("%(url)s is not on the source's host nor on a host given "
                                    "with --files-from: refused") % {"url": url})
            self._polite()
            try:
                response = self.client.send(self.client.build_request("GET", url), stream=True)
            except httpx.HTTPError as exc:
                logger.warning("%s: %s: %s", url, type(exc).__name__, exc)
                raise RemoteError(_("%(url)s is not reachable (%(reason)s)") % {
                    "url": url, "reason": type(exc).__name__}) from None
            if response.status_code == 503 and retries < MAX_RETRIES:
                response.close()
                retries += 1
                self.sleep(retry_after(response.headers.get("Retry-After")))
                continue
            if response.is_redirect:
                response.close()
                hops += 1
                if hops > MAX_REDIRECTS:
                    raise RemoteError(_("%(url)s: more than %(count)d redirects") % {
                        "url": url, "count": MAX_REDIRECTS})
                url = urljoin(url, response.headers.get("Location", ""))
                continue
            if response.status_code != 200:
                response.close()
                raise RemoteError(_("%(url)s answered %(status)s") % {
                    "url": url, "status": response.status_code})
            return response

    def request_url(self, params: dict[str, str]) -> str:
        return f"{self.base}?{urlencode(params)}"

    def oai(self, params: dict[str, str]) -> bytes:
        """The body of one OAI-PMH request, within MAX_PAGE_BYTES."""
        url = self.request_url(params)
        response = self._open(url)
        body = bytearray()
        try:
            for chunk in response.iter_raw():
                body += chunk
                if len(body) > MAX_PAGE_BYTES:
                    raise RemoteError(_("%(url)s: an answer over %(count)d bytes") % {
                        "url": url, "count": MAX_PAGE_BYTES})
        except httpx.HTTPError as exc:
            raise RemoteError(_("%(url)s: the answer was cut (%(reason)s)") % {
                "url": url, "reason": type(exc).__name__}) from None
        finally:
            response.close()
        return bytes(body)

    def download(self, remote: RemoteFile) -> TemporaryUploadedFile:
        """The file in a temporary file beside the uploads (close it when done), with .sha256
        and .size; RemoteError when it is longer or shorter than announced, over
        IBI_MAX_FILE_SIZE, or not the MD5 its record gives."""
        cap = settings.IBI_MAX_FILE_SIZE
        if remote.size is not None:
            try:
                limits.check_size(remote.name, remote.size)
            except limits.LimitExceeded as exc:
                raise RemoteError(str(exc)) from None
        response = self._open(remote.url)
        temp = TemporaryUploadedFile(remote.name, remote.content_type or
                                     "application/octet-stream", remote.size or 0, None)
        sha, md5, size = hashlib.sha256(), hashlib.md5(usedforsecurity=False), 0
        try:
            for chunk in response.iter_raw(CHUNK):
                size += len(chunk)
                if size > cap or (remote.size is not None and size > remote.size):
                    raise RemoteError(_("%(name)s is longer than %(count)d bytes") % {
                        "name": remote.name, "count": min(cap, remote.size or cap)})
                sha.update(chunk)
                md5.update(chunk)
                temp.write(chunk)
            if remote.size is not None and size != remote.size:
                raise RemoteError(_("%(name)s: %(got)d bytes arrived, its record says "
                                    "%(size)d") % {"name": remote.name, "got": size,
                                                   "size": remote.size})
            if remote.md5 and md5.hexdigest() != remote.md5:
                raise RemoteError(_("%(name)s: its MD5 is %(got)s, its record says %(md5)s")
                                  % {"name": remote.name, "got": md5.hexdigest(),
                                     "md5": remote.md5})
        except httpx.HTTPError as exc:
            temp.close()
            raise RemoteError(_("%(url)s: the download was cut (%(reason)s)") % {
                "url": remote.url, "reason": type(exc).__name__}) from None
        except BaseException:
            temp.close()
            raise
        finally:
            response.close()
        temp.flush()
        temp.seek(0)
        temp.sha256, temp.size = sha.hexdigest(), size
        return temp


def retry_after(value: str | None, now: datetime | None = None) -> float:
    """Seconds a Retry-After asks for (RFC 9110 §10.2.3: seconds or an HTTP date), within
    [1, MAX_RETRY_AFTER]; DEFAULT_RETRY_AFTER when absent or unreadable."""
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
