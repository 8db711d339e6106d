"""Rate limits of the HTTP edges, on DRF's throttles and Django's cache (README "Rate limits").

What each guards, and why it counts what it counts:

* `WriteThrottle`: API writes (POST, PUT, PATCH, DELETE) per user, API_THROTTLE_WRITES.
* `ReadThrottle`: anonymous API reads per client IP, API_THROTTLE_READS: generous, and apart
  from the failures below, so that wrong tokens sent from a shared address (a campus NAT)
  never shut the read API for everyone behind it.
* `FailureThrottle`: failures per client IP, checked *before* the costly work and recorded
  only when it failed, so a client that keeps its credentials right is never slowed, however
  many failures another client piles up. `ThrottledTokenAuthentication` (authentication.py)
  uses it for wrong API tokens (API_THROTTLE_TOKEN_FAILURES); the resolver service for
  refused registration keys (IBI_RESOLVER_SERVICE_FAILURES), each of which cost a 60 000-
  iteration PBKDF2, and, recorded on every request, for all its requests per client
  (IBI_RESOLVER_SERVICE_RATE). Secret links (readers.py) are the exception: a link that
  opens the item is never refused, and a refused token is counted per link tried when it is
  one (expired, revoked, another item's), per address only when it is no link at all.
* The admin login: django-axes (settings.py), whose lockout answer is
  errors.py's `lockout_response`; its client address is `client_ip`, as every limit's.

Preservation crawlers (IBI_LOCKSS_CRAWLERS: Rede Cariniana's LOCKSS boxes, by address or
network) are never limited when they read: no throttle counts or refuses their GET and HEAD
requests (`preservation_crawler`), so that an Archival Unit is collected whole however fast
they crawl. What they would post (a login, a request for a copy) is limited as anyone's: a
crawler never does, and an address trusted to read is not trusted to guess passwords.

The counts live in Django's default cache: shared by every process when it is Redis
(CACHE_URL or REDIS_URL), per process with the local-memory default. The client IP is
REMOTE_ADDR, or with NUM_PROXIES trusted proxies in front the address they saw
(X-Forwarded-For, counted from the right): a header a client writes itself is never believed.
"""
from __future__ import annotations

import functools
import ipaddress
import math

from django.conf import settings
from django.http import HttpRequest
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle, SimpleRateThrottle, UserRateThrottle

SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


class WriteThrottle(UserRateThrottle):
    """Writes per user (per IP for anonymous ones); reads are not counted."""

    scope = "write"

    def get_ident(self, request) -> str:
        return client_ip(request)

    def get_rate(self) -> str:
        # DRF copies the rates into a class attribute at import; read the settings instead.
        return api_settings.DEFAULT_THROTTLE_RATES[self.scope]

    def allow_request(self, request, view) -> bool:
        return (request.method in SAFE_METHODS or preservation_crawler(request)
                or super().allow_request(request, view))


class ReadThrottle(SimpleRateThrottle):
    """Anonymous reads per client IP; a signed-in client's reads are not counted."""

    scope = "read"

    def get_rate(self) -> str:
        return api_settings.DEFAULT_THROTTLE_RATES[self.scope]

    def get_cache_key(self, request, view) -> str | None:
        if (request.method not in SAFE_METHODS or request.user.is_authenticated
                or preservation_crawler(request)):
            return None
        return self.cache_format % {"scope": self.scope, "ident": client_ip(request)}


class FailureThrottle(SimpleRateThrottle):
    """Failures per client IP within the rate's window (DEFAULT_THROTTLE_RATES[scope]), or
    per `ident` when given (what was tried, e.g. one secret link, wherever from)."""

    def __init__(self, scope: str, ident: str | None = None) -> None:
        self.scope, self.ident = scope, ident
        super().__init__()

    def get_rate(self) -> str:
        return api_settings.DEFAULT_THROTTLE_RATES[self.scope]

    def get_cache_key(self, request, view=None) -> str:
        return self.cache_format % {"scope": self.scope,
                                    "ident": self.ident or client_ip(request)}

    def retry_after(self, request: HttpRequest) -> int | None:
        """Seconds until the next attempt is heard, or None when it may go ahead now."""
        if preservation_crawler(request):
            return None
        self.key = self.get_cache_key(request)
        self.history = self.cache.get(self.key, [])
        self.now = self.timer()
        while self.history and self.history[-1] <= self.now - self.duration:
            self.history.pop()
        if len(self.history) < self.num_requests:
            return None
        return max(1, math.ceil(self.wait()))

    def record(self, request: HttpRequest) -> None:
        if preservation_crawler(request):
            return
        self.retry_after(request)  # loads and prunes the history
        self.history.insert(0, self.now)
        self.cache.set(self.key, self.history, self.duration)


def client_ip(request: HttpRequest) -> str:
    """The address every rate limit counts, django-axes's lockout included: REMOTE_ADDR, or,
    when the connection comes from one of IBI_TRUSTED_PROXIES and NUM_PROXIES is set, the
    address those proxies saw (DRF's rule: X-Forwarded-For counted from the right). A client
    reaching the server directly cannot name its own address; only a valid IP is returned."""
    remote = request.META.get("REMOTE_ADDR", "")
    chosen = (BaseThrottle().get_ident(request)
              if api_settings.NUM_PROXIES
              and _trusted(remote, tuple(settings.IBI_TRUSTED_PROXIES))
              else remote)
    for text in (chosen, remote):
        try:
            return str(ipaddress.ip_address(text.strip()))
        except ValueError:
            continue
    return "0.0.0.0"


def preservation_crawler(request: HttpRequest) -> bool:
    """Whether the request is a read by one of IBI_LOCKSS_CRAWLERS (its address as every
    limit sees it)."""
    networks = tuple(settings.IBI_LOCKSS_CRAWLERS)
    return (bool(networks) and request.method in SAFE_METHODS
            and _trusted(client_ip(request), networks))


@functools.lru_cache(maxsize=1024)
def _trusted(address: str, networks: tuple[str, ...]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in ipaddress.ip_network(network, strict=False) for network in networks)
