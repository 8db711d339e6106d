"""Content negotiation on persistent URLs (archive/resolver/views/negotiation.py), as doi.org
does it, and the metadata modifiers ``:(bibtex)`` … with the archive service's
``url.metadata(<format>)`` pairs. Items held here go through Django's test client; another
Archive is a stand-in on loopback (tests/servers.py). tests/test_two_archives.py does the same
between two real Archives.
"""
from __future__ import annotations

import json
import socket

import bibtexparser
import pytest
import rispy
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from lxml import etree
from rdflib import Graph, Namespace, URIRef

from archive.deposit import services
from archive.metadata.formats import FORMATS
from archive.protocol import persistent_url
from archive.protocol.pairs import loads, to_dict
from tests import factories as make

from . import xml_schemas
from .servers import FakeArchiveService

REPORT = {"creator": ["Banon, Gerald", "Banon, Lise"], "date": ["2009-02-16"],
          "publisher": ["INPE"], "type": ["Relatório técnico"]}

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("resolver_settings")]

HOST = "testserver"
BASE = f"http://{HOST}"
ELSEWHERE = "ibi.test/f/2024/01.02.03.04"
F_SERVICE = "ibi.test/f/2020/01.01.01.01"
SDO = Namespace("https://schema.org/")
BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
ACCEPT = {name: fmt.media_type for name, fmt in FORMATS.items()}


def metadata(item, name: str) -> str:
    if name == "oai_dc":  # the URL oai_dc has always had
        return f"{BASE}/items/{item.ibi}/oai_dc.xml"
    return f"{BASE}/items/{item.ibi}/metadata/{name}"


def redirect(client, path: str, accept: str | None = None, **extra) -> str:
    if accept is not None:
        extra["HTTP_ACCEPT"] = accept
    response = client.get(path, **extra)
    assert response.status_code == 302, (path, accept, response.status_code, response.content)
    assert "Accept" in response["Vary"]
    return response["Location"]


# -- Accept on /<ibi> ----------------------------------------------------------------------------

@pytest.mark.parametrize("name", list(FORMATS))
def test_each_media_type_redirects_to_the_record_in_that_format(client, name):
    item = make.item(("paper.pdf", b"%PDF-1"), language="en", dc=REPORT)
    for ibi in (item.ibi, item.ibip):
        assert redirect(client, f"/{ibi}", ACCEPT[name]) == metadata(item, name)


def test_what_the_redirect_leads_to_is_read_by_the_formats_clients(client, monkeypatch):
    item = make.item(("paper.pdf", b"%PDF-1"), language="en", dc=REPORT)

    def follow(media_type: str):
        response = client.get(f"/{item.ibip}", HTTP_ACCEPT=media_type, follow=True)
        assert response.status_code == 200
        assert response["Content-Type"].split(";")[0] == media_type
        return response.content

    (entry,) = bibtexparser.parse_string(follow("application/x-bibtex").decode()).entries
    assert entry.entry_type == "techreport"
    assert entry.fields_dict["author"].value == "Banon, Gerald and Banon, Lise"
    (record,) = rispy.loads(follow("application/x-research-info-systems").decode())
    assert record["title"] == "Ensuring persistence"
    # One CSL-JSON object, as doi.org answers this Accept; the modifier's URL (and the
    # landing page's download) keep CSL-JSON's list of items.
    one = json.loads(follow("application/vnd.citationstyles.csl+json"))
    assert one["author"][0] == {"family": "Banon", "given": "Gerald"}
    listed = json.loads(client.get(f"/{item.ibip}:(csljson)", follow=True).content)
    assert listed == [one]
    xml_schemas.datacite().assertValid(etree.fromstring(
        follow("application/vnd.datacite.datacite+xml")))
    xml_schemas.oai_dc().assertValid(etree.fromstring(follow("application/xml")))
    monkeypatch.setattr(socket.socket, "connect", lambda *a: pytest.fail("network used"))
    graph = Graph().parse(data=follow("application/ld+json"), format="json-ld")
    assert (URIRef(f"{BASE}/{item.ibi}"), SDO.name, None) in graph


def test_html_and_wildcards_keep_todays_redirect(client):
    item = make.item(("paper.pdf", b"%PDF-1"), language="en", dc=REPORT)
    plain = redirect(client, f"/{item.ibi}")
    assert plain == f"{BASE}/col/{item.ibi}/doc/paper.pdf"
    for accept in ("text/html", BROWSER, "*/*", "application/*", "text/*", "",
                   "application/pdf", "image/png, application/json"):
        assert redirect(client, f"/{item.ibi}", accept) == plain, accept


