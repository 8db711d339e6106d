"""Persistent URLs at the site root (RTC-11 §8): the resolver through Django's test client.

Items held here are resolved in process; other Archives are stand-ins on loopback
(tests/servers.py) registered and included at this resolver.
"""
from __future__ import annotations

import math
import re
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from archive.deposit import services
from archive.models import Item, RegisteredArchive
from archive.resolver import fanout
from tests import factories as make
from tests.conftest import BROWSER

from .servers import FakeArchiveService, SilentServer

BANON_2009 = {"creator": ["Banon, Gerald"], "date": ["2009"]}

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("resolver_settings")]

HOST = "testserver"
F_SERVICE = "ibi.test/f/2024/01.02.03.04"
G_SERVICE = "ibi.test/g/2024/01.02.03.05"
ELSEWHERE = "ibi.test/elsewhere/2020/05.06.07.08"  # an IBI held by a stand-in, not here
NEXT = "ibi.test/elsewhere/2021/05.06.07.08"


@pytest.fixture
def fake():
    with FakeArchiveService(F_SERVICE) as archive:
        make.include(archive.address, F_SERVICE)
        yield archive

def file(item: Item, name: str) -> str:
    return f"http://{HOST}/col/{item.ibi}/doc/{quote(name)}"


def holds(archive: FakeArchiveService, ibi: str, *, state: str = "Original", extra: str = ""):
    """The stand-in answers urlRequests about ibi with its own URL for it."""
    url = f"http://{archive.address}/col/{ibi}/doc/paper.pdf"

    def respond(pairs):
        if pairs.get("parsedibiurl.ibi", "").lower() != ibi.lower():
            return 200, ""
        return 200, (f"archiveaddress {archive.address}\ncontenttype Data\nibi {{rep {ibi}}}\n"
                     f"ibi.archiveservice {{rep {archive.service_ibi}}}\n"
                     f"ibi.platformsoftware {{}}\nstate {state}\n"
                     f"timestamp 2024-01-02T03:04:05Z\nurl {url}\n"
                     f"urlkey 1700000000-123456789012345678\n{extra}")
    archive.respond = respond
    return url


# -- Held here: answered in process ------------------------------------------------------------

def test_an_item_held_here_is_resolved_without_asking_another_archive(client, fake):
    first = make.item(("paper.pdf", b"paper.pdf"), ("reference.bib", b"reference.bib"),
                      language="en", dc=BANON_2009)
    portuguese = make.item(("artigo.pdf", b"artigo.pdf"), language="pt", translation_of=first,
                           dc=BANON_2009)
    second = make.item(("paper2.pdf", b"paper2.pdf"), previous_edition=first, language="en",
                       dc=BANON_2009)
    base = f"http://{HOST}/items"
    expected = {
        f"/{first.ibi}": file(first, "paper.pdf"),
        f"/{first.ibip.lower()}": file(first, "paper.pdf"),
        f"/{first.ibi.upper()}!": file(second, "paper2.pdf"),
        f"/{first.ibi}+(pt)": file(portuguese, "artigo.pdf"),
        f"/{first.ibi}:": f"{base}/{first.ibi}/metadata",
        f"/{first.ibi}!:(oai_dc)": f"{base}/{second.ibi}/oai_dc.xml",
        f"/{first.ibi}/reference.bib": file(first, "reference.bib"),
        f"/{first.ibi}?ibiurl.verblist=GetFileList": f"{base}/{first.ibi}/files",
        f"/{first.ibi}??": f"{base}/{first.ibi}/metadata",  # the 2010 draft's metadata
    }
    for path, url in expected.items():
        response = client.get(path, headers={"accept-language": "pt-BR"})
        assert (response.status_code, response["Location"]) == (302, url), path
    assert client.get(f"/{first.ibi}+", headers={"accept-language": "pt-BR, en;q=0.8"}
                      )["Location"] == file(portuguese, "artigo.pdf")
    assert fake.asked == []
    # The Original required: every Archive is asked whether it claims it too (§8.2 step 3).
    required = client.get(f"/{first.ibip}?ibiurl.requireditemstatus=Original&lang=x")
    assert (required.status_code, required["Location"]) == (302, file(first, "paper.pdf")
                                                            + "?lang=x")
    assert [pairs["parsedibiurl.ibi"] for pairs in fake.requests("urlRequest")] == [first.ibip]


