"""RTC-11 to the letter: what the second audit (#25) found, each point as the audit met it.

The other Archive is tests/urlib.py's: a URLib Archive answering exactly as the standard's
Examples 9.2, 9.3, 10.1 and 10.2 do. The rule every point checks: on a persistent URL, in a
urlRequest, an inclusion or an acknowledgment, what RTC-11 defines comes first; an extension
may add an answer where the standard has none, never change one.
"""
from __future__ import annotations

import json
import math
import re
import threading
from concurrent.futures import ThreadPoolExecutor

import bibtexparser
import httpx
import pytest
import rispy
from lxml import etree
from rdflib import Graph

from archive.deposit import services
from archive.models import Item, RegisteredArchive
from archive.protocol.pairs import Pair, loads
from archive.resolver import service as resolver_service
from tests import factories as make

from . import urlib, xml_schemas
from .servers import FakeArchiveService, LiveServers, SilentServer

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("resolver_settings")]

HOST = "testserver"

@pytest.fixture
def examples():
    """The examples' Archive, included at this resolver."""
    with urlib.urlib_archive() as archive:
        make.include(archive.address, archive.service_ibi)
        yield archive


# Table 8.9: what a urlRequest may carry, and nothing else.
URL_REQUEST_NAMES = {"servicesubject", "clientinformation.ipaddress", "parsedibiurl.filepath",
                     "parsedibiurl.ibi", "parsedibiurl.verblist"}


def strict(response) -> list[Pair]:
    """An answer of a service of RTC-11, read by the strict Table 6.2 reader."""
    assert response["Content-Type"] == "text/plain; charset=us-ascii"
    return loads(response.content.decode("ascii"), strict=True)


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
        make.include(archive.address, archive.service_ibi)

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
        make.include(archive.address, archive.service_ibi)

        def respond(pairs):
            if pairs.get("parsedibiurl.filepath") != "/x?y.txt":
                return 200, ""
            text = urlib.answer(pairs, archive.address)
            return 200, text.replace("CCSDS%20650.0-B-1.pdf", "x%3Fy.txt")
        archive.respond = respond
        response = client.get(f"/{urlib.FIRST}/x%3Fy.txt")

    assert response.status_code == 302
    assert response["Location"] == location(archive, f"/col/{urlib.FIRST_REP}/doc/x%3Fy.txt")


@pytest.mark.parametrize(("typed", "name"), [("a%2541.txt", "/a%41.txt"),
                                              ("a%252Fb.txt", "/a%2Fb.txt"),
                                              ("x%3Fy%25.txt", "/x?y%.txt")])
def test_7_every_escape_of_a_path_is_decoded_once(client, typed, name):
    """An escaped "%" is a "%" of the file's name: the path is decoded once, not twice."""
    with FakeArchiveService(urlib.SERVICE) as archive:
        make.include(archive.address, archive.service_ibi)
        client.get(f"/{urlib.FIRST}/{typed}")

    assert [p.get("parsedibiurl.filepath") for p in archive.requests("urlRequest")] == [name]


def test_7_a_live_resolver_reads_the_path_as_the_request_line_gave_it(federation):
    """Behind gunicorn (its RAW_URI), a file whose name holds "%41" and "?" is reached."""
    a = federation[0]
    item = make.deposited(a, a.librarian_token(), "Percent", ("a%41?.txt", b"odd\n"),
                          target_file="a%41?.txt")

    response = httpx.get(f"{a.url}/{item['ibi']}/a%2541%3F.txt", timeout=30)

    assert (response.status_code, response.headers["location"]) == (
        302, f"{a.url}/col/{item['ibi']}/doc/a%2541%3F.txt")
    assert httpx.get(response.headers["location"], timeout=30).content == b"odd\n"


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
        make.include(archive.address, archive.service_ibi)
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
        make.include(archive.address, archive.service_ibi)
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
        make.include(archive.address, archive.service_ibi)
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
        make.include(rival.address, rival.service_ibi)
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
        make.include(examples.address, examples.service_ibi)
        response = client.get(f"/{item.ibip}?ibiurl.requireditemstatus=Original")

    assert response.status_code == 302
    assert response["Location"] == f"http://{HOST}/col/{item.ibi}/doc/paper.pdf"
    assert len(examples.requests("urlRequest")) == 1


# -- 4. Inclusion without confirmation -----------------------------------------------------------

