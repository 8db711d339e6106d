"""A federation of many Archives (#29): the home Archive first, answers remembered, Archives
that are down skipped, a bounded fan-out, the federation seen by its administrator.

Other Archives are stand-ins on loopback (tests/servers.py): `FakeArchiveService` where a test
writes the answers and counts the requests.
"""
from __future__ import annotations

import io
import math
import time
from collections import Counter
from urllib.parse import urlencode

import psutil
import pytest
from django.core.cache.backends.redis import RedisCache
from django.core.management import call_command

from archive.models import OwedAcknowledgment, RegisteredArchive
from archive.protocol.pairs import loads, to_dict
from archive.resolver import health, memory
from archive.resolver import service as resolver_service
from tests import factories as make

from .servers import CountingSilentArchive, FakeArchiveService, ScriptedArchives

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("resolver_settings")]

HOST = "testserver"
HOME_SERVICE = "ibi.test/home/2024/01.02.03.04"
OTHER_SERVICE = "ibi.test/other/2024/01.02.03.05"
AT_HOME = "ibi.test/home/2025/06.07.08.09"  # minted by the home Archive's subsystem
MOVED = "ibi.test/home/2025/06.07.08.10"  # minted there, its Original held by the other
REDIS = "redis://127.0.0.1:6379/12"  # this module's own database: i29f's

def answer(archive, ibi: str, state: str = "Original") -> str:
    return (f"archiveaddress {archive.address}\ncontenttype Data\nibi {{rep {ibi}}}\n"
            f"ibi.archiveservice {{rep {archive.service_ibi}}}\nstate {state}\n"
            f"timestamp 2024-01-02T03:04:05Z\nurl {url(archive, ibi)}\n"
            f"urlkey 1700000000-123456789012345678\n")


def url(archive, ibi: str) -> str:
    return f"http://{archive.address}/col/{ibi}/doc/paper.pdf"


def holding(archive, held: dict[str, str]):
    """The stand-in answers for the IBIs of `held` (IBI → state), nothing for the others."""
    def respond(pairs):
        state = held.get(pairs.get("parsedibiurl.ibi", ""))
        return 200, answer(archive, pairs["parsedibiurl.ibi"], state) if state else ""
    return respond


@pytest.fixture
def two():
    """The home Archive of AT_HOME and MOVED, and another one, both included."""
    with FakeArchiveService(HOME_SERVICE) as home, FakeArchiveService(OTHER_SERVICE) as other:
        make.include(home.address, HOME_SERVICE)
        make.include(other.address, OTHER_SERVICE)
        yield home, other


def url_requests(*archives) -> list[list[str]]:
    return [[pairs["parsedibiurl.ibi"] for pairs in archive.requests("urlRequest")]
            for archive in archives]


# -- 1. The home Archive first ----------------------------------------------------------------

def test_the_home_archive_holding_the_original_settles_it_with_one_request(client, two):
    home, other = two
    home.respond = holding(home, {AT_HOME: "Original"})
    other.respond = holding(other, {AT_HOME: "Copy"})

    response = client.get(f"/{AT_HOME}")
    again = client.get(f"/{AT_HOME}")

    assert (response.status_code, response["Location"]) == (302, url(home, AT_HOME))
    assert again["Location"] == url(home, AT_HOME)
    assert url_requests(home, other) == [[AT_HOME, AT_HOME], []]  # the home alone, each time


def test_a_home_archive_that_does_not_settle_it_is_followed_by_every_other(client, two):
    home, other = two
    other.respond = holding(other, {MOVED: "Original"})  # the home knows it no more

    response = client.get(f"/{MOVED}")

    assert (response.status_code, response["Location"]) == (302, url(other, MOVED))
    assert url_requests(home, other) == [[MOVED], [MOVED]]


def test_the_original_required_asks_every_archive_whatever_the_home_says(client, two):
    home, other = two
    home.respond = holding(home, {AT_HOME: "Original"})
    other.respond = holding(other, {AT_HOME: "Original"})

    response = client.get(f"/{AT_HOME}?ibiurl.requireditemstatus=Original")

    assert response.status_code == 409  # two Archives claim the Original: both suspects
    assert url_requests(home, other) == [[AT_HOME], [AT_HOME]]


