"""RTC-11 to the letter: what the second audit (#25) found, each point as the audit met it.

The other Archive is tests/urlib.py's: a URLib Archive answering exactly as the standard's
Examples 9.2, 9.3, 10.1 and 10.2 do. The rule every point checks: on a persistent URL, in a
urlRequest, an inclusion or an acknowledgment, what RTC-11 defines comes first; an extension
may add an answer where the standard has none, never change one.
"""
from __future__ import annotations

import math
import threading

import pytest

from archive.deposit import services
from archive.models import RegisteredArchive
from archive.resolver import service as resolver_service
from tests import factories as make

from . import urlib
from .servers import FakeArchiveService

pytestmark = pytest.mark.django_db

HOST = "testserver"


@pytest.fixture(autouse=True)
def resolver_settings(settings):
    settings.ARCHIVE_ADDRESS = HOST
    settings.IBI_RESOLVER_TIMEOUT = 1  # a second at least: a loaded machine is slow, not wrong
    settings.IBI_RESOLVER_DEADLINE = 5
    return services.ensure_archive_service()


def include(archive: FakeArchiveService) -> RegisteredArchive:
    return RegisteredArchive.objects.create(
        archive_service_ibi=archive.service_ibi, included=True, address=archive.address,
        key_hash=resolver_service.hash_key("1234567890"))


@pytest.fixture
def examples():
    """The examples' Archive, included at this resolver."""
    with urlib.urlib_archive() as archive:
        include(archive)
        yield archive


def location(archive: FakeArchiveService, path: str) -> str:
    """An Example's URL on the scripted Archive's address."""
    return f"http://{archive.address}{path}"


# -- 5. A bare "+" against answers shaped like Examples 9.2 and 9.3 ----------------------------

@pytest.mark.parametrize("languages", ["fr", "de, es;q=0.5", "", "pt;q=0"])
def test_5_a_bare_plus_with_no_acceptable_language_gives_the_item_in_its_original_language(
        client, examples, languages):
    """Example 8.3: without the reader's language, "+" returns the item in its original
    language. Example 9.3's answer has no bare .translation pair; ibi.translation(en) is the
    item itself."""
    response = client.get(f"/{urlib.ITEM}+", headers={"accept-language": languages})

    assert response.status_code == 302
    assert response["Location"] == location(
        examples, f"/col/{urlib.ITEM_REP}/doc/CCSDS%20643.0-B-1.pdf")
    assert examples.requests("urlRequest")[0]["parsedibiurl.verblist"] == "GetTranslation"


def test_5_a_bare_plus_still_gives_the_readers_language_when_there_is_one(client, examples):
    response = client.get(f"/{urlib.ITEM}+", headers={"accept-language": "pt-BR, en;q=0.5"})

    assert response["Location"] == location(examples, f"/col/{urlib.PORTUGUESE}/doc/RTC-07.pdf")


# -- 8. Several spaces inside braces ------------------------------------------------------------

def test_8_an_archive_writing_several_spaces_inside_braces_is_read_not_silent(client):
    with FakeArchiveService(urlib.SERVICE) as archive:
        include(archive)

        def respond(pairs):
            text = urlib.answer(pairs, archive.address)
            return 200, text.replace("{rep ", "{rep   ").replace(" ibip ", "  ibip  ")
        archive.respond = respond
        response = client.get(f"/{urlib.FIRST}")

    assert response.status_code == 302
    assert response["Location"] == location(
        archive, f"/col/{urlib.FIRST_REP}/doc/CCSDS%20650.0-B-1.pdf")


# -- 7. "%3F" in a file path ---------------------------------------------------------------------

def test_7_a_question_mark_in_a_file_name_is_part_of_the_path_here(client):
    item = make.item(("x?y.txt", b"a file whose name asks"), title="Odd names")

    response = client.get(f"/{item.ibi}/x%3Fy.txt?ibiurl.requireditemstatus=Original")

    assert response.status_code == 302
    assert response["Location"] == f"http://{HOST}/col/{item.ibi}/doc/x%3Fy.txt"
    assert client.get(response["Location"]).status_code == 200


def test_7_a_question_mark_in_a_file_name_is_asked_of_the_other_archives_as_a_path(client):
    with FakeArchiveService(urlib.SERVICE) as archive:
        include(archive)

        def respond(pairs):
            if pairs.get("parsedibiurl.filepath") != "/x?y.txt":
                return 200, ""
            text = urlib.answer(pairs, archive.address)
            return 200, text.replace("CCSDS%20650.0-B-1.pdf", "x%3Fy.txt")
        archive.respond = respond
        response = client.get(f"/{urlib.FIRST}/x%3Fy.txt")

    assert response.status_code == 302
    assert response["Location"] == location(archive, f"/col/{urlib.FIRST_REP}/doc/x%3Fy.txt")


# -- 11. A long edition chain -------------------------------------------------------------------