def test_4_the_right_key_includes_an_archive_whose_confirmation_never_arrives(client):
    """Example 7.2 from the examples' Archive, whose inclusionConfirmationRequest goes
    unanswered (a dynamic IP, §7.2): included all the same, and asked from then on."""
    resolver_service.register_archive(archive_service_ibi=urlib.SERVICE, key="1234567890")
    with urlib.urlib_archive() as examples:
        examples.confirms = False
        response = client.get("/J8LNKB5R7W/3FUQHC5", QUERY_STRING=(
            f"servicesubject=inclusionRequest&archiveaddress={examples.address}&"
            f"archiveserviceibi={urlib.SERVICE}&archiveip=150.163.34.239&archiveprotocol=HTTP&"
            "archiveplatformversion=2014:11.09.02.16.15&"
            "archiveadmemailaddress=banon@dpi.inpe.br&registrationkey=1234567890"))
        resolved = client.get(f"/{urlib.FIRST}")

    assert response.status_code == 200
    assert strict(response) == [("status.archive", "included"),
                                ("status.confirmation", "unsuccessful")]
    assert examples.requests("inclusionConfirmationRequest") == [
        {"servicesubject": "inclusionConfirmationRequest"}]
    assert resolved["Location"] == location(
        examples, f"/col/{urlib.FIRST_REP}/doc/CCSDS%20650.0-B-1.pdf")


@pytest.mark.parametrize("where", ["nobody answers", "no such host"])
def test_4_the_right_key_includes_an_archive_that_cannot_be_reached_now(client, where):
    """Example 7.2 from an Archive whose address nobody answers (a socket that never replies)
    or whose host name does not resolve (a dynamic IP gone): included, confirmation
    unsuccessful."""
    resolver_service.register_archive(archive_service_ibi=urlib.SERVICE, key="1234567890")
    with SilentServer() as silent:
        address = silent.address if where == "nobody answers" else "mtc-m16c.dynamic.invalid"
        response = client.get("/J8LNKB5R7W/3FUQHC5", QUERY_STRING=(
            f"servicesubject=inclusionRequest&archiveaddress={address}&"
            f"archiveserviceibi={urlib.SERVICE}&archiveip=150.163.34.239&archiveprotocol=HTTP&"
            "archiveplatformversion=2014:11.09.02.16.15&"
            "archiveadmemailaddress=banon@dpi.inpe.br&registrationkey=1234567890"))

    assert response.status_code == 200
    assert strict(response) == [("status.archive", "included"),
                                ("status.confirmation", "unsuccessful")]
    assert RegisteredArchive.objects.get(archive_service_ibi=urlib.SERVICE).included


# -- 9. text/plain whatever the Accept -----------------------------------------------------------

AXIOS = "application/json, text/plain, */*"


def test_9_example_6_1_asked_by_a_client_preferring_json_gets_text_plain(client,
                                                                       resolver_settings):
    item = make.item(("Relatório Final.pdf", b"a report"), title="Relatório Final")

    response = client.get(f"/{resolver_settings.ibi}", QUERY_STRING=(
        "servicesubject=urlRequest&clientinformation.ipaddress=150.163.2.175&"
        f"parsedibiurl.ibi={item.ibip}"), headers={"accept": AXIOS})
    confirmation = client.get(f"/{resolver_settings.ibi}",
                              QUERY_STRING="servicesubject=inclusionConfirmationRequest",
                              headers={"accept": "application/json"})

    assert response["Content-Type"] == confirmation["Content-Type"] == (
        "text/plain; charset=us-ascii")
    assert dict(strict(response))["url"] == (
        f"http://{HOST}/col/{item.ibi}/doc/Relat%C3%B3rio%20Final.pdf")
    assert strict(confirmation) == [("confirmation", "yes")]


# -- 10. Pairs without ibiurl. are the item's ------------------------------------------------

@pytest.mark.parametrize("query", ["info=json", "noredirect=0", "info=foo", "noredirect=",
                                   "ibiurl.requireditemstatus=Original&info=json"])