@pytest.mark.parametrize(("accept", "name"), [
    ("application/x-bibtex;q=0.5, application/x-research-info-systems;q=0.9", "ris"),
    ("text/html;q=0.1, application/ld+json", "schemaorg"),
    ("application/ld+json;q=0.8, text/html;q=0.9", None),
    ("*/*;q=0.1, application/vnd.datacite.datacite+xml", "datacite"),
    ("application/x-bibtex, */*", "bibtex"),  # the more specific range wins a tie
    ("application/x-bibtex;q=0, text/html;q=0.2", None),  # q=0: not that one
    ("text/*;q=0.2, application/vnd.citationstyles.csl+json;q=0.3", "csljson"),
])
def test_q_values_choose(client, accept, name):
    item = make.item(("paper.pdf", b"%PDF-1"), language="en", dc=REPORT)
    expected = metadata(item, name) if name else f"{BASE}/col/{item.ibi}/doc/paper.pdf"
    assert redirect(client, f"/{item.ibi}", accept) == expected


def test_modifiers_edition_and_translation_with_accept(client):
    first = make.item(("first.pdf", b"%PDF-1"), language="en", dc=REPORT)
    second = make.item(("second.pdf", b"%PDF-1"), previous_edition=first, language="en", dc=REPORT)
    portuguese = make.item(("primeiro.pdf", b"%PDF-1"), title="Garantindo", language="pt",
                           translation_of=first, dc=REPORT)

    assert redirect(client, f"/{first.ibip}!", "application/x-bibtex") == metadata(
        second, "bibtex")
    assert redirect(client, f"/{first.ibi}!", "application/x-bibtex") == metadata(
        second, "bibtex")
    assert redirect(client, f"/{first.ibi}+(pt)", "application/x-bibtex") == metadata(
        portuguese, "bibtex")
    # A URL naming metadata, a file or the file list keeps what it names.
    assert redirect(client, f"/{first.ibi}:(ris)", "application/x-bibtex") == metadata(
        first, "ris")
    assert redirect(client, f"/{first.ibi}/first.pdf", "application/x-bibtex") == (
        f"{BASE}/col/{first.ibi}/doc/first.pdf")


def test_text_x_bibliography_with_style_and_locale(client):
    item = make.item(("paper.pdf", b"%PDF-1"), language="en", dc=REPORT)

    def cite(accept: str):
        response = client.get(f"/{item.ibi}", HTTP_ACCEPT=accept, follow=True)
        assert response.redirect_chain == [(metadata(item, "csljson"), 302)]
        assert response.status_code == 200
        assert response["Content-Type"] == "text/x-bibliography; charset=utf-8"
        return response.content.decode()

    assert cite("text/x-bibliography").startswith(
        "Banon, G., & Banon, L. (2009). Ensuring persistence")  # APA, en-US by default
    assert cite("text/x-bibliography; style=ieee").startswith("[1]G. Banon and L. Banon,")
    abnt = cite("text/x-bibliography; style=associacao-brasileira-de-normas-tecnicas; "
                "locale=pt-BR")
    assert abnt.startswith("BANON, G.; BANON, L.") and "Disponível em" in abnt
    assert "Available at" in cite("text/x-bibliography; style=harvard-cite-them-right")


@pytest.mark.parametrize(("accept", "says"), [
    ("text/x-bibliography; style=no-such-style", "no CSL style named 'no-such-style'"),
    ("text/x-bibliography; style=../../etc/passwd", "is no CSL style name"),
    ("text/x-bibliography; style=apa; locale=xx-YY", "no CSL locale 'xx-YY'"),
])
def test_an_unknown_style_or_locale_is_a_400_saying_which(client, accept, says):
    item = make.item(("paper.pdf", b"%PDF-1"), language="en", dc=REPORT)
    response = client.get(f"/{item.ibi}", HTTP_ACCEPT=accept)
    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/plain")
    assert says in response.content.decode()
    assert "Accept" in response["Vary"]


def test_head_answers_like_get_without_a_body(client):
    item = make.item(("paper.pdf", b"%PDF-1"), language="en", dc=REPORT)
    response = client.head(f"/{item.ibi}", HTTP_ACCEPT="application/x-bibtex")
    assert response.status_code == 302 and response["Location"] == metadata(item, "bibtex")