def test_a_redirect_counts_the_access_here_after_the_commit(
        reader, eager_tasks, django_capture_on_commit_callbacks):
    item = make.item(("paper.pdf", b"paper.pdf"), language="en", dc=BANON_2009)
    with django_capture_on_commit_callbacks(execute=True):
        response = reader.get(f"/{item.ibip}:(oai_dc)", REMOTE_ADDR="10.0.0.1",
                              headers={"x-forwarded-for": "203.0.113.9, not-an-ip"})
        reader.head(f"/{item.ibi}")  # a link checker is not a reader

    assert response.status_code == 302
    assert make.counts(item.pk) == {"downloads": 0, "acknowledgments": 1, "total": 1}


def test_link_headers_name_editions_translations_and_metadata(client):
    first = make.item(("paper.pdf", b"paper.pdf"), language="en", dc=BANON_2009)
    make.item(("artigo.pdf", b"artigo.pdf"), language="pt-BR", translation_of=first, dc=BANON_2009)
    second = make.item(("paper2.pdf", b"paper2.pdf"), previous_edition=first, language="en",
                       dc=BANON_2009)
    root = f"http://{HOST}"

    old = client.get(f"/{first.ibi}")["Link"]
    new = client.get(f"/{second.ibip}")["Link"]

    assert f'<{root}/{first.ibi}:(oai_dc)>; rel="describedby"; type="application/xml"' in old
    assert f'<{root}/{first.ibi}!>; rel="latest-version"' in old
    assert f'<{root}/{first.ibi}+(pt-BR)>; rel="alternate"; hreflang="pt-BR"' in old
    assert f'<{root}/{first.ibi}>; rel="predecessor-version"' in new
    assert "latest-version" not in new
    assert "Link" not in client.get(f"/{first.ibi}:")  # metadata: no editions of their own


def test_a_deleted_item_answers_its_tombstone(client):
    first = make.item(("paper.pdf", b"paper.pdf"), language="en", dc=BANON_2009)
    second = make.item(("paper2.pdf", b"paper2.pdf"), previous_edition=first, language="en",
                       dc=BANON_2009)
    services.item_delete(item=first)

    response = client.get(f"/{first.ibip}")

    assert response.status_code == 410
    page = response.content.decode()
    assert f"This item was deleted on <time datetime=\"{first.updated:%Y-%m-%d}" in page
    assert "Banon, G. (2009). Ensuring persistence." in page  # the citation (APA)
    assert f'href="http://{HOST}/{second.ibi}"' in page  # the newer edition
    assert make.counts(first.pk)["total"] == 0


def test_a_translation_that_does_not_exist_is_a_404_saying_so(client):
    item = make.item(("paper.pdf", b"paper.pdf"), language="en", dc=BANON_2009)

    response = client.get(f"/{item.ibi}+(de)")

    assert response.status_code == 404
    assert "No translation in German" in response.content.decode()


@pytest.mark.parametrize("escaped", ["Relat%C3%B3rio%20Final.pdf", "Relat%F3rio%20Final.pdf",
                                     "Relat%f3rio Final.pdf"])
def test_a_non_ascii_file_path_resolves_in_utf_8_and_in_iso_8859_1(client, escaped):
    item = make.item(("Relatório Final.pdf", b"%PDF-1.4", "application/pdf"), title="Relatório")

    response = client.get(f"/{item.ibip}/{escaped}")

    assert response.status_code == 302, response.content[:300]
    assert response["Location"].endswith(f"/col/{item.ibi}/doc/Relat%C3%B3rio%20Final.pdf")


@pytest.mark.parametrize(("path", "status", "says"), [
    ("/LK47B6W/362SFKH!!", 400, "not one of the modifiers of Table 8.2"),
    ("/LK47B6W/362SFKH?ibiurl.verblist=GetAll", 400, "unknown verb"),
    ("/LK47B6W/362SFKH?ibiurl.requireditemstatus=Copy", 400, "only Original"),
    ("/LK47B6W/362SFKH/../x", 400, "&#x27;..&#x27; in the file path"),
    ("/iconet.com.br/banon/2009/13.09.22.01", 400, "month 13 out of range"),
    ("/localhost/archive/2026/11.22.99", 400, "is no repository name"),
    ("/apple-touch-icon.png", 404, "does not start with an IBI"),
    ("/LK47B6W/362SFKH", 404, "Not found"),
])
def test_what_is_not_a_resolvable_persistent_url(client, path, status, says):
    response = client.get(path)

    assert response.status_code == status
    assert says in response.content.decode()