def test_10_pairs_without_ibiurl_go_to_the_item_never_to_this_archive(client, examples, query):
    """§8.1: a pair without the ibiurl. prefix is ignored by the resolution system and
    interpreted by the item: the redirect's Location carries it, and no Archive sees it."""
    response = client.get(f"/{urlib.FIRST}?{query}")

    assert response.status_code == 302
    url = location(examples, f"/col/{urlib.FIRST_REP}/doc/CCSDS%20650.0-B-1.pdf")
    kept = "&".join(p for p in query.split("&") if not p.startswith("ibiurl."))
    assert response["Location"] == f"{url}?{kept}"
    assert [set(pairs) for pairs in examples.requests("urlRequest")] == [
        URL_REQUEST_NAMES - {"parsedibiurl.filepath", "parsedibiurl.verblist"}]


# -- 12. Every resolution acknowledged --------------------------------------------------------

@pytest.mark.parametrize("agent", ["Mozilla/5.0 (compatible; Googlebot/2.1)", "curl/8.5.0", ""])
def test_12_the_examples_archive_is_acknowledged_whoever_the_reader(
        client, examples, eager_tasks, django_capture_on_commit_callbacks, agent):
    with django_capture_on_commit_callbacks(execute=True):
        response = client.get(f"/{urlib.FIRST}", HTTP_USER_AGENT=agent,
                              REMOTE_ADDR="172.16.44.200")

    assert response.status_code == 302
    # Example 10.1's acknowledgment (Table 8.11), to the Archive that gave the URL.
    assert examples.requests("acknowledgment") == [{
        "servicesubject": "acknowledgment", "clientinformation.ipaddress": "172.16.44.200",
        "contenttype": "Data", "ibi": f"rep {urlib.FIRST_REP} ibip {urlib.FIRST}",
        "state": "Original", "url": response["Location"],
        "url.persistent": f"http://{HOST}/{urlib.FIRST}",
        "urlkey": "1427244889-5349022633744855"}]


# -- 13. Every acknowledgment answered -------------------------------------------------------

@pytest.mark.parametrize("persistent", [
    "http://urlib.net:80/8JMKD3MGP8W/35MMLL8",  # Example 10.1's
    "http://urlib.net/not%20a%20persistent%20URL", "", "http://urlib.net/8JMKD3MGP8W/35MMLL8!!",
    "http://urlib.net/8JMKD3MGP8W/35MMLL8%3Fibiurl.verblist%3DGetNothing"])
def test_13_an_acknowledgment_is_answered_whatever_its_persistent_url(client, resolver_settings,
                                                                     persistent):
    """Algorithm 1, lines 19-20, for Example 10.1's acknowledgment with any url.persistent."""
    response = client.get(f"/{resolver_settings.ibi}", QUERY_STRING=(
        "clientinformation.ipaddress=172.16.44.200%20150.163.68.1&contenttype=Data&"
        "ibi=rep%20sid.inpe.br/mtc-m18@80/2009/07.21.14.43%20ibip%208JMKD3MGP8W/35MMLL8&"
        "servicesubject=acknowledgment&state=Original&url=http://mtc-m16c.sid.inpe.br/col/"
        "sid.inpe.br/mtc-m18@80/2009/07.21.14.43/doc/CCSDS%20650.0-B-1.pdf&"
        f"url.persistent={persistent}&urlkey=1427244889-5349022633744855"))

    assert response.status_code == 200
    assert strict(response) == [("notice", ["acknowledgment", "received"])]


# -- 14. The inspection's reason agrees with what it lists and with the real request ----------

def test_14_an_original_held_here_with_no_rival_asked_is_not_called_the_only_claim(client):
    item = make.item(("paper.pdf", b"the Original, here"), title="Alone")

    alone = client.get(f"/inspect/{item.ibi}?ibiurl.requireditemstatus=Original&format=json",
                       headers={"accept-language": "en"}).json()
    with urlib.urlib_archive() as examples:
        make.include(examples.address, examples.service_ibi)
        asked = client.get(f"/inspect/{item.ibi}?ibiurl.requireditemstatus=Original&"
                           "format=json", headers={"accept-language": "en"}).json()

    assert [r["archives"] for r in alone["rounds"]][0][1:] == []  # nobody else was asked
    assert alone["reason"] == ("this Archive holds the Original, and no other Archive is "
                               "included at this resolver to claim it")
    assert [a["archive"] for a in asked["rounds"][0]["archives"]][1:] == [urlib.SERVICE]
    assert asked["reason"] == "the only Archive claiming the Original (1 other asked)"