# -- 2. Answers remembered, for a while --------------------------------------------------------

ELSEWHERE = "ibi.test/elsewhere/2020/05.06.07.08"  # minted by no included Archive
UNKNOWN = "ibi.test/elsewhere/2020/05.06.07.09"  # held by no Archive


@pytest.fixture
def later(monkeypatch):
    """Moves the memory's clock on (memory.py): time passes without waiting for it."""
    import time as real

    class Clock:
        offset = 0.0

        def time(self) -> float:
            return real.time() + self.offset

        def time_ns(self) -> int:
            return real.time_ns() + int(self.offset * 1e9)

    clock = Clock()
    monkeypatch.setattr(memory, "time", clock)

    def advance(seconds: float) -> None:
        clock.offset += seconds
    return advance


def test_where_an_item_was_found_is_asked_again_with_one_request_every_time(client, two):
    home, other = two
    other.respond = holding(other, {ELSEWHERE: "Original"})

    first = client.get(f"/{ELSEWHERE}")
    again = client.get(f"/{ELSEWHERE}")
    third = client.get(f"/{ELSEWHERE}")

    assert first["Location"] == again["Location"] == third["Location"] == url(other, ELSEWHERE)
    # Every resolution asks the Archive remembered, alone: where, never what (§5.1, #41).
    assert url_requests(home, other)[1] == [ELSEWHERE] * 3
    # The home was asked in the first round only (its request, cut short by the other's
    # answer, may be recorded after the resolution returned: at most that one).
    assert url_requests(home, other)[0] in ([], [ELSEWHERE])


def test_an_archive_answering_by_the_readers_address_answers_each_reader(
        reader, two, eager_tasks, django_capture_on_commit_callbacks):
    """§9.2: an Archive may choose the URL by clientinformation.ipaddress (the full text
    inside a campus, the record outside): no reader's answer is given to another, and each
    acknowledgment carries the urlkey of the answer it acknowledges."""
    home, other = two
    keys = iter(f"170000000{n}-12345678901234567{n}" for n in range(10))
    campus = f"http://{other.address}/col/{ELSEWHERE}/doc/fulltext.pdf"
    outside = f"http://{other.address}/col/{ELSEWHERE}/doc/record.html"

    def by_address(pairs):
        inside = pairs["clientinformation.ipaddress"].startswith("150.163.")
        return 200, (f"contenttype Data\nibi {{rep {ELSEWHERE}}}\nstate Original\n"
                     f"url {campus if inside else outside}\nurlkey {next(keys)}\n")
    other.respond = by_address

    with django_capture_on_commit_callbacks(execute=True):
        on_campus = reader.get(f"/{ELSEWHERE}", REMOTE_ADDR="150.163.2.175")
        at_home = reader.get(f"/{ELSEWHERE}", REMOTE_ADDR="200.1.2.3")
        on_campus_again = reader.get(f"/{ELSEWHERE}", REMOTE_ADDR="150.163.2.176")

    assert [on_campus["Location"], at_home["Location"], on_campus_again["Location"]] == [
        campus, outside, campus]
    assert [p["clientinformation.ipaddress"] for p in other.requests("urlRequest")] == [
        "150.163.2.175", "200.1.2.3", "150.163.2.176"]
    acknowledged = other.requests("acknowledgment")
    assert [(p["clientinformation.ipaddress"], p["url"], p["urlkey"]) for p in acknowledged] == [
        ("150.163.2.175", campus, "1700000000-123456789012345670"),
        ("200.1.2.3", outside, "1700000001-123456789012345671"),
        ("150.163.2.176", campus, "1700000002-123456789012345672")]


def test_an_item_deleted_after_a_resolution_is_a_410_at_once_and_not_acknowledged(
        reader, two, eager_tasks, django_capture_on_commit_callbacks):
    home, other = two
    other.respond = holding(other, {ELSEWHERE: "Original"})
    with django_capture_on_commit_callbacks(execute=True):
        assert reader.get(f"/{ELSEWHERE}")["Location"] == url(other, ELSEWHERE)
    assert len(other.requests("acknowledgment")) == 1

    other.respond = lambda pairs: (200, f"archiveaddress {other.address}\n"
                                        f"ibi {{rep {ELSEWHERE}}}\nstate Deleted\n"
                                        "timestamp 2026-11-28T10:00:00Z\n")
    with django_capture_on_commit_callbacks(execute=True):
        deleted = reader.get(f"/{ELSEWHERE}")

    assert deleted.status_code == 410
    assert len(other.requests("acknowledgment")) == 1  # §8.2: a removed IBI gets none


