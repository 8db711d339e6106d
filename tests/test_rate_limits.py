"""Brute force, written as the attacks: 30 wrong admin passwords, 30 wrong API tokens, 30
wrong registration keys. Each is cut off with 429 and Retry-After well before the 30th, and
a client that does it right, from another address, is not slowed by it."""
from __future__ import annotations

import subprocess
import sys
from urllib.parse import quote, urlencode

import pytest
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token

from archive.deposit import services
from archive.resolver.service import register_archive
from tests import factories as make

from .servers import ROOT, FakeArchiveService

pytestmark = pytest.mark.django_db

ATTACKER, READER = "203.0.113.66", "198.51.100.7"
SERVICE = "sid.inpe.br/mtc-m21/2012/06.05.15.34.39"
KEY = "1234567890"
REDIS = "redis://127.0.0.1:6379/14"


def login(client, password: str, ip: str, username: str = "boss"):
    return client.post("/admin/login/?next=/admin/", {"username": username,
                                                      "password": password},
                       REMOTE_ADDR=ip, secure=True)


def test_wrong_admin_passwords_lock_the_address_out(client, settings):
    User.objects.create_superuser("boss", "boss@example.org", "right-password")
    answers = [login(client, f"guess-{n}", ATTACKER) for n in range(30)]

    statuses = [r.status_code for r in answers]
    assert statuses[:settings.AXES_FAILURE_LIMIT - 1] == [200] * (settings.AXES_FAILURE_LIMIT - 1)
    assert set(statuses[settings.AXES_FAILURE_LIMIT:]) == {429}
    assert int(answers[-1]["Retry-After"]) == settings.AXES_COOLOFF_TIME.total_seconds()
    # Locked out means locked out: even the right password is not tried.
    assert login(client, "right-password", ATTACKER).status_code == 429
    # The boss, from their own address, logs in.
    assert login(client, "right-password", READER).status_code == 302


def test_a_forged_forwarded_for_header_does_not_reset_the_count(client, settings):
    User.objects.create_superuser("boss", "boss@example.org", "right-password")
    for n in range(settings.AXES_FAILURE_LIMIT):
        client.post("/admin/login/", {"username": "boss", "password": f"x{n}"},
                    REMOTE_ADDR=ATTACKER, HTTP_X_FORWARDED_FOR=f"10.9.8.{n}", secure=True)
    assert login(client, "x", ATTACKER).status_code == 429


def test_behind_a_proxy_the_lockout_counts_the_address_the_proxy_saw(client, settings):
    """Behind nginx (NUM_PROXIES=1) every request comes from 127.0.0.1: the admin's lockout
    counts the address nginx appended to X-Forwarded-For, never nginx's, nor what a client
    wrote into the header itself."""
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    User.objects.create_superuser("boss", "boss@example.org", "right-password")
    for n in range(settings.AXES_FAILURE_LIMIT + 2):
        client.post("/admin/login/", {"username": "boss", "password": f"x{n}"},
                    REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR=f"{READER}, {ATTACKER}",
                    secure=True)
    attacker = client.post("/admin/login/", {"username": "boss", "password": "right-password"},
                           REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR=ATTACKER, secure=True)
    assert attacker.status_code == 429
    boss = client.post("/admin/login/?next=/admin/", {"username": "boss",
                                                      "password": "right-password"},
                       REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR=READER, secure=True)
    assert boss.status_code == 302