def test_14_the_inspection_says_what_the_persistent_url_answers(client, examples):
    here = make.item(("paper.pdf", b"an item here"), title="Here")
    gone = make.item(("gone.pdf", b"withdrawn"), title="Gone")
    services.item_delete(item=gone, reason="withdrawn")
    paths = [f"/{urlib.FIRST}", f"/{urlib.FIRST}!", f"/{urlib.ITEM}+(de)", f"/{urlib.ITEM}+",
             "/ibi.test/nobody/2020/01.01.00.00", f"/{gone.ibi}", f"/{here.ibi}/nofile.pdf",
             f"/{urlib.ITEM}:(oai_dc)", f"/{urlib.FIRST}?ibiurl.verblist=GetFileList"]
    for path in paths:
        real = client.get(path, headers={"accept-language": "en"})
        shown = client.get(f"/inspect{path}", {"format": "json"},
                           headers={"accept-language": "en"}).json()
        assert shown["status"] == real.status_code, path
        assert (shown["outcome"] == "found") == (real.status_code == 302), path
        assert shown["url"] == (real["Location"] if real.status_code == 302 else None), path
        if real.status_code != 302:
            assert not shown["reason"].startswith(("the first answer", "this Archive holds the "
                                                   "item", "the only Archive")), path


# -- 2. Memento never shadows "!" -------------------------------------------------------------

FUTURE = "Thu, 01 Jan 2099 00:00:00 GMT"


def copy_of_first_edition(*, refreshed: bool = True) -> Item:
    """Example 10.2's first edition held here as a Copy: its Original (at the examples'
    Archive) has a next edition this Archive does not hold. Not `refreshed`: copied before
    the second edition came, its relations say nothing of it."""
    copy = make.item(("CCSDS 650.0-B-1.pdf", b"the first edition, copied"), title="CCSDS 650")
    Item.objects.filter(pk=copy.pk).update(ibi=urlib.FIRST_REP, ibip=urlib.FIRST,
                                           edition_family=urlib.FIRST_REP)
    copy.refresh_from_db()
    return make.as_copy(copy, source="http://mtc-m16c.sid.inpe.br",
                        relations={".nextedition": urlib.SECOND} if refreshed else {})


@pytest.mark.parametrize("refreshed", [True, False])
@pytest.mark.parametrize("query", ["", "?ibiurl.requireditemstatus=Original"])
def test_2_accept_datetime_never_turns_the_last_edition_into_a_stale_copy(client, examples,
                                                                          query, refreshed):
    """A Copy copied before the second edition came names itself its last edition: the
    Original's Archive's ibi.nextedition goes first, with or without Accept-Datetime."""
    copy_of_first_edition(refreshed=refreshed)
    last = location(examples, f"/col/{urlib.SECOND}/doc/CCSDS%20650.0-B-2.pdf")

    plain = client.get(f"/{urlib.FIRST}!{query}")
    dated = client.get(f"/{urlib.FIRST}!{query}", headers={"accept-datetime": FUTURE})
    past = client.get(f"/{urlib.FIRST}!{query}",
                      headers={"accept-datetime": "Sun, 01 Jan 1995 00:00:00 GMT"})

    assert plain.status_code == dated.status_code == past.status_code == 302
    assert plain["Location"] == dated["Location"] == past["Location"] == last
    assert "Memento-Datetime" not in dated and "Memento-Datetime" not in past


def test_2_accept_datetime_changes_no_answer_of_a_chain_held_whole_here(client):
    """Its persistent URLs are no TimeGate (resolver/memento.py): ``!`` with a query answers
    with Accept-Datetime exactly what it answers without."""
    first = make.item(("paper.pdf", b"first"), title="Editions")
    make.item(("paper.pdf", b"second"), title="Editions", previous_edition=first)
    path = f"/{first.ibi}!?ibiurl.requireditemstatus=Original&page=2"

    plain = client.get(path)
    dated = client.get(path, headers={"accept-datetime": FUTURE})

    assert plain.status_code == dated.status_code == 302
    assert plain["Location"] == dated["Location"]
    assert dated["Location"].endswith("/doc/paper.pdf?page=2")
    assert "Memento-Datetime" not in dated


# -- 1. Relations kept after a migration: three real Archives on loopback ----------------------

def commands(server, *calls: tuple[str, ...]) -> str:
    """Several `manage.py` commands in one process of the server's (a start of Django each
    costs seconds on a loaded machine): what they print."""
    code = "from django.core.management import call_command\n" + "".join(
        f"call_command(*{list(call)!r})\n" for call in calls)
    return server.shell(code)


