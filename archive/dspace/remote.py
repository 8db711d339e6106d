"""The harvester's outgoing HTTP: only the source's host and the hosts named for files.

Every request goes through the one outgoing client (archive/protocol/outgoing.py: its guarded
transport resolves the host once, refuses an address in IBI_RESOLVER_DENY_NETWORKS and pins
the checked address), without proxies from the environment or compression. Besides:

* a redirect is followed (at most MAX_REDIRECTS) only to an allowed host: the host of the
  base URL given on the command line, or one given with --files-from; any other is refused;
* an OAI-PMH page is read up to MAX_PAGE_BYTES, a file up to IBI_MAX_FILE_SIZE and never past
  the size its record announced; a file's MD5, when its record gives one (METS), is checked;
* every request has a timeout; a 503 is retried after its Retry-After (seconds or an HTTP
  date; outgoing.MAX_RETRY_AFTER at most), MAX_RETRIES times; and `delay` seconds pass
  between two requests to the source, so that a harvest never floods a small repository.
"""
from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Sequence
from urllib.parse import urlencode, urlsplit

import httpx
from django.conf import settings
from django.core.files.uploadedfile import TemporaryUploadedFile
from django.utils.translation import gettext as _

from ..deposit import limits
from ..protocol import outgoing
from .oaipmh import RemoteFile

logger = logging.getLogger(__name__)

USER_AGENT = "ibirepo-harvester/1"
MAX_PAGE_BYTES = 64 * 1024 * 1024
MAX_REDIRECTS = 3
MAX_RETRIES = 5
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
        self.client = outgoing.client(user_agent=USER_AGENT, timeout=httpx.Timeout(timeout))

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
        try:
            response = outgoing.send(self.client, "GET", url, redirects=MAX_REDIRECTS,
                                     retries=MAX_RETRIES, allowed=self.allowed,
                                     before=self._polite, sleep=self.sleep)
        except outgoing.Refused as exc:
            raise RemoteError(_("%(url)s is not on the source's host nor on a host given "
                                "with --files-from: refused") % {"url": exc.url}) from None
        except outgoing.TooManyRedirects as exc:
            raise RemoteError(_("%(url)s: more than %(count)d redirects") % {
                "url": exc.url, "count": MAX_REDIRECTS}) from None
        except httpx.HTTPError as exc:
            logger.warning("%s: %s: %s", url, type(exc).__name__, exc)
            raise RemoteError(_("%(url)s is not reachable (%(reason)s)") % {
                "url": url, "reason": type(exc).__name__}) from None
        if response.status_code != 200:
            response.close()
            raise RemoteError(_("%(url)s answered %(status)s") % {
                "url": response.url, "status": response.status_code})
        return response

    def request_url(self, params: dict[str, str]) -> str:
        return f"{self.base}?{urlencode(params)}"

    def oai(self, params: dict[str, str]) -> bytes:
        """The body of one OAI-PMH request, within MAX_PAGE_BYTES."""
        url = self.request_url(params)
        response = self._open(url)
        try:
            return outgoing.read(response, cap=MAX_PAGE_BYTES)
        except outgoing.TooLarge:
            raise RemoteError(_("%(url)s: an answer over %(count)d bytes") % {
                "url": url, "count": MAX_PAGE_BYTES}) from None
        except httpx.HTTPError as exc:
            raise RemoteError(_("%(url)s: the answer was cut (%(reason)s)") % {
                "url": url, "reason": type(exc).__name__}) from None
        finally:
            response.close()

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
            cap = min(cap, remote.size)
        response = self._open(remote.url)
        temp = outgoing.Download(remote.name, remote.content_type or "application/octet-stream",
                                 remote.size or 0)
        md5 = hashlib.md5(usedforsecurity=False)
        try:
            outgoing.download(response, temp, cap=cap, also=[md5])
        except outgoing.TooLarge:
            raise RemoteError(_("%(name)s is longer than %(count)d bytes") % {
                "name": remote.name, "count": cap}) from None
        except httpx.HTTPError as exc:
            raise RemoteError(_("%(url)s: the download was cut (%(reason)s)") % {
                "url": remote.url, "reason": type(exc).__name__}) from None
        finally:
            response.close()
        if remote.size is not None and temp.size != remote.size:
            temp.close()
            raise RemoteError(_("%(name)s: %(got)d bytes arrived, its record says "
                                "%(size)d") % {"name": remote.name, "got": temp.size,
                                               "size": remote.size})
        if remote.md5 and md5.hexdigest() != remote.md5:
            temp.close()
            raise RemoteError(_("%(name)s: its MD5 is %(got)s, its record says %(md5)s")
                              % {"name": remote.name, "got": md5.hexdigest(),
                                 "md5": remote.md5})
        return temp