def test_a_client_that_reaches_the_server_directly_cannot_name_its_address(client, settings):
    """NUM_PROXIES=1, but the connection is not from a trusted proxy (IBI_TRUSTED_PROXIES):
    X-Forwarded-For is the attacker's own writing and is not believed."""
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    user = User.objects.create_user("librarian")
    right = Token.objects.create(user=user).key
    statuses = [client.get("/api/items/", HTTP_AUTHORIZATION=f"Token {n:040x}",
                           REMOTE_ADDR=ATTACKER, HTTP_X_FORWARDED_FOR=f"192.0.2.{n}",
                           secure=True).status_code for n in range(30)]
    assert 429 in statuses
    assert client.get("/api/items/", HTTP_AUTHORIZATION=f"Token {right}", REMOTE_ADDR=READER,
                      HTTP_X_FORWARDED_FOR=ATTACKER, secure=True).status_code == 200
    # Nor may a trusted proxy's header smuggle something that is no address into the counts.
    User.objects.create_superuser("boss", "boss@example.org", "right-password")
    response = client.post("/admin/login/", {"username": "boss", "password": "wrong"},
                           REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="not-an-ip",
                           secure=True)
    assert response.status_code == 200
    from axes.models import AccessAttempt

    assert list(AccessAttempt.objects.values_list("ip_address", flat=True)) == ["127.0.0.1"]


def test_wrong_api_tokens_are_answered_429_before_the_30th(client):
    user = User.objects.create_user("librarian")
    right = Token.objects.create(user=user).key
    answers = [client.get("/api/items/", HTTP_AUTHORIZATION=f"Token {n:040x}",
                          REMOTE_ADDR=ATTACKER, secure=True) for n in range(30)]

    statuses = [r.status_code for r in answers]
    assert statuses.index(429) < 29 and set(statuses[statuses.index(429):]) == {429}
    assert set(statuses[:statuses.index(429)]) == {401}
    assert int(answers[-1]["Retry-After"]) > 0
    # Even the right token is not looked at from the attacker's address …
    assert client.get("/api/items/", HTTP_AUTHORIZATION=f"Token {right}",
                      REMOTE_ADDR=ATTACKER, secure=True).status_code == 429
    # … and works from any other.
    assert client.get("/api/items/", HTTP_AUTHORIZATION=f"Token {right}",
                      REMOTE_ADDR=READER, secure=True).status_code == 200


def test_wrong_tokens_from_an_address_leave_its_anonymous_reads_alone(client):
    """A campus behind one NAT: someone there sends wrong tokens; everyone else there still
    reads the API anonymously (issue #30, 9). Only requests with a token meet the count."""
    item = make.item(("paper.pdf", b"%PDF paper"), title="Read behind the NAT")
    statuses = [client.get("/api/items/", HTTP_AUTHORIZATION=f"Token {n:040x}",
                           REMOTE_ADDR=ATTACKER, secure=True).status_code for n in range(30)]
    assert statuses[-1] == 429
    for path in ("/api/items/", f"/api/items/{item.ibi}", f"/api/items/{item.ibi}/files",
                 "/api/schema/"):
        assert client.get(path, REMOTE_ADDR=ATTACKER, secure=True).status_code == 200, path
    assert client.get("/api/items/", HTTP_AUTHORIZATION=f"Token {0:040x}",
                      REMOTE_ADDR=ATTACKER, secure=True).status_code == 429


def test_anonymous_reads_have_their_own_limit_per_address(client, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "read": "3/minute"}}
    user = User.objects.create_user("reader")
    token = Token.objects.create(user=user).key
    statuses = [client.get("/api/items/", REMOTE_ADDR=ATTACKER, secure=True).status_code
                for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    late = client.get("/api/items/", REMOTE_ADDR=ATTACKER, secure=True)
    assert 0 < int(late["Retry-After"]) <= 60
    # A signed-in client there, and an anonymous one elsewhere, are not counted with them.
    assert client.get("/api/items/", HTTP_AUTHORIZATION=f"Token {token}", REMOTE_ADDR=ATTACKER,
                      secure=True).status_code == 200
    assert client.get("/api/items/", REMOTE_ADDR=READER, secure=True).status_code == 200


def test_api_writes_are_throttled_per_user(client, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "write": "3/hour"}}
    user = User.objects.create_user("librarian")
    user.groups.add(services.ensure_librarians_group())
    token = Token.objects.create(user=user).key
    statuses = [client.post("/api/items/", {}, HTTP_AUTHORIZATION=f"Token {token}",
                            secure=True).status_code for _ in range(5)]  # no title: a 400
    assert statuses == [400, 400, 400, 429, 429]
    assert client.get("/api/items/", HTTP_AUTHORIZATION=f"Token {token}",
                      secure=True).status_code == 200  # reads are not counted