def test_a_new_edition_deposited_after_the_last_edition_was_resolved_is_found_at_once(
        client, two):
    home, other = two
    second = "ibi.test/elsewhere/2021/05.06.07.08"

    def editions(last: str):
        def respond(pairs):
            asked = pairs["parsedibiurl.ibi"]
            if asked == last:  # the last edition: its own URL
                return 200, answer(other, asked).replace(
                    "state Original", "state Original\nstate.lastedition Original").replace(
                    "url http", f"url.lastedition {url(other, asked)}\nurl http")
            return 200, (f"ibi {{rep {asked}}}\nibi.nextedition {{rep {second}}}\n"
                         if asked == ELSEWHERE else "")
        return respond

    other.respond = editions(ELSEWHERE)
    assert client.get(f"/{ELSEWHERE}!")["Location"] == url(other, ELSEWHERE)
    other.respond = editions(second)  # its Archive deposited a second edition since
    assert client.get(f"/{ELSEWHERE}!")["Location"] == url(other, second)


def test_an_ibi_nobody_holds_is_remembered_for_the_negative_ttl(client, two, later, settings):
    home, other = two

    assert client.get(f"/{UNKNOWN}").status_code == 404
    assert client.get(f"/{UNKNOWN}").status_code == 404
    assert url_requests(home, other) == [[UNKNOWN], [UNKNOWN]]  # the first time only
    later(settings.IBI_RESOLVER_NEGATIVE_TTL + 1)
    assert client.get(f"/{UNKNOWN}").status_code == 404
    assert url_requests(home, other) == [[UNKNOWN, UNKNOWN], [UNKNOWN, UNKNOWN]]


def test_an_archive_coming_to_hold_an_ibi_after_a_404_is_heard_after_the_negative_ttl(
        client, two, later, settings):
    home, other = two
    assert client.get(f"/{UNKNOWN}").status_code == 404
    other.respond = holding(other, {UNKNOWN: "Original"})  # deposited there since

    later(settings.IBI_RESOLVER_NEGATIVE_TTL - 1)
    assert client.get(f"/{UNKNOWN}").status_code == 404  # the one staleness documented
    later(2)
    assert client.get(f"/{UNKNOWN}")["Location"] == url(other, UNKNOWN)


def test_an_ibi_is_not_remembered_as_held_by_nobody_while_an_archive_is_silent(
        client, two, settings):
    """A silent Archive says nothing of the item: no 404, and nothing remembered (#41)."""
    home, other = two
    with CountingSilentArchive() as stalled:
        silent = make.include(stalled.address, "ibi.test/stalled/2024/01.02.03.06")

        response = client.get(f"/{UNKNOWN}")

        assert response.status_code == 503
        assert response["Retry-After"] == str(math.ceil(settings.IBI_RESOLVER_DEADLINE))
        assert ("2 Archives answered that they do not hold" in response.content.decode()
                and "1 Archive could not be asked" in response.content.decode())
        assert stalled.wait_for(1, timeout=5)
    # It comes back, holding the IBI: found at once.
    with FakeArchiveService("ibi.test/stalled/2024/01.02.03.06") as back:
        back.respond = holding(back, {UNKNOWN: "Original"})
        RegisteredArchive.objects.filter(pk=silent.pk).update(address=back.address)
        assert client.get(f"/{UNKNOWN}")["Location"] == url(back, UNKNOWN)


def test_an_ibi_dated_after_the_resolvers_clock_is_not_asked_of_any_archive(client, two):
    home, other = two
    future = "ibi.test/elsewhere/2099/05.06.07.08"

    assert client.get(f"/{future}").status_code == 404
    assert url_requests(home, other) == [[], []]