def test_the_archive_services_own_url_is_the_service_not_a_redirect_to_itself(
        client, resolver_settings):
    service = resolver_settings

    assert client.get(f"/{service.ibip}")["Location"] == f"http://{HOST}/{service.ibi}"
    response = client.get(f"/{service.ibi}")
    assert (response.status_code, response.content) == (400, b"error {servicesubject is missing}")


def test_only_get_and_head(client):
    item = make.item(("paper.pdf", b"paper.pdf"), language="en", dc=BANON_2009)

    response = client.post(f"/{item.ibi}")

    assert response.status_code == 405 and response["Allow"] == "GET, HEAD"
    assert client.head(f"/{item.ibi}").status_code == 302


# -- Held elsewhere: every included Archive is asked --------------------------------------------

def test_other_archives_get_the_pairs_of_table_8_9(client, fake):
    url = holds(fake, ELSEWHERE)

    response = client.get(f"/{ELSEWHERE}!:(oai_dc)/x.bib?ibiurl.requireditemstatus=Original",
                          REMOTE_ADDR="150.163.2.175", headers={"accept-language": "pt"})

    assert fake.requests("urlRequest") == [{
        "servicesubject": "urlRequest", "clientinformation.ipaddress": "150.163.2.175",
        "parsedibiurl.ibi": ELSEWHERE, "parsedibiurl.filepath": "/x.bib",
        "parsedibiurl.verblist": "GetLastEdition GetMetadata(oai_dc)"}]  # Table 8.6: no more
    assert response.status_code == 404  # the stand-in gave only its plain url
    assert client.get(f"/{ELSEWHERE}")["Location"] == url


@pytest.mark.parametrize("escaped", ["Relat%C3%B3rio%20Final.pdf", "Relat%F3rio%20Final.pdf"])
def test_a_non_ascii_file_path_is_sent_once_escaped_in_utf_8(client, fake, escaped):
    holds(fake, ELSEWHERE)

    client.get(f"/{ELSEWHERE}/{escaped}")

    sent = [q for q in fake.queries if "servicesubject=urlRequest" in q]
    assert len(sent) == 1
    assert "&parsedibiurl.filepath=/Relat%C3%B3rio%20Final.pdf" in sent[0]


def test_an_archive_registered_by_name_may_answer_with_urls_on_the_ip_it_was_reached_at(
        client, fake):
    """Registered as localhost:<port> (its archiveaddress at inclusion), the stand-in hands out
    URLs on 127.0.0.1:<port>, the IP the resolver reached it at: they are followed."""
    port = fake.address.rpartition(":")[2]
    RegisteredArchive.objects.filter(archive_service_ibi=F_SERVICE).update(
        address=f"localhost:{port}")
    url = holds(fake, ELSEWHERE)
    assert url.startswith(f"http://127.0.0.1:{port}/")

    assert client.get(f"/{ELSEWHERE}")["Location"] == url


def test_an_answers_archiveaddress_cannot_move_its_urls_to_another_host(client, fake):
    fake.respond = lambda pairs: (200, f"archiveaddress evil.example\nibi {{rep {ELSEWHERE}}}\n"
                                       "state Original\nurl http://evil.example/phish\n")

    assert client.get(f"/{ELSEWHERE}").status_code == 404


def test_the_chosen_archive_gets_the_acknowledgment_of_table_8_11(
        reader, fake, eager_tasks, django_capture_on_commit_callbacks):
    url = holds(fake, ELSEWHERE)

    with django_capture_on_commit_callbacks(execute=True):
        response = reader.get(f"/{ELSEWHERE.upper()}?a=b", REMOTE_ADDR="150.163.2.175")

    assert response["Location"] == f"{url}?a=b"  # the item's pair, passed on (§8.1)
    assert fake.requests("acknowledgment") == [{
        "servicesubject": "acknowledgment", "clientinformation.ipaddress": "150.163.2.175",
        "contenttype": "Data", "ibi": f"rep {ELSEWHERE}", "state": "Original", "url": url,
        "url.persistent": f"http://{HOST}/{ELSEWHERE.upper()}?a=b",
        "urlkey": "1700000000-123456789012345678"}]