def resolver_service(client, key: str, address: str, ip: str):
    pairs = {"servicesubject": "inclusionRequest", "archiveaddress": address,
             "archiveserviceibi": SERVICE, "archiveip": "150.163.34.239",
             "archiveprotocol": "HTTP", "archiveplatformversion": "2014:11.09.02.16.15",
             "archiveadmemailaddress": "banon@dpi.inpe.br", "registrationkey": key}
    return client.get("/J8LNKB5R7W/3FUQHC5", REMOTE_ADDR=ip,
                      QUERY_STRING=urlencode(pairs, quote_via=quote, safe="/:@"))


def test_wrong_registration_keys_are_answered_429_before_the_30th(client, settings):
    settings.IBI_RESOLVER_TIMEOUT = 1  # a second at least: a loaded machine is slow, not wrong
    register_archive(archive_service_ibi=SERVICE, key=KEY)
    with FakeArchiveService(SERVICE) as archive:
        answers = [resolver_service(client, f"{n:010d}", archive.address, ATTACKER)
                   for n in range(1000000000, 1000000030)]
        statuses = [r.status_code for r in answers]
        assert statuses.index(429) < 29 and set(statuses[statuses.index(429):]) == {429}
        assert set(statuses[:statuses.index(429)]) == {403}
        assert answers[-1].content.startswith(b"error {too many refused registration keys")
        assert int(answers[-1]["Retry-After"]) > 0
        # The registered Archive, from its own address, is included.
        right = resolver_service(client, KEY, archive.address, READER)
        assert right.status_code == 200 and b"status.archive included" in right.content


def test_the_resolver_service_answers_each_client_a_limited_number_of_times(client, settings):
    """Right keys cost a PBKDF2 too: past IBI_RESOLVER_SERVICE_RATE a client is answered 429
    before any key is looked at; another client is not slowed."""
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "resolver_service_requests": "5/hour"}}
    settings.IBI_RESOLVER_TIMEOUT = 1  # a second at least: a loaded machine is slow, not wrong
    register_archive(archive_service_ibi=SERVICE, key=KEY)
    with FakeArchiveService(SERVICE) as archive:
        statuses = [resolver_service(client, KEY, archive.address, ATTACKER).status_code
                    for _ in range(8)]
        assert statuses == [200] * 5 + [429] * 3
        last = resolver_service(client, KEY, archive.address, ATTACKER)
        assert last.content.startswith(b"error {too many requests from this client")
        assert int(last["Retry-After"]) > 0
        assert resolver_service(client, KEY, archive.address, READER).status_code == 200


COUNT_IN_ANOTHER_PROCESS = """
import django, sys
django.setup()
from django.test import RequestFactory
from archive.web.throttling import FailureThrottle
request = RequestFactory().get("/", REMOTE_ADDR="203.0.113.66")
for _ in range(int(sys.argv[1])):
    FailureThrottle("resolver_service").record(request)
"""


def test_two_processes_share_the_counts_in_redis(client, settings):
    """Against the real Redis of this machine (.ci/run starts it when it is down)."""
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                                   "LOCATION": REDIS}}
    from django.core.cache import cache

    cache.clear()
    limit = int(settings.IBI_RESOLVER_SERVICE_FAILURES.split("/")[0])
    env = {"DJANGO_SETTINGS_MODULE": "ibirepo.settings", "CACHE_URL": REDIS,
           "SECRET_KEY": "x" * 50, "PATH": "/usr/bin:/bin"}
    subprocess.run([sys.executable, "-c", COUNT_IN_ANOTHER_PROCESS, str(limit)], cwd=ROOT,
                   env=env, check=True, timeout=60)
    try:
        refused = resolver_service(client, KEY, "127.0.0.1:9", ATTACKER)
        assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
        assert resolver_service(client, KEY, "127.0.0.1:9", READER).status_code == 403
    finally:
        cache.clear()