def test_the_original_required_ignores_the_memory_and_finds_a_rival(client, two):
    home, other = two
    home.respond = holding(home, {AT_HOME: "Original"})
    assert client.get(f"/{AT_HOME}")["Location"] == url(home, AT_HOME)
    other.respond = holding(other, {AT_HOME: "Original"})  # a rival claim since

    response = client.get(f"/{AT_HOME}?ibiurl.requireditemstatus=Original")

    assert response.status_code == 409
    assert url_requests(home, other) == [[AT_HOME, AT_HOME], [AT_HOME]]


def test_a_remembered_archive_now_at_another_address_is_not_asked_there(client, two):
    """An Archive included again at another address, which a process that keeps its memory
    apart (no CACHE_URL) did not hear of: the row read says so, and it is asked again there."""
    home, other = two
    other.respond = holding(other, {ELSEWHERE: "Original"})
    assert client.get(f"/{ELSEWHERE}")["Location"] == url(other, ELSEWHERE)
    with FakeArchiveService(OTHER_SERVICE) as moved:
        moved.respond = holding(moved, {ELSEWHERE: "Original"})
        RegisteredArchive.objects.filter(archive_service_ibi=OTHER_SERVICE).update(
            address=moved.address)  # as another process's inclusion leaves it
        assert client.get(f"/{ELSEWHERE}")["Location"] == url(moved, ELSEWHERE)
    assert url_requests(other) == [[ELSEWHERE]]


def test_an_inclusion_or_exclusion_clears_what_nobody_held(client, two):
    home, other = two
    home.respond = holding(home, {AT_HOME: "Original"})
    client.get(f"/{AT_HOME}")
    client.get(f"/{UNKNOWN}")
    asked_before = url_requests(home, other)

    assert send(client, home, "inclusionRequest")["status.archive"] == "included"
    client.get(f"/{AT_HOME}")  # asked, as every time
    client.get(f"/{UNKNOWN}")  # an Archive included may hold what nobody held
    assert url_requests(home, other) == [asked_before[0] + [AT_HOME, UNKNOWN],
                                         asked_before[1] + [UNKNOWN]]

    assert send(client, home, "exclusionRequest")["status.archive"] == "excluded"
    other.respond = holding(other, {AT_HOME: "Copy"})
    response = client.get(f"/{AT_HOME}")
    assert response["Location"] == url(other, AT_HOME)  # the home Archive is asked no more
    assert url_requests(home, other)[0] == asked_before[0] + [AT_HOME, UNKNOWN]


@pytest.mark.django_db(transaction=True)  # committed: nothing is kept inside a transaction
def test_no_redirect_of_another_archive_is_kept_in_the_process(client, two, monkeypatch):
    """Only this Archive's own answers are kept as redirects (views/persistent_urls.py):
    another Archive's answer is asked for at every resolution, and acknowledged with its own
    urlkey."""
    home, other = two
    other.respond = holding(other, {ELSEWHERE: "Original"})
    for _ in range(3):
        assert client.get(f"/{ELSEWHERE}")["Location"] == url(other, ELSEWHERE)
    assert url_requests(other) == [[ELSEWHERE] * 3]
    assert OwedAcknowledgment.objects.count() == 3


def send(client, archive, subject: str) -> dict[str, str]:
    """An inclusion or exclusion request of Table 7.2 from the stand-in."""
    pairs = {"servicesubject": subject, "archiveaddress": archive.address,
             "archiveserviceibi": archive.service_ibi, "archiveip": "127.0.0.1",
             "archiveprotocol": "HTTP", "archiveplatformversion": "2014:11.09.02.16.15",
             "archiveadmemailaddress": "banon@dpi.inpe.br", "registrationkey": "1234567890"}
    response = client.get("/J8LNKB5R7W/3FUQHC5", QUERY_STRING=urlencode(pairs))
    assert response.status_code == 200, response.content
    return to_dict(loads(response.content.decode("ascii")))


