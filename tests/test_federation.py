"""A federation of many Archives (#29): the home Archive first, answers remembered, Archives
that are down skipped, a bounded fan-out, the federation seen by its administrator.

Other Archives are stand-ins on loopback (tests/servers.py): `FakeArchiveService` where a test
writes the answers and counts the requests.
"""
from __future__ import annotations

import pytest

from archive.deposit import services
from archive.models import RegisteredArchive
from archive.resolver import service as resolver_service

from .servers import FakeArchiveService

pytestmark = pytest.mark.django_db

HOST = "testserver"
HOME_SERVICE = "ibi.test/home/2024/01.02.03.04"
OTHER_SERVICE = "ibi.test/other/2024/01.02.03.05"
AT_HOME = "ibi.test/home/2025/06.07.08.09"  # minted by the home Archive's subsystem
MOVED = "ibi.test/home/2025/06.07.08.10"  # minted there, its Original held by the other


@pytest.fixture(autouse=True)
def resolver_settings(settings):
    settings.ARCHIVE_ADDRESS = HOST
    settings.IBI_RESOLVER_TIMEOUT = 1  # a second at least: a loaded machine is slow, not wrong
    settings.IBI_RESOLVER_DEADLINE = 5
    return services.ensure_archive_service()


def include(archive, service_ibi: str) -> RegisteredArchive:
    return RegisteredArchive.objects.create(
        archive_service_ibi=service_ibi, key_hash=resolver_service.hash_key("1234567890"),
        included=True, address=archive.address)


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
        include(home, HOME_SERVICE)
        include(other, OTHER_SERVICE)
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

    assert (response.status_code, response["Location"]) == (302, url(home, AT_HOME))
    assert url_requests(home, other) == [[AT_HOME], []]


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
