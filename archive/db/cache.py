"""Django's cache on Redis, which never fails a request nor makes one wait long.

The cache is an optimisation and a place to count, never a condition of serving: with Redis
refused, stopped or hung, every operation falls back to a cache in this process's own memory.
Each operation on Redis waits at most CACHE_TIMEOUT (the socket timeouts of its connections);
once one fails, this process leaves Redis alone for RETRY_SECONDS and then tries it again (a
circuit breaker, runtime/breaker.py, opened by one failure). A
hung Redis so costs a thread one timeout per RETRY_SECONDS, not one per request.

What a Redis outage changes (README "What a failure does"): pages and search results are kept
per process instead of shared; the rate limits (web/throttling.py) count per process, so a
client may get up to one allowance per process; COUNTER's double-click and session keys
(usage/filters.py) are per process, so a reader moving between processes may count twice.
Nothing is lost that is kept anywhere but the cache.

Without Redis the cache is `LocalCache`, Django's per-process memory cache. Both check each key
as Django does (a warning for a key memcached could not take), with the pattern compiled once
instead of through Django's lazily compiled one, whose proxy cost about 18 000 instructions a
key: half of what a key's reading or writing costs in memory (bench/README.md, #40, 9).
"""
from __future__ import annotations

import logging
import re
import threading
import time

import redis.exceptions
from django.core.cache.backends.base import MEMCACHE_MAX_KEY_LENGTH
from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache

from ..runtime.breaker import Breaker

logger = logging.getLogger(__name__)

RETRY_SECONDS = 10
FAILURES = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)

_UNPORTABLE = re.compile(r"[\x00-\x20\x7f]")  # django.core.cache.backends.base's, compiled


class QuickKeyCheck:
    """A cache backend's key check: Django's warnings for the keys it would warn about, and
    for the others one length and one compiled pattern (in place of a lazy object's proxy).

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     LocalCache("doctest", {}).validate_key("accesses:click:0123abcd")
    ...     LocalCache("doctest", {}).validate_key("a key with spaces")
    >>> [str(warning.message).split(":")[0] for warning in caught]
    ['Cache key contains characters that will cause errors if used with memcached']
    """

    def validate_key(self, key: str) -> None:
        if len(key) > MEMCACHE_MAX_KEY_LENGTH or _UNPORTABLE.search(key):
            super().validate_key(key)  # type: ignore[misc]


class LocalCache(QuickKeyCheck, LocMemCache):
    """Django's per-process memory cache (CACHE_URL unset), its keys checked at less cost."""


# Per Redis location, for every thread's instance (Django makes one per thread): its breaker
# in this process (runtime/breaker.py: one failure opens it for RETRY_SECONDS).
_breakers: dict[str, Breaker] = {}
_CLOSED = Breaker()
_lock = threading.Lock()


def _guarded(name: str):
    on_redis = getattr(RedisCache, name)

    def operation(self, *args, **kwargs):
        if not self.reachable():
            return getattr(self.local, name)(*args, **kwargs)
        try:
            return on_redis(self, *args, **kwargs)
        except FAILURES as exc:
            self.failed(exc)
            return getattr(self.local, name)(*args, **kwargs)

    operation.__name__ = operation.__qualname__ = name
    operation.__doc__ = f"RedisCache.{name}, in this process's memory while Redis fails."
    return operation


class FailoverRedisCache(QuickKeyCheck, RedisCache):
    def __init__(self, server, params) -> None:
        super().__init__(server, params)
        self.location = server if isinstance(server, str) else ",".join(server)
        # LocMemCache keeps its entries per name and process: every thread shares them.
        self.local = LocalCache(f"failover:{self.location}", {
            key: value for key, value in params.items() if key != "OPTIONS"})

    def reachable(self) -> bool:
        # The breaker's `allows`, inlined: this runs before every cache operation.
        return _breakers.get(self.location, _CLOSED).open_until <= time.monotonic()

    def failed(self, exc: Exception) -> None:
        with _lock:
            opened = _breakers.setdefault(self.location, Breaker()).failed(
                time.monotonic(), seconds=RETRY_SECONDS)
        if opened:
            logger.warning("the cache (Redis) failed: %s: %s; this process caches and counts in "
                           "its own memory, and tries Redis again in %d s", type(exc).__name__,
                           exc, RETRY_SECONDS)

    add = _guarded("add")
    get = _guarded("get")
    set = _guarded("set")
    touch = _guarded("touch")
    delete = _guarded("delete")
    get_many = _guarded("get_many")
    has_key = _guarded("has_key")
    incr = _guarded("incr")
    set_many = _guarded("set_many")
    delete_many = _guarded("delete_many")
    clear = _guarded("clear")