@pytest.mark.parametrize("agent", ["Mozilla/5.0 (compatible; Googlebot/2.1)", "curl/8.5.0", ""])
@pytest.mark.parametrize("method", ["get", "head"])
def test_every_resolution_is_acknowledged_whoever_the_reader(
        client, fake, eager_tasks, django_capture_on_commit_callbacks, agent, method):
    """§8.2 step 5 (#25's audit, 12.): COUNTER's filters are for this Archive's own counts."""
    url = holds(fake, ELSEWHERE)

    with django_capture_on_commit_callbacks(execute=True):
        response = getattr(client, method)(f"/{ELSEWHERE}", HTTP_USER_AGENT=agent)

    assert response["Location"] == url
    assert len(fake.requests("urlRequest")) == 1
    assert [pairs["url"] for pairs in fake.requests("acknowledgment")] == [url]


@pytest.mark.parametrize("agent", ["Mozilla/5.0 (compatible; Googlebot/2.1)", "curl/8.5.0", ""])
def test_an_operator_may_leave_robots_unacknowledged(
        client, fake, eager_tasks, django_capture_on_commit_callbacks, settings, agent):
    settings.IBI_ACKNOWLEDGMENT_FILTERS_ROBOTS = True
    url = holds(fake, ELSEWHERE)

    with django_capture_on_commit_callbacks(execute=True):
        robot = client.get(f"/{ELSEWHERE}", HTTP_USER_AGENT=agent)
        reader = client.get(f"/{ELSEWHERE}", HTTP_USER_AGENT=BROWSER)

    assert robot["Location"] == reader["Location"] == url
    assert len(fake.requests("acknowledgment")) == 1  # the reader's only


def test_example_10_2_the_next_edition_is_asked_for_at_every_archive(client, fake):
    with FakeArchiveService(G_SERVICE) as other:
        make.include(other.address, G_SERVICE)
        fake.respond = lambda pairs: (200, "" if pairs["parsedibiurl.ibi"] != ELSEWHERE else (
            f"archiveaddress {fake.address}\nibi {{rep {ELSEWHERE}}}\n"
            f"ibi.archiveservice {{rep {F_SERVICE}}}\nibi.nextedition {{rep {NEXT}}}\n"
            "ibi.platformsoftware {}\n"))
        url = f"http://{other.address}/col/{NEXT}/oai_dc"
        other.respond = lambda pairs: (200, "" if pairs["parsedibiurl.ibi"] != NEXT else (
            f"contenttype.lastedition.metadata(oai_dc) Metadata\nibi {{rep {NEXT}}}\n"
            f"state.lastedition.metadata(oai_dc) Original\nurl.lastedition.metadata(oai_dc) "
            f"{url}\nurlkey 1426286454-36108967764060357\n"))

        response = client.get(f"/{ELSEWHERE}!:(oai_dc)")

        assert response["Location"] == url
        second = other.requests("urlRequest")[-1]
    assert (second["parsedibiurl.ibi"], second["parsedibiurl.verblist"]) == (
        NEXT, "GetLastEdition GetMetadata(oai_dc)")


def test_asking_again_stops_at_a_cycle(client, fake):
    # Each edition names the other as its next one, and no URL ever comes.
    def respond(pairs):
        asked = pairs["parsedibiurl.ibi"]
        following = ELSEWHERE if asked == NEXT else NEXT
        return 200, f"ibi {{rep {asked}}}\nibi.nextedition {{rep {following}}}\n"
    fake.respond = respond

    assert client.get(f"/{ELSEWHERE}!").status_code == 404
    assert [p["parsedibiurl.ibi"] for p in fake.requests("urlRequest")] == [ELSEWHERE, NEXT]


def test_a_copy_held_here_is_enough_unless_the_original_is_required(client, fake):
    item = make.item(("paper.pdf", b"paper.pdf"), language="en", dc=BANON_2009)
    Item.objects.filter(pk=item.pk).update(state=Item.State.COPY)
    url = holds(fake, item.ibi)

    assert client.get(f"/{item.ibi}")["Location"] == file(item, "paper.pdf")
    assert fake.requests("urlRequest") == []
    assert client.get(f"/{item.ibi}?ibiurl.requireditemstatus=Original")["Location"] == url


