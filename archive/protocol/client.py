"""Outgoing HTTP of the resolution standard: GET requests whose answers are pair lists (§6).

The resolver asks every included Archive at once (§8.2 step 3). Our choice: one event loop per
process, in a thread of its own, with one aiohttp session whose connections are kept alive
per Archive (`_session`); one task per Archive, collected with ``asyncio.wait`` under the
overall deadline, each task bounded by its own timeout around name resolution, connection and
reading. The sync Django view hands the round to that loop (`ask_all_sync`) and waits. Ten
Archives of which one never answers therefore cost one per-Archive timeout, not ten; no thread
per Archive, no broker round trip on the reader's critical path.

At most IBI_RESOLVER_MAX_CONNECTIONS requests of a process are in flight at once, so at most
that many sockets in use (and, between rounds, one kept alive per Archive for KEEP_ALIVE
seconds): a round asking more Archives asks the others as places free up, in the order given
(health.py `in_order`: the slowest expected first, up to half the places, then the fastest).
An Archive's own timeout starts when its request does, never while it waits for a place: with
300 Archives and 100 places, none is cut short for waiting behind silent ones (#29: httpx's own
pool of 100 counted the wait in the timeout, and live holders of an IBI were missed).

What the resolver will not do, whatever an Archive registered or answered:

* connect to an address in ``IBI_RESOLVER_DENY_NETWORKS`` (link-local, cloud metadata and
  private ranges by default). The host is resolved once, every address is checked, and the
  connection goes to the checked address with the ``Host`` header set, so a DNS answer cannot
  change in between;
* follow a redirect, accept a compressed body, read more than ``IBI_RESOLVER_MAX_RESPONSE``
  bytes, or wait longer than the per-Archive timeout;
* take anything but a 200 answer that is an ASCII pair list (Table 6.2).

The same address rules guard the one synchronous client of the app's other outgoing HTTP
(outgoing.py `GuardedTransport`: other Archives' REST API, OAI-PMH sources, documents).
"""
from __future__ import annotations

import asyncio
import atexit
import contextlib
import dataclasses
import functools
import ipaddress
import os
import re
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import quote, urlencode, urlsplit

import httpx
import yarl
from asgiref.sync import async_to_sync
from django.conf import settings

from ..runtime.threads import Helper
from .pairs import Pair, PairListError, loads

if TYPE_CHECKING:  # imported where a round needs it: a quarter of Django's start in every
    import aiohttp  # process (its TLS contexts made at import), most of which send none

USER_AGENT = "ibirepo-resolver/1"
_ADDRESS_FORBIDDEN = set("/?#@\\%[] ") | {chr(c) for c in range(32)} | {"\x7f"}
# A DNS name or an IPv4 literal: labels of letters, digits and inner hyphens.
_HOST = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)(?:\.(?!-)[A-Za-z0-9-]{1,63}(?<!-))*\.?")


class AddressError(ValueError):
    """An address the resolver will not contact: not host[:port], or in a denied network."""


@dataclass(frozen=True)
class Reply:
    """What one request brought back: the pairs of a 200 pair list, or why there are none."""

    base: str  # the base URL asked, e.g. http://127.0.0.1:8001/<archive service IBI>
    tag: object = None  # the caller's name for the target (a RegisteredArchive id …)
    pairs: list[Pair] | None = None
    status: int | None = None
    ip: str = ""  # the IP the request went to, when the resolver pinned it
    error: str = ""
    elapsed: float = 0.0
    order: int = field(default=0, compare=False)  # arrival rank within its round
    cancelled: bool = False  # not waited for: another reply settled the round
    cut: bool = False  # not waited for: another reply settled it, or the deadline came

    @property
    def ok(self) -> bool:
        return self.pairs is not None


def split_address(address: str) -> tuple[str, int]:
    """host[:port] of RTC-11 §6.1 (``archiveaddress``) → (host, port), port 80 by default.

    A bracketed IPv6 literal is accepted (``[::1]:8000``); userinfo, paths, backslashes,
    escapes and spaces are not::

        >>> split_address("mtc-m21.sid.inpe.br")
        ('mtc-m21.sid.inpe.br', 80)
    """
    if not isinstance(address, str) or not 0 < len(address) <= 255 or not address.isascii():
        raise AddressError(f"{address!r} is not host[:port]")
    if address.startswith("["):
        host, bracket, port_part = address[1:].partition("]")
        if not bracket:
            raise AddressError(f"{address!r}: no closing ']'")
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise AddressError(f"{address!r}: [{host}] is not an IPv6 address") from None
        port_text = port_part.removeprefix(":") if port_part.startswith(":") else port_part
        if port_part and not port_part.startswith(":"):
            raise AddressError(f"{address!r} is not [IPv6][:port]")
    else:
        host, _, port_text = address.partition(":")
        if _ADDRESS_FORBIDDEN & set(address) or not _HOST.fullmatch(host):
            raise AddressError(f"{address!r} is not host[:port]")
    if port_text and not (port_text.isdigit() and 0 < int(port_text) < 65536):
        raise AddressError(f"{address!r} is not host[:port]: bad port {port_text!r}")
    return host.lower(), int(port_text) if port_text else 80