@pytest.fixture(scope="module")
def federation(tmp_path_factory):
    """A, B and C, each an Archive and a resolver including the other two."""
    with LiveServers(tmp_path_factory.mktemp("rtc11-federation")) as servers, \
            ThreadPoolExecutor(3) as pool:
        # Started (and stopped) at once: each migrates its own database first. Each has its
        # own identification subsystem, so no two ever mint one IBI.
        archives = list(pool.map(lambda n: servers.start("abc"[n], IBI_IP=f"192.0.2.{n + 1}"),
                                 range(3)))
        for resolver in archives:
            commands(resolver, *[("registerarchive", other.archive_service_ibi(), "1234567890",
                                  "--email", f"admin@{other.name}.ibi.test")
                                 for other in archives if other is not resolver])
        for archive in archives:
            said = commands(archive, *[("switchon", "--resolver", resolver.url, "--key",
                                        "1234567890") for resolver in archives
                                       if resolver is not archive])
            assert said.count("status.archive included") == 2, said
        yield archives
        list(pool.map(lambda server: server.stop(), archives))


def test_1_relations_survive_a_migration_and_a_refresh(federation):
    """B holds e1 and e2 (e2's previous edition is e1), and x with its Portuguese translation;
    C migrates e2 and the translation from B; B refreshes its Copies. Every resolver still
    finds the last edition and the translation, at C where the Originals went."""
    a, b, c = federation
    token = b.librarian_token()
    e1 = make.deposited(b, token, "e1", ("e1.pdf", b"%PDF-1.4 e1\n"), target_file="e1.pdf")
    e2 = make.deposited(b, token, "e2", ("e2.pdf", b"%PDF-1.4 e2\n"), target_file="e2.pdf",
                        previous_edition=e1["ibi"])
    x = make.deposited(b, token, "x", ("x.pdf", b"%PDF-1.4 x\n"), target_file="x.pdf",
                       language="en")
    pt = make.deposited(b, token, "x em portugues", ("x-pt.pdf", b"%PDF-1.4 x pt\n"),
                        target_file="x-pt.pdf", language="pt", translation_of=x["ibi"])
    commands(c, *[("migrateitem", moved["ibi"], "--from", b.url, "--token", token)
                  for moved in (e2, pt)])
    refreshed = b.manage("copyitem", "--refresh").stdout

    assert f"{e2['ibi']}: " in refreshed and f"{pt['ibi']}: " in refreshed
    records = httpx.Client(timeout=30)
    copy_e2 = records.get(f"{b.url}/api/items/{e2['ibi']}").json()
    assert (copy_e2["state"], copy_e2["previous_edition"]) == ("Copy", e1["ibi"])
    assert records.get(f"{b.url}/api/items/{e1['ibi']}").json()["next_edition"] == e2["ibi"]
    assert records.get(f"{c.url}/api/items/{e2['ibi']}").json()["previous_edition"] == e1["ibi"]
    assert records.get(f"{b.url}/api/items/{pt['ibi']}").json()["translation_of"] == x["ibi"]
    assert records.get(f"{c.url}/api/items/{pt['ibi']}").json()["translation_of"] == x["ibi"]
    # B's e1 still names its next edition (Table 9.3, ibi.nextedition).
    said = httpx.get(f"{b.url}/{b.archive_service_ibi()}", timeout=30, params={
        "servicesubject": "urlRequest", "clientinformation.ipaddress": "192.0.2.9",
        "parsedibiurl.ibi": e1["ibi"], "parsedibiurl.verblist": "GetLastEdition"})
    assert dict(loads(said.text, strict=True))["ibi.nextedition"][:2] == ["rep", e2["ibi"]]

    for resolver in (a, b, c):
        asking = httpx.Client(base_url=resolver.url, follow_redirects=False, timeout=30)
        for path, url in ((f"/{e1['ibi']}!", f"{c.url}/col/{e2['ibi']}/doc/e2.pdf"),
                          (f"/{e1['ibi']}!?ibiurl.requireditemstatus=Original",
                           f"{c.url}/col/{e2['ibi']}/doc/e2.pdf"),
                          (f"/{x['ibi']}+(pt)", f"{c.url}/col/{pt['ibi']}/doc/x-pt.pdf"),
                          (f"/{pt['ibi']}+(en)", f"{b.url}/col/{x['ibi']}/doc/x.pdf")):
            response = asking.get(path)
            assert (response.status_code, response.headers.get("location")) == (302, url), (
                resolver.name, path)