def test_a_copy_held_here_does_not_settle_its_last_edition_nor_its_translations(client, fake):
    item = make.item(("paper.pdf", b"paper.pdf"), language="en", dc=BANON_2009)
    Item.objects.filter(pk=item.pk).update(state=Item.State.COPY)
    third = f"http://{fake.address}/col/{NEXT}/doc/third.pdf"
    pt = f"http://{fake.address}/col/{ELSEWHERE}/doc/pt.pdf"
    holds(fake, item.ibi, extra=f"state.lastedition Original\nurl.lastedition {third}\n"
                                f"state.translation(pt) Original\nurl.translation(pt) {pt}\n")

    assert client.get(f"/{item.ibi}!")["Location"] == third
    # Again: the Original's Archive asked again (resolver/memory.py keeps where, not what),
    # never the Copy here.
    assert client.get(f"/{item.ibi}!")["Location"] == third
    assert client.get(f"/{item.ibi}+(pt)")["Location"] == pt
    assert len(fake.requests("urlRequest")) == 3
    assert client.get(f"/{item.ibi}")["Location"] == file(item, "paper.pdf")
    assert len(fake.requests("urlRequest")) == 3  # the item itself: the Copy is enough


def test_a_copy_held_here_is_the_last_edition_when_no_other_archive_says_more(client, fake):
    item = make.item(("paper.pdf", b"paper.pdf"), language="en", dc=BANON_2009)
    Item.objects.filter(pk=item.pk).update(state=Item.State.COPY)

    assert client.get(f"/{item.ibi}!")["Location"] == file(item, "paper.pdf")
    assert client.get(f"/{item.ibi}!?ibiurl.requireditemstatus=Original").status_code == 404
    assert len(fake.requests("urlRequest")) == 2


def test_two_archives_claiming_the_original_are_named_as_suspects(client, fake):
    item = make.item(("paper.pdf", b"paper.pdf"), language="en", dc=BANON_2009)
    holds(fake, item.ibi)
    with FakeArchiveService(G_SERVICE) as other:
        make.include(other.address, G_SERVICE)
        holds(other, item.ibi)
        Item.objects.filter(pk=item.pk).update(state=Item.State.COPY)

        response = client.get(f"/{item.ibi}?ibiurl.requireditemstatus=Original")

    assert response.status_code == 409
    page = response.content.decode()
    for name in (fake.address, F_SERVICE, other.address, G_SERVICE):
        assert name in page


def test_a_url_that_leaves_the_archives_address_is_never_taken(client, fake, caplog):
    fake.respond = lambda pairs: (200, f"ibi {{rep {ELSEWHERE}}}\nstate Original\n"
                                       "url http://evil.example/phish\n")

    assert client.get(f"/{ELSEWHERE}").status_code == 404
    assert "dropped url from ibi.test/f/2024/01.02.03.04" in caplog.text


def test_a_silent_archive_is_said_on_a_503_never_a_404(client, fake, settings):
    with SilentServer() as silent:
        make.include(silent.address, G_SERVICE)

        response = client.get(f"/{ELSEWHERE}")

    assert response.status_code == 503  # nothing says the item does not exist (#41)
    assert response["Retry-After"] == str(math.ceil(settings.IBI_RESOLVER_DEADLINE))
    page = response.content.decode()
    assert "1 Archive answered that it does not hold" in page
    assert "1 Archive could not be asked or gave no usable answer in time" in page
    assert len(fake.requests("urlRequest")) == 1


def test_a_silent_archive_beside_an_answer_leaves_the_not_found_page_saying_so(client, fake):
    fake.respond = lambda pairs: (200, f"ibi {{rep {ELSEWHERE}}}\n")  # no URL, no way on
    with SilentServer() as silent:
        make.include(silent.address, G_SERVICE)

        response = client.get(f"/{ELSEWHERE}")

    assert response.status_code == 404
    assert "1 Archive gave no usable answer in time" in response.content.decode()