def test_two_app_servers_share_what_is_remembered(client, two, settings, monkeypatch):
    """Two processes of the resolver are two cache clients on the same Redis: what one asked
    the other knows."""
    settings.CACHES = {"default": {"BACKEND": "archive.db.cache.FailoverRedisCache",
                                   "LOCATION": REDIS}}
    from django.core.cache import cache

    cache.clear()
    home, other = two
    other.respond = holding(other, {ELSEWHERE: "Original"})
    client.get(f"/{ELSEWHERE}")
    client.get(f"/{UNKNOWN}")
    asked = url_requests(home, other)

    monkeypatch.setattr(memory, "cache", RedisCache(REDIS, {}))  # the other server's client
    assert client.get(f"/{ELSEWHERE}")["Location"] == url(other, ELSEWHERE)
    assert client.get(f"/{UNKNOWN}").status_code == 404
    # Where ELSEWHERE is: the other Archive asked alone (and the home not again); UNKNOWN:
    # nobody asked.
    assert url_requests(home, other) == [asked[0], [ELSEWHERE, UNKNOWN, ELSEWHERE]]
    cache.clear()


# -- 3. What is down is skipped ----------------------------------------------------------------

@pytest.fixture
def clock(monkeypatch):
    """Moves the breakers' clock on (health.py)."""
    import time as real

    class Clock:
        offset = 0.0

        def time(self) -> float:
            return real.time() + self.offset

    moved = Clock()
    monkeypatch.setattr(health, "time", moved)
    return moved


def test_a_breaker_trips_probes_and_closes(client, two, clock, settings):
    settings.IBI_RESOLVER_BREAKER_FAILURES = 2
    home, other = two
    failing = [True]
    answering = holding(other, {})
    other.respond = lambda pairs: (503, "busy") if failing[0] else answering(pairs)

    def asked_of_other_after(resolutions: int, status: int = 503) -> int:
        for _ in range(resolutions):
            assert client.get(f"/{UNKNOWN}").status_code == status
        return len(other.requests("urlRequest"))

    assert asked_of_other_after(2) == 2  # two failures in a row: the breaker opens
    assert asked_of_other_after(3) == 2  # left alone
    assert len(home.requests("urlRequest")) == 5  # the others are asked as before
    clock.offset += settings.IBI_RESOLVER_BREAKER_SECONDS + 1
    assert asked_of_other_after(3) == 3  # one probe, failed: left alone again
    clock.offset += settings.IBI_RESOLVER_BREAKER_SECONDS + 1
    failing[0] = False
    assert asked_of_other_after(1, 404) == 4  # the probe answered: closed
    assert health.of([RegisteredArchive.objects.get(archive_service_ibi=OTHER_SERVICE).pk]
                     ).popitem()[1].state(clock.time()) == "closed"


def test_an_open_breaker_is_a_503_with_the_time_of_its_probe_never_a_404(
        client, two, clock, settings):
    settings.IBI_RESOLVER_BREAKER_FAILURES = 1
    settings.IBI_RESOLVER_BREAKER_SECONDS = 60
    home, other = two
    other.respond = lambda pairs: (500, "")
    assert client.get(f"/{UNKNOWN}").status_code == 503  # the failure that opens it

    clock.offset += 20
    response = client.get(f"/{UNKNOWN}")

    assert response.status_code == 503
    assert 39 <= int(response["Retry-After"]) <= 41  # when the breaker probes it
    assert len(other.requests("urlRequest")) == 1  # left alone, not asked
    inspected = client.get(f"/inspect/{UNKNOWN}?format=json").json()
    assert (inspected["outcome"], inspected["status"]) == ("unreachable", 503)


def test_a_round_never_waits_for_an_archive_left_alone(client, two, settings):
    settings.IBI_RESOLVER_BREAKER_FAILURES = 1
    with CountingSilentArchive() as stalled:
        make.include(stalled.address, "ibi.test/stalled/2024/01.02.03.06")
        assert client.get(f"/{UNKNOWN}").status_code == 503  # one timeout: the breaker opens
        assert stalled.wait_for(1, timeout=5)

        start = time.monotonic()
        response = client.get(f"/{UNKNOWN}")

        assert response.status_code == 503
        assert time.monotonic() - start < settings.IBI_RESOLVER_TIMEOUT
        assert len(stalled.accepted) == 1
        assert "1 Archive could not be asked" in response.content.decode()