def include_at(resolver, archive: FakeArchiveService, subject: str = "inclusionRequest") -> str:
    """The scripted Archive's inclusion (or exclusion) request of Table 7.2 at a live
    resolver: the resolver's answer."""
    return httpx.get(f"{resolver.url}/{resolver_service.SERVICE_IBI}", timeout=30, params={
        "servicesubject": subject, "archiveaddress": archive.address,
        "archiveserviceibi": archive.service_ibi, "archiveip": "127.0.0.1",
        "archiveprotocol": "HTTP", "archiveplatformversion": "2014:11.09.02.16.15",
        "archiveadmemailaddress": "banon@dpi.inpe.br", "registrationkey": "1234567890"}).text


def test_12_every_resolution_at_a_live_resolver_is_acknowledged_with_its_answers_urlkey(
        federation):
    """A real resolver (gunicorn), which remembers where items are (never what their Archives
    said, #41): every resolution of Example 10.1's IBI, a robot's too, asks the examples'
    Archive and sends it its own acknowledgment (§8.2 step 5), with the urlkey its answer
    gave."""
    a = federation[0]
    with urlib.urlib_archive() as examples:
        commands(a, ("registerarchive", examples.service_ibi, "1234567890", "--replace"))
        assert "status.archive included" in include_at(a, examples)
        try:
            agents = ["Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
                      "Mozilla/5.0 (compatible; Googlebot/2.1)", "curl/8.5.0", "", "curl/8.5.0"]
            for agent in agents:
                response = httpx.get(f"{a.url}/{urlib.FIRST}", headers={"User-Agent": agent},
                                     timeout=30)
                assert (response.status_code, response.headers["location"]) == (
                    302, location(examples, "/col/sid.inpe.br/mtc-m18@80/2009/07.21.14.43/doc/"
                                            "CCSDS%20650.0-B-1.pdf"))
            acknowledged = make.wait_until(
                lambda: (found := examples.requests("acknowledgment")) and
                len(found) >= len(agents) and found, what="every acknowledgment sent")
        finally:
            include_at(a, examples, "exclusionRequest")
    asked = len(examples.requests("urlRequest"))
    assert len(acknowledged) == asked == len(agents)  # asked every time: where, not what
    assert {(p["urlkey"], p["url.persistent"], p["state"]) for p in acknowledged} == {
        ("1427244889-5349022633744855", f"{a.url}/{urlib.FIRST}", "Original")}


def test_9_10_and_13_hold_at_a_live_archive_and_resolver(federation):
    """Behind gunicorn, as the audit asked them: the examples' Archive included at A. A
    urlRequest preferring JSON gets text/plain (9); a persistent URL's pairs without ibiurl.
    go to the item, never to an Archive (10); an acknowledgment whatever its url.persistent
    gets its notice (13). Every answer read by the strict Table 6.2 reader."""
    a = federation[0]
    with urlib.urlib_archive() as examples:
        commands(a, ("registerarchive", examples.service_ibi, "1234567890", "--replace"))
        assert "status.archive included" in include_at(a, examples)
        try:
            asked = httpx.get(f"{a.url}/{a.archive_service_ibi()}", headers={"Accept": AXIOS},
                              timeout=30, params={"servicesubject": "urlRequest",
                                                  "clientinformation.ipaddress": "192.0.2.9",
                                                  "parsedibiurl.ibi": urlib.FIRST})
            resolved = httpx.get(f"{a.url}/{urlib.FIRST}?info=json&noredirect=0", timeout=30)
            noticed = httpx.get(f"{a.url}/{a.archive_service_ibi()}", timeout=30, params={
                "servicesubject": "acknowledgment", "clientinformation.ipaddress": "192.0.2.9",
                "contenttype": "Data", "state": "Original", "url": "http://x/col/y/doc/z.pdf",
                "url.persistent": "not a persistent URL", "urlkey": "1427244889-1"})
        finally:
            include_at(a, examples, "exclusionRequest")

    assert (asked.status_code, asked.headers["content-type"]) == (
        200, "text/plain; charset=us-ascii")
    assert loads(asked.text, strict=True) == []  # an IBI A does not hold: the empty answer
    assert resolved.status_code == 302 and resolved.headers["location"] == location(
        examples, f"/col/{urlib.FIRST_REP}/doc/CCSDS%20650.0-B-1.pdf?info=json&noredirect=0")
    assert all("info" not in p and "noredirect" not in p
               for p in examples.requests("urlRequest"))
    assert loads(noticed.text, strict=True) == [("notice", ["acknowledgment", "received"])]