def test_a_resolution_past_the_waiting_limit_is_a_503_at_once(client, fake, settings):
    """IBI_RESOLVER_MAX_WAITING resolutions already wait on other Archives: one more is told
    to come back (503, Retry-After) without asking anyone; a URL held here still answers."""
    settings.IBI_RESOLVER_MAX_WAITING = 2
    with fanout._waiting_slot("192.0.2.1"), fanout._waiting_slot("192.0.2.2"):
        busy = client.get(f"/{ELSEWHERE}")
    assert busy.status_code == 503
    assert busy["Retry-After"] == str(math.ceil(settings.IBI_RESOLVER_DEADLINE))
    assert "Too many readers are waiting for other Archives" in busy.content.decode()
    assert fake.requests("urlRequest") == []
    # The places come back: the same URL asks the Archive again.
    fake.respond = lambda pairs: (200, f"archiveaddress {fake.address}\r\n"
                                       f"ibi {{rep {ELSEWHERE}}}\r\nstate Original\r\n"
                                       f"url http://{fake.address}/col/{ELSEWHERE}/doc/a.pdf")
    assert client.get(f"/{ELSEWHERE}").status_code == 302
    assert len(fake.requests("urlRequest")) == 1


def test_one_client_holds_at_most_its_share_of_the_waiting_places(client, fake, settings):
    """A dozen clients asking for IBIs nobody holds while an Archive is silent filled every
    place, and remote resolution stopped for everyone (issue #30, 10). One address holds at
    most IBI_RESOLVER_MAX_WAITING_PER_CLIENT: one more of its own is a 429 at once, while
    another reader's resolution is asked."""
    settings.IBI_RESOLVER_MAX_WAITING = 4
    holds(fake, ELSEWHERE)
    with fanout._waiting_slot("127.0.0.1"):  # the test client's address, waiting already
        mine = client.get(f"/{ELSEWHERE}")
        inspected = client.get(f"/inspect/{ELSEWHERE}?format=json")
        theirs = client.get(f"/{ELSEWHERE}", REMOTE_ADDR="198.51.100.7")
    assert (mine.status_code, mine["Retry-After"]) == (
        429, str(math.ceil(settings.IBI_RESOLVER_DEADLINE)))
    assert "Your other resolutions are still waiting for other Archives" in \
        mine.content.decode()
    assert inspected.status_code == 429 and inspected.json() == {"error": (
        "Too many of your resolutions are waiting for other Archives: try again in "
        f"{math.ceil(settings.IBI_RESOLVER_DEADLINE)} s.")}
    assert theirs.status_code == 302
    assert len(fake.requests("urlRequest")) == 1  # only the other reader's
    assert fanout._waiting == 0 and not fanout._waiting_by_client


def test_a_question_to_one_archive_that_answers_fast_takes_no_waiting_place(
        client, fake, settings):
    """The Archive where an item was found is asked at every resolution (#41): one that
    answers fast holds a thread for milliseconds, so a campus behind one address is not
    turned away while another of its resolutions waits."""
    settings.IBI_RESOLVER_MAX_WAITING = 1
    url = holds(fake, ELSEWHERE)
    assert client.get(f"/{ELSEWHERE}", REMOTE_ADDR="198.51.100.7")["Location"] == url
    with fanout._waiting_slot("127.0.0.1"):  # every place taken, by this very address
        again = client.get(f"/{ELSEWHERE}")
    assert again["Location"] == url  # (one never heard of waits for its place: above)



def test_a_tombstone_from_another_archive(client, fake):
    fake.respond = lambda pairs: (200, f"archiveaddress {fake.address}\nibi {{rep {ELSEWHERE}}}\n"
                                       "state Deleted\ntimestamp 2023-04-05T06:07:08Z\n")

    response = client.get(f"/{ELSEWHERE}")

    assert response.status_code == 410
    page = response.content.decode()
    assert '<time datetime="2023-04-05T06:07:08Z">April 5, 2023</time>' in page
    # What that Archive said: the IBI, no date; the title stands in for the missing author,
    # once (citeproc-py's APA wrote it twice: metadata/csl.py `_without_artefacts`); no
    # publisher, never the Archive's host:port (#43, 3).
    assert f"{ELSEWHERE}. (n.d.). Retrieved " in page
    assert f"(n.d.). {fake.address}" not in page
    assert f"http://{HOST}/{ELSEWHERE}</p>" in page