def test_a_readers_overlong_file_paths_never_reach_an_archive_nor_trip_its_breaker(
        client, two, settings):
    """The fourth attack run: five anonymous GETs of /<an IBI of H>/<1 100 × a> made H refuse
    them with 400, the breaker opened, and H's IBIs answered 404 (#41)."""
    settings.IBI_RESOLVER_BREAKER_FAILURES = 5
    home, other = two
    home.respond = holding(home, {AT_HOME: "Original"})

    for _ in range(5):
        response = client.get(f"/{AT_HOME}/{'a' * 1100}")
        assert response.status_code == 400
        assert "longer than 1024 characters" in response.content.decode()

    assert url_requests(home, other) == [[], []]
    assert client.get(f"/{AT_HOME}")["Location"] == url(home, AT_HOME)


def test_an_archive_refusing_a_request_with_a_4xx_is_up_not_failing(client, two, settings):
    settings.IBI_RESOLVER_BREAKER_FAILURES = 2
    home, other = two
    other.respond = lambda pairs: (400, "error {bad request}")

    for _ in range(3):
        client.get(f"/{UNKNOWN}")

    assert len(other.requests("urlRequest")) == 3  # asked every time: its breaker closed
    pk = RegisteredArchive.objects.get(archive_service_ibi=OTHER_SERVICE).pk
    assert health.of([pk])[pk].failures == 0


def test_an_archive_whose_answer_is_no_pair_list_is_failing(client, two, settings):
    settings.IBI_RESOLVER_BREAKER_FAILURES = 1
    home, other = two
    other.respond = lambda pairs: (200, "this {is not a pair list\n")

    assert client.get(f"/{UNKNOWN}").status_code == 503
    pk = RegisteredArchive.objects.get(archive_service_ibi=OTHER_SERVICE).pk
    assert health.of([pk])[pk].failures == 1


def test_the_original_required_probes_an_archive_left_alone_and_finds_its_rival_claim(
        client, two, settings):
    settings.IBI_RESOLVER_BREAKER_FAILURES = 1
    home, other = two
    home.respond = holding(home, {AT_HOME: "Original"})
    other.respond = lambda pairs: (503, "busy")
    assert client.get(f"/{UNKNOWN}").status_code == 503  # its breaker opens
    other.respond = holding(other, {AT_HOME: "Original"})  # and it claims the Original

    assert client.get(f"/{AT_HOME}")["Location"] == url(home, AT_HOME)  # left alone
    response = client.get(f"/{AT_HOME}?ibiurl.requireditemstatus=Original")

    assert response.status_code == 409  # probed, never skipped: the standard's alert
    assert url_requests(other) == [[UNKNOWN, AT_HOME]]


def test_a_hostile_claim_for_the_homes_ibi_is_never_taken_while_the_home_answers(
        client, two, settings, clock):
    settings.IBI_RESOLVER_BREAKER_FAILURES = 1
    home, hostile = two
    home.respond = holding(home, {AT_HOME: "Original"})
    hostile.respond = lambda pairs: (200, answer(hostile, pairs["parsedibiurl.ibi"]))

    for _ in range(3):
        assert client.get(f"/{AT_HOME}")["Location"] == url(home, AT_HOME)
    assert url_requests(hostile) == [[]]  # the home settles it: never asked

    # The home really is down: its breaker opens, and §8.2 takes the only Original claimed.
    home.respond = lambda pairs: (503, "down")
    assert client.get(f"/{AT_HOME}")["Location"] == url(hostile, AT_HOME)
    assert client.get(f"/{AT_HOME}")["Location"] == url(hostile, AT_HOME)
    # Back: the home is asked first again, before the Archive remembered.
    home.respond = holding(home, {AT_HOME: "Original"})
    clock.offset += settings.IBI_RESOLVER_BREAKER_SECONDS + 1
    assert client.get(f"/{AT_HOME}")["Location"] == url(home, AT_HOME)
    assert client.get(f"/{AT_HOME}")["Location"] == url(home, AT_HOME)
    assert len(url_requests(hostile)[0]) == 2


# -- 4. A bounded fan-out ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def many():
    """300 Archives on loopback, the first 30 dead (they accept and never answer)."""
    with ScriptedArchives(300, dead=set(range(30))) as archives:
        yield archives