# -- 6. Content negotiation against a standard Archive ---------------------------------------

# Table 8.4, as a urlRequest writes the list (§8.2: the verbs separated by spaces).
_VERB = (r"(GetTranslation(\([a-z]{2}(-[A-Z]{2})?\))?|GetLastEdition|"
         r"GetMetadata(\(oai_dc\))?|GetFileList)")
TABLE_8_4 = re.compile(rf"{_VERB}( {_VERB})*")


def only_the_standard_on_the_wire(archive: FakeArchiveService) -> list[str]:
    """Every urlRequest the Archive got holds Table 8.9's names and Table 8.4's verbs only:
    its verb lists, in order."""
    lists = []
    for pairs in archive.requests("urlRequest"):
        assert set(pairs) <= URL_REQUEST_NAMES, pairs
        if "parsedibiurl.verblist" in pairs:
            assert TABLE_8_4.fullmatch(pairs["parsedibiurl.verblist"]), pairs
            lists.append(pairs["parsedibiurl.verblist"])
    return lists


RECORD_OF_ITEM = f"/col/{urlib.METADATA}/doc/metadata.cgi?choice=oai_dc"


def test_6_bibtex_is_rendered_here_from_the_oai_dc_record_of_a_standard_archive(client,
                                                                               examples):
    response = client.get(f"/{urlib.ITEM}", headers={"accept": "application/x-bibtex"})

    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/x-bibtex")
    (entry,) = bibtexparser.parse_string(response.content.decode()).entries
    assert entry["title"] == "Space Link Identifiers" and entry["year"] == "2009"
    assert entry["url"] == f"http://{HOST}/{urlib.ITEM_REP}"
    assert only_the_standard_on_the_wire(examples) == ["GetMetadata(oai_dc)"]
    assert examples.fetched.count(RECORD_OF_ITEM) == 1
    # Example 9.2's Archive gave the URL: it is acknowledged as for a redirect (Table 8.11).


@pytest.mark.parametrize("media_type", [
    "application/x-research-info-systems", "application/vnd.citationstyles.csl+json",
    "application/ld+json", "application/vnd.datacite.datacite+xml",
    "text/x-bibliography; style=apa"])
def test_6_every_format_is_rendered_from_the_oai_dc_record_and_read_by_its_client(
        client, examples, media_type):
    response = client.get(f"/{urlib.ITEM}", headers={"accept": media_type})

    assert response.status_code == 200, response.content[:300]
    body = response.content.decode()
    if media_type.endswith("research-info-systems"):
        (record,) = rispy.loads(body)
        assert record["title"] == "Space Link Identifiers"
        assert record["urls"] == [f"http://{HOST}/{urlib.ITEM_REP}"]
    elif media_type.endswith("csl+json"):
        item = json.loads(body)  # by its media type, one object, as doi.org answers
        assert item["title"] == "Space Link Identifiers"
        assert item["author"][1] == {"family": "Banon", "given": "Gerald Jean Francis"}
    elif media_type == "application/ld+json":
        graph = Graph().parse(data=body, format="json-ld")
        assert any("Space Link Identifiers" in str(o) for o in graph.objects())
    elif media_type.endswith("datacite+xml"):
        xml_schemas.assert_valid(xml_schemas.datacite(), etree.fromstring(response.content))
    else:
        assert "Space Link Identifiers" in body and "(2009)" in body
    assert only_the_standard_on_the_wire(examples) == ["GetMetadata(oai_dc)"]


def test_6_the_last_editions_record_after_example_10_2s_rounds(client, examples):
    response = client.get(f"/{urlib.FIRST}!", headers={"accept": "application/x-bibtex"})

    assert response.status_code == 200
    (entry,) = bibtexparser.parse_string(response.content.decode()).entries
    assert entry["title"] == "Reference Model for an Open Archival Information System (OAIS)"
    assert only_the_standard_on_the_wire(examples) == [
        "GetLastEdition GetMetadata(oai_dc)"] * 2  # Example 10.2, to the letter


