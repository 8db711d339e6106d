"""The cache is an optimisation (issue #30, 3): with its Redis refused, the site, the REST API
(anonymous and signed-in), the resolver and the resolver service answer as usual, and the
rate limits count in each process's own memory. A Redis that hangs is tests/test_faults.py's
(a Redis of its own, stopped with SIGSTOP)."""
from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from rest_framework.authtoken.models import Token

from archive.db import cache as failover
from tests import factories as make

from .servers import free_port

pytestmark = pytest.mark.django_db


@pytest.fixture
def redis_refused(settings):
    """CACHE_URL naming a port where nothing listens: every connection is refused."""
    settings.CACHES = {"default": {
        "BACKEND": "archive.db.cache.FailoverRedisCache",
        "LOCATION": f"redis://127.0.0.1:{free_port()}/0",
        "OPTIONS": {"socket_timeout": 1, "socket_connect_timeout": 1}}}
    failover._breakers.clear()
    yield
    failover._breakers.clear()


def test_every_channel_answers_with_redis_refused(client, redis_refused, caplog):
    item = make.item(("paper.pdf", b"%PDF paper"), title="Served without Redis")
    user = User.objects.create_user("reader")
    token = Token.objects.create(user=user).key
    for path in ("/", "/search?q=redis", f"/items/{item.ibi}", "/api/items/",
                 f"/api/items/{item.ibi}", "/api/items/?search=served"):
        assert client.get(path, secure=True).status_code == 200, path
    assert client.get("/api/items/", HTTP_AUTHORIZATION=f"Token {token}",
                      secure=True).status_code == 200
    assert client.get(f"/{item.ibi}").status_code == 302
    # The resolver service: a wrong key is refused, ten of them throttled, all in process.
    wrong = ("/J8LNKB5R7W/3FUQHC5?servicesubject=inclusionRequest&archiveaddress=127.0.0.1:9&"
             "archiveserviceibi=ibi.test/f/2024/01.02.03.04&archiveip=192.0.2.1&"
             "archiveprotocol=HTTP&archiveplatformversion=1&archiveadmemailaddress=a%40b.org&"
             "registrationkey=0987654321")
    statuses = [client.get(wrong).status_code for _ in range(12)]
    assert statuses[0] == 403 and statuses[-1] == 429
    assert any(message.startswith("the cache (Redis) failed: ConnectionError")
               for message in caplog.messages)


def test_the_rate_limits_count_in_the_process_while_redis_is_refused(client, redis_refused):
    statuses = [client.get("/api/items/", HTTP_AUTHORIZATION=f"Token {n:040x}",
                           REMOTE_ADDR="203.0.113.66", secure=True).status_code
                for n in range(30)]
    assert statuses[-1] == 429 and statuses.index(429) <= 10
    assert client.get("/api/items/", REMOTE_ADDR="198.51.100.7", secure=True).status_code == 200


def test_redis_is_asked_again_once_its_pause_is_over(redis_refused, monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(failover.time, "monotonic", lambda: clock[0])
    cache.set("k", "v")  # refused: kept in memory
    assert not cache.reachable() and cache.get("k") == "v"
    clock[0] += failover.RETRY_SECONDS
    assert cache.reachable()


@pytest.mark.parametrize("key", [
    "accesses:click:0123456789abcdef", "a key with spaces", "tab\tand\x7f", "é-ünïcode",
    "k" * 250, "k" * 251, "long and spaced " * 20])
def test_the_cheaper_key_check_warns_as_djangos_does(key):
    """(#40, 9) LocalCache and FailoverRedisCache check keys with a pattern compiled once:
    the same warnings, for the same keys, as Django's own check."""
    import warnings

    from django.core.cache.backends.locmem import LocMemCache

    def warned(backend) -> list[str]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            backend.validate_key(key)
        return [str(warning.message) for warning in caught]

    assert warned(failover.LocalCache("keys", {})) == warned(LocMemCache("keys", {}))


def test_without_a_cache_url_the_cache_is_this_process_memory(monkeypatch):
    from ibirepo.env import env_cache

    monkeypatch.delenv("CACHE_URL", raising=False)
    assert env_cache("CACHE_URL", None, 0.25) == {"BACKEND": "archive.db.cache.LocalCache"}


def test_a_days_secret_read_while_redis_fails_is_not_kept_by_the_process(redis_refused):
    """(#40, 9) Each process keeps the day's secret a minute (usage/filters.py), but not one
    its own memory made while Redis failed: once Redis is back, the next batch hashes with the
    secret every worker shares."""
    from datetime import date

    from django.core.cache import caches

    from archive.usage import filters

    filters._secrets.clear()
    store = caches["default"]
    assert isinstance(store, failover.FailoverRedisCache)
    filters.day_secret(date(2026, 11, 20), store)
    assert not store.reachable() and filters._secrets == {}