def include_all(archives: ScriptedArchives) -> None:
    key_hash = resolver_service.hash_key("1234567890")  # once: PBKDF2 is slow on purpose
    RegisteredArchive.objects.bulk_create([RegisteredArchive(
        archive_service_ibi=archives.service_ibi(n), key_hash=key_hash, included=True,
        address=archives.address(n)) for n in range(archives.count)])


def test_300_archives_answer_right_with_fewer_places_than_archives(client, many, settings):
    settings.IBI_RESOLVER_MAX_CONNECTIONS = 20  # the dead ones fill them, for a second
    settings.IBI_RESOLVER_BREAKER_FAILURES = 1
    include_all(many)
    # Minted by no included Archive: every one is asked, until the holder answers.
    held = {f"ibi.test/nowhere/2025/01.01.00.{k:02d}": 299 - 37 * k for k in range(5)}
    many.held.update(held)

    for ibi, n in held.items():
        response = client.get(f"/{ibi}")
        assert (response.status_code, response.get("Location")) == (302, many.url(n, ibi)), ibi

    # Sockets to the Archives between rounds: one kept alive per Archive at most (those cut
    # short when the holder answered are closed).
    ports = set(many.ports)
    ours = Counter(c.raddr.port for c in psutil.Process().net_connections("tcp")
                   if c.raddr and c.raddr.port in ports)
    assert ours and max(ours.values()) == 1

    at_home = many.minted_by(150, 1)
    many.held[at_home] = 150
    assert client.get(f"/{at_home}")["Location"] == many.url(150, at_home)
    assert client.get(f"/{at_home}")["Location"] == many.url(150, at_home)
    assert [n for n, ibi in many.requests if ibi == at_home] == [150, 150]  # the home alone


def test_a_round_asks_the_slowest_expected_first_within_half_the_places_then_the_fastest(
        settings):
    settings.IBI_RESOLVER_TIMEOUT = 3
    settings.IBI_RESOLVER_MAX_CONNECTIONS = 4
    archives = [RegisteredArchive(pk=n, archive_service_ibi=f"ibi.test/a{n}/2024/01.01.00.00")
                for n in range(6)]
    known = {0: health.Health(times=[0.01]), 1: health.Health(failures=2),  # silent: 3 s
             2: health.Health(times=[2.0]), 3: health.Health(times=[0.5]),
             4: health.Health(), 5: health.Health(times=[0.002])}
    # 1, 2 (and not 3: two places of four) first; then the fastest, the unknown counting as fast.
    assert [a.pk for a in health.in_order(archives, known)] == [1, 2, 4, 5, 0, 3]


# -- 5. The federation seen ---------------------------------------------------------------------

def test_the_admin_and_manage_py_federation_show_every_archive_and_its_breaker(
        client, admin_client, two, settings):
    settings.IBI_RESOLVER_BREAKER_FAILURES = 1
    home, other = two
    other.respond = lambda pairs: (503, "busy")
    home.respond = holding(home, {AT_HOME: "Original"})
    client.get(f"/{UNKNOWN}")

    out = io.StringIO()
    call_command("federation", stdout=out)
    page = admin_client.get("/admin/archive/registeredarchive/federation/", secure=True)
    portuguese = admin_client.get("/admin/archive/registeredarchive/federation/", secure=True,
                                  headers={"accept-language": "pt-BR"})

    rows = {row.split("  ")[0]: row for row in out.getvalue().splitlines()[:-1]}
    assert rows[OTHER_SERVICE].startswith(f"{OTHER_SERVICE}  {other.address}  HTTP 503: busy (")
    assert rows[OTHER_SERVICE].endswith("median —  failures 1 in a row, 1 in all  "
                                        "open: left alone")
    assert rows[HOME_SERVICE].startswith(f"{HOME_SERVICE}  {home.address}  answered (")
    assert rows[HOME_SERVICE].endswith("failures 0 in a row, 0 in all  closed: asked")
    assert out.getvalue().splitlines()[-1] == "2 Archives switched on"
    text = page.content.decode()
    assert page.status_code == 200
    for archive in (home, other):
        assert archive.address in text and archive.service_ibi in text
    assert "open: left alone" in text and "closed: asked" in text and "HTTP 503: busy" in text
    assert "aberto" in portuguese.content.decode()