@pytest.mark.parametrize("ibi", [urlib.FIRST, urlib.PORTUGUESE])
def test_6_without_an_oai_dc_record_the_url_does_what_it_does_without_accept(client, examples,
                                                                            ibi):
    plain = client.get(f"/{ibi}")
    negotiated = client.get(f"/{ibi}", headers={"accept": "application/x-bibtex"})

    assert plain.status_code == negotiated.status_code == 302
    assert negotiated["Location"] == plain["Location"]
    only_the_standard_on_the_wire(examples)


def test_6_a_metadata_modifier_typed_in_the_url_is_rendered_from_oai_dc_too(client, examples):
    response = client.get(f"/{urlib.ITEM}:(ris)")

    assert response.status_code == 200
    assert rispy.loads(response.content.decode())[0]["title"] == "Space Link Identifiers"
    assert only_the_standard_on_the_wire(examples) == ["GetMetadata(oai_dc)"]


def test_6_this_archive_announces_its_formats_only_where_metadata_are_asked(client,
                                                                           resolver_settings):
    item = make.item(("paper.pdf", b"a paper"), title="Announced")
    ask = f"servicesubject=urlRequest&clientinformation.ipaddress=150.163.2.175&" \
          f"parsedibiurl.ibi={item.ibi}"

    metadata = dict(strict(client.get(f"/{resolver_settings.ibi}", QUERY_STRING=(
        ask + "&parsedibiurl.verblist=GetMetadata(oai_dc)"))))
    plain = dict(strict(client.get(f"/{resolver_settings.ibi}", QUERY_STRING=ask)))

    assert metadata["metadataformats"] == ["bibtex", "csljson", "datacite", "oai_dc", "ris",
                                           "schemaorg"]
    assert "metadataformats" not in plain


def test_6_and_14_the_inspection_of_a_rendered_format_says_so(client, examples):
    shown = client.get(f"/inspect/{urlib.ITEM}:(bibtex)", {"format": "json"},
                       headers={"accept-language": "en"}).json()

    assert (shown["outcome"], shown["status"], shown["url"]) == ("found", 200, None)
    assert shown["reason"] == ("its Archive announced no format but oai_dc: this resolver "
                               "renders bibtex from the oai_dc record it gave")
    assert shown["rounds"][0]["archives"][1]["url"] == location(examples, RECORD_OF_ITEM)
    assert examples.fetched.count(RECORD_OF_ITEM) == 0  # an inspection fetches nothing


@pytest.mark.parametrize("document", [b"<html>not a record</html>", b"\xff\xfe nonsense",
                                      b'<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>'
                                      b'<x>&e;</x>'])
def test_6_an_oai_dc_record_that_cannot_be_read_is_never_a_500(client, examples, document):
    examples.documents[RECORD_OF_ITEM] = ("text/xml", document)
    plain = client.get(f"/{urlib.ITEM}")

    negotiated = client.get(f"/{urlib.ITEM}", headers={"accept": "application/x-bibtex"})
    typed = client.get(f"/{urlib.ITEM}:(bibtex)", headers={"accept-language": "en"})

    assert (negotiated.status_code, negotiated["Location"]) == (302, plain["Location"])
    assert typed.status_code == 502
    assert typed.content == (b"The oai_dc record the Archive gave for this item cannot be read: "
                             b"try again later.\n")


def test_6_a_language_table_8_4_does_not_allow_never_reaches_a_standard_archive(client,
                                                                                examples):
    """``+(por)``: this resolver reads BCP 47's three letters, Table 8.4 two (2ALFAMI)."""
    response = client.get(f"/{urlib.ITEM}+(por)", headers={"accept-language": "en"})

    assert response.status_code == 404
    assert "por" in response.content.decode()  # the translation missing, by its language
    assert only_the_standard_on_the_wire(examples) == ["GetTranslation"]


def test_7_a_fragment_in_the_request_line_is_not_part_of_the_path(rf):
    """gunicorn routes /<ibi>/a#b.txt as /<ibi>/a and keeps the fragment in RAW_URI: the
    path read is the one routed."""
    from archive.resolver.views.paths import raw_path

    request = rf.get(f"/{urlib.FIRST}/a", RAW_URI=f"/{urlib.FIRST}/a#b.txt")
    assert raw_path(request) == f"/{urlib.FIRST}/a"
    request = rf.get(f"/{urlib.FIRST}/a%25b", REQUEST_URI=f"/{urlib.FIRST}/a%25b?x=1")
    assert raw_path(request) == f"/{urlib.FIRST}/a%25b"