def chain(archive: FakeArchiveService, length: int, *, stall_from: int | None = None,
          released: threading.Event | None = None) -> list[str]:
    """Editions 0 … length-1 of one item, each naming the next (Example 10.2's shape); the
    last answers with its URL. From `stall_from` on, the Archive answers only once `released`
    is set: an Archive slower than the resolver's deadline."""
    ibis = [f"ibi.test/chain/2020/01.01.00.{n:02d}" if n < 60 else
            f"ibi.test/chain/2020/01.01.{n // 60:02d}.{n % 60:02d}" for n in range(length)]

    def respond(pairs):
        asked = pairs.get("parsedibiurl.ibi", "")
        if asked not in ibis:
            return 200, ""
        position = ibis.index(asked)
        if stall_from is not None and position >= stall_from:
            released.wait(30)
        head = (f"archiveaddress {archive.address}\nibi {{rep {asked}}}\n"
                f"ibi.archiveservice {{rep {archive.service_ibi}}}\nibi.platformsoftware {{}}\n")
        if position + 1 < length:
            return 200, head + f"ibi.nextedition {{rep {ibis[position + 1]}}}\n"
        return 200, head + (f"contenttype.lastedition Data\nstate.lastedition Original\n"
                            f"url.lastedition http://{archive.address}/col/{asked}/doc/last.pdf\n"
                            "urlkey 1426286454-36108967764060357\n")
    archive.respond = respond
    return ibis


def test_11_the_chain_is_followed_as_long_as_it_advances(client):
    with FakeArchiveService(urlib.SERVICE) as archive:
        include(archive)
        ibis = chain(archive, 40)
        response = client.get(f"/{ibis[0]}!")

    assert response.status_code == 302
    assert response["Location"] == location(archive, f"/col/{ibis[-1]}/doc/last.pdf")
    assert len(archive.requests("urlRequest")) == 40


@pytest.mark.parametrize(("deadline", "says"), [
    (5, "within this resolver's time for one Archive (1 s)"),
    (1, "when this resolver's time for one resolution (1 s) was over")])
def test_11_a_chain_cut_short_by_the_resolvers_time_is_a_503_saying_so(client, settings,
                                                                       deadline, says):
    settings.IBI_RESOLVER_DEADLINE = deadline
    released = threading.Event()
    with FakeArchiveService(urlib.SERVICE) as archive:
        include(archive)
        ibis = chain(archive, 10, stall_from=3, released=released)
        response = client.get(f"/{ibis[0]}!", headers={"accept-language": "en"})
        released.set()

    assert response.status_code == 503 and response["Retry-After"] == str(math.ceil(deadline))
    page = response.content.decode()
    assert says in page and "Nothing says the item does not exist" in page


def test_11_a_chain_longer_than_the_resolver_follows_is_a_503_saying_so(client, monkeypatch):
    from archive.resolver import resolve

    monkeypatch.setattr(resolve, "MAX_HOPS", 5)
    with FakeArchiveService(urlib.SERVICE) as archive:
        include(archive)
        ibis = chain(archive, 10)
        response = client.get(f"/{ibis[0]}!", headers={"accept-language": "en"})

    assert response.status_code == 503
    assert "follows no longer chains" in response.content.decode()


# -- 3. A required Original held here is checked against rivals --------------------------------

def claims(archive: FakeArchiveService, ibi: str) -> None:
    """The stand-in says it holds the Original of ibi too (Example 10.1's shape)."""
    def respond(pairs):
        if pairs.get("parsedibiurl.ibi", "").lower() != ibi.lower():
            return 200, ""
        return 200, (f"archiveaddress {archive.address}\ncontenttype Data\nibi {{rep {ibi}}}\n"
                     f"ibi.archiveservice {{rep {archive.service_ibi}}}\n{urlib.PLATFORM}\n"
                     "state Original\ntimestamp 2009-07-21T14:43:31Z\n"
                     f"url http://{archive.address}/col/{ibi}/doc/rival.pdf\n"
                     "urlkey 1427244889-5349022633744855\n")
    archive.respond = respond


def test_3_a_required_original_held_here_is_asked_of_every_archive_and_two_claims_alert(client):
    item = make.item(("paper.pdf", b"the Original, here"), title="Claimed twice")
    with FakeArchiveService(urlib.SERVICE) as rival:
        include(rival)
        claims(rival, item.ibi)
        required = client.get(f"/{item.ibi}?ibiurl.requireditemstatus=Original",
                              headers={"accept-language": "en"})
        plain = client.get(f"/{item.ibi}")

    assert required.status_code == 409
    assert "suspicion" in required.content.decode() or "suspect" in required.content.decode()
    assert [pairs["parsedibiurl.ibi"] for pairs in rival.requests("urlRequest")] == [item.ibi]
    # Without the requirement this Archive's Original settles it: nobody else is asked.
    assert plain.status_code == 302
    assert plain["Location"] == f"http://{HOST}/col/{item.ibi}/doc/paper.pdf"


def test_3_a_required_original_held_here_alone_is_found_after_asking(client):
    item = make.item(("paper.pdf", b"the Original, here"), title="Claimed once")
    with urlib.urlib_archive() as examples:
        include(examples)
        response = client.get(f"/{item.ibip}?ibiurl.requireditemstatus=Original")

    assert response.status_code == 302
    assert response["Location"] == f"http://{HOST}/col/{item.ibi}/doc/paper.pdf"
    assert len(examples.requests("urlRequest")) == 1