def canonical_address(address: str) -> str:
    """The address as it is compared: lower case, the default port 80 dropped."""
    host, port = split_address(address)
    shown = f"[{host}]" if ":" in host else host
    return shown if port == 80 else f"{shown}:{port}"


def query_string(pairs: Mapping[str, str] | Iterable[tuple[str, str]]) -> str:
    """Pairs as a query of Table 6.1: space ``%20``, ``%`` ``%25``, ``&`` ``%26``, ``+`` ``%2B``,
    ``=`` ``%3D``, ``?`` ``%3F``; ``/``, ``(`` and ``)`` stay as the standard's examples write
    them."""
    return urlencode(list(pairs.items() if isinstance(pairs, Mapping) else pairs),
                     quote_via=quote, safe="/()")


def denied(ip: str, networks: Sequence[str]) -> bool:
    """Whether the resolver must not connect to ip (unspecified addresses never)."""
    address = ipaddress.ip_address(ip.split("%")[0])
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        address = address.ipv4_mapped
    if address.is_unspecified:
        return True
    return any(address in network for network in _networks(tuple(networks))
               if network.version == address.version)


@functools.lru_cache(maxsize=16)
def _networks(networks: tuple[str, ...]) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network,
                                                  ...]:
    """The deny-list read once, not at each of a round's hundreds of requests."""
    return tuple(ipaddress.ip_network(n, strict=False) for n in networks)


def _allowed_ips(host: str, ips: list[str], networks: Sequence[str]) -> list[str]:
    bad = [ip for ip in ips if denied(ip, networks)]
    if bad or not ips:
        raise AddressError(f"{host} resolves to a denied address ({', '.join(bad)})")
    return ips


def _literal(host: str) -> list[str] | None:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return None
    return [host]


async def _checked_ips(host: str, port: int, networks: Sequence[str]) -> list[str]:
    ips = _literal(host)
    if ips is None:
        try:
            infos = await asyncio.get_running_loop().getaddrinfo(
                host, port, type=socket.SOCK_STREAM)
        except OSError as exc:
            raise AddressError(f"{host} does not resolve: {exc}") from None
        ips = list(dict.fromkeys(info[4][0] for info in infos))
    return _allowed_ips(host, ips, networks)


def checked_ips(host: str, port: int, networks: Sequence[str]) -> list[str]:
    """The addresses host resolves to, once none of them is denied; else AddressError."""
    ips = _literal(host)
    if ips is None:
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError as exc:
            raise AddressError(f"{host} does not resolve: {exc}") from None
        ips = list(dict.fromkeys(info[4][0] for info in infos))
    return _allowed_ips(host, ips, networks)