@pytest.fixture
def item():
    return make.item(("paper.pdf", b"%PDF-1"), language="en", dc=REPORT)


_MEDIA_RANGE = st.sampled_from([*ACCEPT.values(), "text/html", "*/*", "application/*",
                                "text/x-bibliography", "image/png", "", ";", ",", "q=2"])
_PARAMETER = st.sampled_from(["", ";q=0", ";q=0.5", ";q=1.5", ";q=x", ";style=apa",
                              ";style=nope", ";locale=pt-BR", ";locale=zz", ';style="ieee"'])


@hypothesis_settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(header=st.lists(st.tuples(_MEDIA_RANGE, _PARAMETER), max_size=4).map(
    lambda parts: ", ".join(r + p for r, p in parts)) | st.text(max_size=60))
def test_any_accept_header_is_a_redirect_or_a_400_saying_why(client, item, header):
    response = client.get(f"/{item.ibi}", HTTP_ACCEPT=header)
    assert response.status_code in (302, 400), (header, response.status_code)
    if response.status_code == 400:
        assert response.content.startswith(b"Cannot answer in this format:")


# -- The modifiers :(name) -----------------------------------------------------------------------

def test_the_grammar_reads_every_format_in_modifiers_and_verb_lists():
    url = persistent_url.parse("/LK47B6W/362SFKH!+(pt):(BibTeX)")
    assert url.verbs == ("GetLastEdition", "GetTranslation(pt)", "GetMetadata(bibtex)")
    assert url.relation() == ".lastedition.translation(pt).metadata(bibtex)"
    for name in FORMATS:
        listed = persistent_url.parse("/LK47B6W/362SFKH", f"ibiurl.verblist=GetMetadata({name})")
        assert listed.relation() == f".metadata({name})"
    with pytest.raises(persistent_url.PersistentUrlError, match="unknown metadata format"):
        persistent_url.parse("/LK47B6W/362SFKH:(mods)")


def test_each_metadata_modifier_redirects_to_its_format(client):
    first = make.item(("first.pdf", b"%PDF-1"), language="en", dc=REPORT)
    second = make.item(("second.pdf", b"%PDF-1"), previous_edition=first, language="en", dc=REPORT)
    for name in FORMATS:
        assert redirect(client, f"/{first.ibi}:({name})") == metadata(first, name)
        assert redirect(client, f"/{first.ibip}!:({name})") == metadata(second, name)
    assert redirect(client, f"/{first.ibi}:(BibTeX)") == metadata(first, "bibtex")
    assert redirect(client, f"/{first.ibi}?ibiurl.verblist=GetMetadata(ris)") == metadata(
        first, "ris")


def test_an_unknown_format_in_a_modifier_is_a_400(client):
    item = make.item(("paper.pdf", b"%PDF-1"), language="en", dc=REPORT)
    response = client.get(f"/{item.ibi}:(marcxml)")
    assert response.status_code == 400
    page = response.content.decode()
    assert "unknown metadata format" in page and "marcxml" in page and "csljson" in page


def test_the_archive_service_answers_metadata_pairs_of_every_format(client, resolver_settings):
    first = make.item(("first.pdf", b"%PDF-1"), language="en", dc=REPORT)
    second = make.item(("second.pdf", b"%PDF-1"), previous_edition=first, language="en", dc=REPORT)
    response = client.get(f"/{resolver_settings.ibi}", {
        "servicesubject": "urlRequest", "clientinformation.ipaddress": "192.0.2.1",
        "parsedibiurl.ibi": first.ibip,
        "parsedibiurl.verblist": "GetLastEdition GetMetadata(bibtex)"})

    answer = to_dict(loads(response.content.decode()))
    assert answer["url.lastedition.metadata(bibtex)"] == metadata(second, "bibtex")
    assert answer["contenttype.lastedition.metadata(bibtex)"] == "Metadata"
    assert answer["state.lastedition.metadata(bibtex)"] == "Original"


# -- Tombstones ----------------------------------------------------------------------------------