def test_excluded_denied_and_our_own_archives_are_not_asked(client, fake, settings):
    service = Item.objects.get(is_archive_service=True)
    RegisteredArchive.objects.update(included=False)
    with FakeArchiveService(service.ibi) as ourselves, FakeArchiveService(G_SERVICE) as denied:
        subdomain, word, rest = service.ibi.split("/", 2)
        make.include(ourselves.address, f"{subdomain}/{word}@80/{rest}".upper())  # legacy spelling
        port = denied.address.rsplit(":", 1)[1]
        make.include(denied.address, G_SERVICE)
        RegisteredArchive.objects.filter(archive_service_ibi=G_SERVICE).update(
            address=f"169.254.169.254:{port}")  # registered there, say, long ago

        # The Archive in a denied network cannot be asked: not "not found" (#41).
        assert client.get(f"/{ELSEWHERE}").status_code == 503

    assert fake.asked == [] and ourselves.asked == [] and denied.asked == []


# -- Never a 500 ------------------------------------------------------------------------------

_IBIS = st.sampled_from(["held", "HELD", "held-ibip", ELSEWHERE, "LK47B6W/362SFKH",
                         "8JMKD3MGP8W/35MMLL8", "iconet.com.br/banon/2009/09.09.22.01",
                         "sid.inpe.br/mtc-m18@80/2009/02.16.17.46"])
_MODIFIER = st.text(alphabet="!+:()ptBRoai_dcxyz-", max_size=12)
_SEGMENT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=8)
_QUERY = st.lists(st.tuples(
    st.sampled_from(["ibiurl.verblist", "ibiurl.requireditemstatus", "x", "ibiurl.", ""]),
    st.text(alphabet="GetLastEditionTranslationMetadataFileList()+ ptoai_dcOriginal%&=",
            max_size=30)), max_size=3)


@hypothesis_settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ibi=_IBIS, modifier=_MODIFIER, segments=st.lists(_SEGMENT, max_size=3), query=_QUERY,
       language=st.text(max_size=20))
def test_no_persistent_url_is_a_server_error(client, fake, ibi, modifier, segments, query,
                                             language):
    # One item held here (with a translation and a newer edition), one Archive elsewhere.
    held = Item.objects.filter(title="held").first()
    if held is None:
        held = make.item(("paper.pdf", b"paper.pdf"), ("a b.pdf", b"a b.pdf"), title="held",
                         language="en", dc=BANON_2009)
        make.item(("paper.pdf", b"paper.pdf"), language="pt", translation_of=held, dc=BANON_2009)
        make.item(("paper.pdf", b"paper.pdf"), previous_edition=held, language="en", dc=BANON_2009)
        holds(fake, ELSEWHERE)
    ibi = {"held": held.ibi, "HELD": held.ibi.upper(), "held-ibip": held.ibip}.get(ibi, ibi)
    path = "/" + quote(ibi + modifier, safe="/!+:()@") + "".join(
        "/" + quote(s, safe="") for s in segments)
    raw_query = "&".join(f"{quote(n)}={v}" for n, v in query)
    for method in (client.get, client.head):
        response = method(path, QUERY_STRING=raw_query,
                          headers={"accept-language": re.sub(r"[^\x20-\x7e]", "", language)})
        assert response.status_code in (302, 400, 404, 409, 410), (path, raw_query)


def test_an_alternate_language_that_is_no_tag_never_reaches_the_header(client, fake, caplog):
    """Another Archive's pair names are its own words: a "language" with a quote, a comma and
    angle brackets would break the Link header's framing (issue #30, 11); it is left out,
    logged."""
    holds(fake, ELSEWHERE, extra=f"ibi.translation(pt) {{rep {NEXT}}}\n"
                                 "ibi.translation(pt\",<x>) "
                                 "{rep ibi.test/elsewhere/2022/05.06.07.08}\n")
    response = client.get(f"/{ELSEWHERE}", headers={"User-Agent": BROWSER})
    assert response.status_code == 302
    assert response["Link"] == (
        f'<http://{HOST}/{ELSEWHERE}:(oai_dc)>; rel="describedby"; type="application/xml", '
        f'<http://{HOST}/{ELSEWHERE}+(pt)>; rel="alternate"; hreflang="pt"')
    assert "resolver: 'pt\",<x>' is no language tag; no alternate link" in caplog.messages