def _limits() -> dict:
    return {"timeout": settings.IBI_RESOLVER_TIMEOUT,
            "max_bytes": settings.IBI_RESOLVER_MAX_RESPONSE,
            "networks": settings.IBI_RESOLVER_DENY_NETWORKS}


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The verifying TLS context of every outgoing connection, here and in outgoing.py's
    client: made once per process, since making one loads the CA bundle (54 ms of CPU with
    OpenSSL 3, measured 2026-11-30), which an httpx client would otherwise do each time it is
    made, plain-HTTP requests included. Archives speak plain HTTP; an https resolver URL
    (switchon) or harvest source is verified with it."""
    return httpx.create_ssl_context()


KEEP_ALIVE = 60  # seconds an idle connection to an Archive is kept for the next round
HEADERS = {"User-Agent": USER_AGENT, "Accept": "text/plain", "Accept-Encoding": "identity"}


def _session(places: int = 0) -> aiohttp.ClientSession:
    """An aiohttp session for urlRequests: connections kept alive per Archive (its pool is one
    list per host: httpx's, one pool scanned whole at every request and answer, cost seconds of
    CPU a round of 300 Archives, #29), no proxies from the environment, no cookies kept, no
    decompression (a small gzip body could expand past the size cap before we count it);
    redirects are refused per request. Made in the loop that uses it."""
    import aiohttp

    connector = aiohttp.TCPConnector(limit=places, keepalive_timeout=KEEP_ALIVE, ssl=tls_context())
    return aiohttp.ClientSession(connector=connector, headers=HEADERS, auto_decompress=False,
                                 cookie_jar=aiohttp.DummyCookieJar(), trust_env=False)


class _Shared:
    """This process's event loop for rounds (a helper thread, runtime/threads.py), its session
    and its places."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.loop = asyncio.new_event_loop()
        self.size = 0
        self.session: aiohttp.ClientSession | None = None
        self.places: asyncio.Semaphore | None = None
        Helper("ibi-resolver", self.loop.run_forever).wake()  # its work never returns
        atexit.register(self.close)

    def close(self) -> None:
        """Close the kept-alive connections as the process ends (its loop still runs then)."""
        if self.session is not None and self.pid == os.getpid() and self.loop.is_running():
            with contextlib.suppress(Exception):  # the process is ending: nothing to report to
                asyncio.run_coroutine_threadsafe(self.session.close(), self.loop).result(1)

    async def connected(self, size: int) -> tuple[aiohttp.ClientSession, asyncio.Semaphore]:
        """The session and the places, made again when IBI_RESOLVER_MAX_CONNECTIONS changed."""
        if self.session is None or size != self.size:
            if self.session is not None:
                asyncio.get_running_loop().create_task(self.session.close())
            self.session, self.places, self.size = _session(size), asyncio.Semaphore(size), size
        return self.session, self.places


_shared: _Shared | None = None
_shared_lock = threading.Lock()


def _shared_loop() -> _Shared:
    """This process's loop, started at its first round (after a fork: gunicorn's workers)."""
    global _shared
    with _shared_lock:
        if _shared is None or _shared.pid != os.getpid():
            _shared = _Shared()
        return _shared


async def _request(session: aiohttp.ClientSession, base: str, pairs, *,
                   networks: Sequence[str], max_bytes: int, pin: bool) -> tuple[int, bytes, str]:
    parts = urlsplit(base)
    query = pairs if isinstance(pairs, str) else query_string(pairs)
    url = f"{base}?{query}"
    headers = {}
    ip = ""
    if pin:  # connect to the address we checked, name the host in the header
        host, port = split_address(parts.netloc)
        ip = (await _checked_ips(host, port, networks))[0]
        literal = f"[{ip}]" if ":" in ip else ip
        url = f"http://{literal}:{port}{parts.path}?{query}"
        headers["Host"] = parts.netloc
    # encoded: the query goes as query_string wrote it, never quoted again.
    async with session.get(yarl.URL(url, encoded=True), headers=headers,
                           allow_redirects=False) as response:
        body = bytearray()
        async for chunk in response.content.iter_any():
            body += chunk
            if len(body) > max_bytes:
                raise AddressError(f"answer longer than {max_bytes} bytes")
        return response.status, bytes(body), ip


async def fetch(session: aiohttp.ClientSession, base: str, pairs, *, tag: object = None,
                timeout: float, max_bytes: int, networks: Sequence[str],
                pin: bool = True) -> Reply:
    """One GET of base?pairs, bounded by timeout; never raises for the far side's faults."""
    import aiohttp

    start = time.monotonic()

    def reply(**kwargs) -> Reply:
        return Reply(base=base, tag=tag, elapsed=time.monotonic() - start, **kwargs)

    try:
        async with asyncio.timeout(timeout):
            status, body, ip = await _request(session, base, pairs, networks=networks,
                                              max_bytes=max_bytes, pin=pin)
    except TimeoutError:
        return reply(error=f"no answer within {timeout:g} s")
    except AddressError as exc:
        return reply(error=str(exc))
    except (aiohttp.ClientError, OSError) as exc:
        return reply(error=f"{type(exc).__name__}: {exc}"[:300])
    if status != 200:
        said = re.sub(r"[^\x20-\x7e]+", " ", body[:300].decode("ascii", "replace")).strip()
        return reply(status=status, ip=ip,
                     error=f"HTTP {status}" + (f": {said}" if said else ""))
    try:
        return reply(status=status, ip=ip, pairs=loads(body.decode("ascii")))
    except (UnicodeDecodeError, PairListError) as exc:
        return reply(status=status, error=f"not a pair list: {exc}"[:300])


async def ask_all(targets: Sequence[tuple[str, object]], pairs, *, deadline: float,
                  stop: Callable[[Reply], bool] | None = None,
                  pairs_for: Mapping[object, object] | None = None,
                  limits: dict | None = None, shared: _Shared | None = None) -> list[Reply]:
    """Ask every (base URL, tag) at once; replies in arrival order, then the late ones.

    Every target gets `pairs`, or `pairs_for[tag]` when given (what one Archive may be asked).
    Waits until every target answered, `deadline` seconds passed, or `stop(reply)` is true
    for one reply; targets still pending then get an error reply and are cancelled. Run in
    `shared`'s loop it uses that process's session and its places (`ask_all_sync`);
    otherwise a session of its own for this round.
    """
    limits = limits or _limits()
    if shared is None:
        async with _session() as session:
            return await _ask_all(session, None, targets, pairs, deadline, stop, pairs_for,
                                  limits)
    session, places = await shared.connected(settings.IBI_RESOLVER_MAX_CONNECTIONS)
    return await _ask_all(session, places, targets, pairs, deadline, stop, pairs_for, limits)


async def _placed(places: asyncio.Semaphore | None, session: aiohttp.ClientSession, base: str,
                  pairs, **kwargs) -> Reply:
    if places is None:
        return await fetch(session, base, pairs, **kwargs)
    async with places:  # the timeout starts with the request, not with the wait for a place
        return await fetch(session, base, pairs, **kwargs)


async def _ask_all(session: aiohttp.ClientSession, places: asyncio.Semaphore | None,
                   targets: Sequence[tuple[str, object]], pairs, deadline: float,
                   stop: Callable[[Reply], bool] | None,
                   pairs_for: Mapping[object, object] | None, limits: dict) -> list[Reply]:
    replies: list[Reply] = []
    own = pairs_for or {}
    queries: dict[tuple, str] = {}  # each distinct question encoded once, not per Archive

    def query(asked) -> str:
        items = tuple(asked.items() if isinstance(asked, Mapping) else asked)
        if items not in queries:
            queries[items] = query_string(items)
        return queries[items]
    tasks = {asyncio.create_task(_placed(places, session, base, query(own.get(tag, pairs)),
                                         tag=tag, **limits)): (base, tag)
             for base, tag in targets}
    pending = set(tasks)
    end = time.monotonic() + deadline
    stopped = False
    while pending and not stopped:
        left = end - time.monotonic()
        if left <= 0:
            break
        done, pending = await asyncio.wait(pending, timeout=left,
                                           return_when=asyncio.FIRST_COMPLETED)
        for task in sorted(done, key=lambda t: t.result().elapsed):
            found = task.result()
            replies.append(dataclasses.replace(found, order=len(replies)))
            stopped = stopped or bool(stop and stop(found))
    for task in pending:
        task.cancel()
        base, tag = tasks[task]
        reason = "not waited for: an answer settled it" if stopped else "deadline"
        replies.append(Reply(base=base, tag=tag, error=reason, order=len(replies),
                             cancelled=stopped, cut=True))
    if pending:
        await asyncio.wait(pending)
    return replies


def ask_all_sync(targets: Sequence[tuple[str, object]], pairs, *, deadline: float,
                 stop: Callable[[Reply], bool] | None = None,
                 pairs_for: Mapping[object, object] | None = None) -> list[Reply]:
    """`ask_all` from sync code, in this process's resolver loop: its kept-alive
    connections, at most IBI_RESOLVER_MAX_CONNECTIONS requests in flight."""
    shared = _shared_loop()
    round_ = ask_all(targets, pairs, deadline=deadline, stop=stop, pairs_for=pairs_for,
                     limits=_limits(), shared=shared)
    return asyncio.run_coroutine_threadsafe(round_, shared.loop).result()


async def _one(base: str, pairs, *, pin: bool, timeout: float | None) -> Reply:
    limits = _limits()
    if timeout is not None:
        limits["timeout"] = timeout
    async with _session() as session:
        return await fetch(session, base, pairs, pin=pin, **limits)


def get_pairs(base: str, pairs, *, pin: bool = True, timeout: float | None = None) -> Reply:
    """One request from sync code (inclusion confirmation, acknowledgment, switchon).

    `pin=False` for a URL the administrator typed (the resolver of `switchon`, maybe https):
    no denied-network check, normal TLS; redirects are still not followed.
    """
    return async_to_sync(_one)(base, pairs, pin=pin, timeout=timeout)


def archive_base(address: str, service_ibi: str) -> str:
    """``http://<archiveaddress>/<archiveserviceibi>`` (§6.1); the address is checked."""
    split_address(address)
    return f"http://{address}/{service_ibi}"