def test_a_tombstone_answers_410_with_its_citation_in_each_format(client, monkeypatch):
    item = make.item(("paper.pdf", b"%PDF-1"), language="en", dc=REPORT)
    services.item_delete(item=item, reason="withdrawn")

    def gone(path: str, accept: str | None = None) -> bytes:
        response = client.get(path, **({"HTTP_ACCEPT": accept} if accept else {}))
        assert response.status_code == 410, (path, accept)
        assert "Accept" in response["Vary"]
        return response.content

    for ibi in (item.ibi, item.ibip):
        for name, media_type in ACCEPT.items():
            by_accept, by_modifier = gone(f"/{ibi}", media_type), gone(f"/{ibi}:({name})")
            if name == "csljson":  # by its media type, the one object of the list
                by_accept, by_modifier = json.loads(by_accept), json.loads(by_modifier)[0]
            assert by_accept == by_modifier, name
    (entry,) = bibtexparser.parse_string(gone(f"/{item.ibi}:(bibtex)").decode()).entries
    assert entry.fields_dict["title"].value == "Ensuring persistence"
    assert "author" not in entry.fields_dict  # the tombstone policy: no creators
    assert rispy.loads(gone(f"/{item.ibi}:(ris)").decode())[0]["title"] == "Ensuring persistence"
    assert json.loads(gone(f"/{item.ibi}:(csljson)"))[0]["title"] == "Ensuring persistence"
    xml_schemas.datacite().assertValid(etree.fromstring(gone(f"/{item.ibi}:(datacite)")))
    xml_schemas.oai_dc().assertValid(etree.fromstring(gone(f"/{item.ibi}:(oai_dc)")))
    monkeypatch.setattr(socket.socket, "connect", lambda *a: pytest.fail("network used"))
    graph = Graph().parse(data=gone(f"/{item.ibi}:(schemaorg)"), format="json-ld")
    assert (URIRef(f"{BASE}/{item.ibi}"), SDO.creativeWorkStatus, None) in graph
    assert gone(f"/{item.ibi}", "text/x-bibliography").decode().startswith(
        "Ensuring persistence. (2009).")
    # Without a format asked, the tombstone page of today.
    assert b"This item was deleted" in gone(f"/{item.ibi}", "text/html")


# -- Through another Archive ---------------------------------------------------------------------

@pytest.fixture
def fake():
    with FakeArchiveService(F_SERVICE) as archive:
        make.include(archive.address, F_SERVICE)
        yield archive


def test_an_archive_that_announced_the_format_is_asked_for_it_and_its_url_followed(client,
                                                                                  fake):
    where = f"http://{fake.address}/items/{ELSEWHERE}/metadata/"

    def respond(pairs):
        verbs = pairs.get("parsedibiurl.verblist", "")
        fmt = verbs[len("GetMetadata("):-1]
        return 200, (f"archiveaddress {fake.address}\nibi {{rep {ELSEWHERE}}}\n"
                     f"ibi.archiveservice {{rep {F_SERVICE}}}\nibi.platformsoftware {{}}\n"
                     f"contenttype.metadata({fmt}) Metadata\n"
                     f"metadataformats {{bibtex oai_dc ris}}\n"
                     f"state.metadata({fmt}) Original\n"
                     f"timestamp.metadata({fmt}) 2024-01-02T03:04:05Z\n"
                     f"url.metadata({fmt}) {where}{fmt}\n")
    fake.respond = respond

    # Its answer to a standard question announces the formats it knows (resolver/formats.py).
    assert redirect(client, f"/{ELSEWHERE}:(oai_dc)") == where + "oai_dc"
    assert redirect(client, f"/{ELSEWHERE}", "application/x-bibtex") == where + "bibtex"
    assert redirect(client, f"/{ELSEWHERE}:(bibtex)") == where + "bibtex"
    asked = fake.requests("urlRequest")  # the announcement remembered: bibtex asked at once
    assert [p["parsedibiurl.verblist"] for p in asked] == [
        "GetMetadata(oai_dc)", "GetMetadata(bibtex)", "GetMetadata(bibtex)"]


def test_another_archives_tombstone_is_a_410_in_the_format_asked(client, fake):
    fake.respond = lambda pairs: (200, (
        f"archiveaddress {fake.address}\nibi {{rep {ELSEWHERE}}}\n"
        f"ibi.archiveservice {{rep {F_SERVICE}}}\nibi.platformsoftware {{}}\n"
        f"state Deleted\ntimestamp 2024-01-02T03:04:05Z\n"))

    response = client.get(f"/{ELSEWHERE}", HTTP_ACCEPT="application/x-research-info-systems")

    assert response.status_code == 410
    (record,) = rispy.loads(response.content.decode())
    assert record["title"] == ELSEWHERE and record["urls"] == [f"{BASE}/{ELSEWHERE}"]
    assert "publisher" not in record  # another Archive's host:port is no publisher (#43)
