"""FAIR Signposting, levels 1 and 2 (https://signposting.org/FAIR/), read by a signposting
client: the `signposting` package (FAIR Signposting's Python client) parses every Link header,
the landing page's <link> elements and the application/linkset document, over HTTP from a live
server or from the test client's answers. The application/linkset+json document is checked
against RFC 9264 §4.2 by hand and must hold exactly the links the client found in the text one
(the client reads JSON `profile` as a string, where RFC 9264 §4.2.4.3 wants an array)."""
from __future__ import annotations

import json
import re

import pytest
import signposting
from django.urls import reverse
from pytest_django.live_server_helper import LiveServer
from signposting import LinkRel

from archive.deposit import services
from archive.deposit.links import metadata_url
from archive.metadata.formats import FORMATS
from archive.models import Item, ItemFile
from tests import factories as make

PAPER_AND_DATA = (("paper.pdf", b"%PDF-1 paper", "application/pdf"),
                  ("data.csv", b"a,b\n1,2\n", "text/csv"))

BASE = "http://testserver"
JOSIAH = "0000-0002-1825-0097"
CC_BY = "https://creativecommons.org/licenses/by/4.0/"
SIGNPOSTED = {"creator": [("Carberry, Josiah", JOSIAH), "Banon, Gerald"],
              "rights": [CC_BY, "All rights reserved"]}


@pytest.fixture
def item(db) -> Item:
    return make.item(*PAPER_AND_DATA, dc=SIGNPOSTED)


def landing(item: Item, base: str = BASE) -> str:
    return base + reverse("archive:item", args=[item.ibi])


def described(item: Item, base: str = BASE) -> set[tuple[str, str, frozenset]]:
    """(URL, media type, profiles) of every metadata format, as metadata_url hands them out."""
    found = set()
    for fmt in FORMATS.values():
        url = metadata_url(item.ibi, None, fmt.name).replace("http://127.0.0.1:8000", base)
        found.add((url, fmt.media_type, frozenset([fmt.profile] if fmt.profile else [])))
    return found


def seen(signposts) -> set[tuple[str, str, frozenset]]:
    return {(str(s.target), str(s.type or ""), frozenset(str(p) for p in s.profiles))
            for s in signposts}


def unprofiled(found: signposting.Signposting) -> set[tuple[str, str, str, str]]:
    """(context, rel, target, type) of every signpost: what HTML's <link> can say (HTML has no
    `profile` attribute; the header and the linkset carry the profiles)."""
    return {(str(s.context), " ".join(sorted(map(str, s.rel))), str(s.target), str(s.type or ""))
            for s in found.signposts}


def header(response) -> signposting.Signposting:
    """What the signposting client finds in a response's Link header (RFC 8288, strict)."""
    return signposting.find_signposting_http_link([response["Link"]],
                                                  BASE + response.wsgi_request.path)


def assert_level_1(found: signposting.Signposting, item: Item, base: str = BASE,
                   more_described: bool = False) -> None:
    assert str(found.citeAs.target) == f"{base}/{item.ibi}"
    # The persistent URL also names its own :(oai_dc) (resolver/views/persistent_urls.py).
    if more_described:
        assert seen(found.describedBy) >= described(item, base)
    else:
        assert seen(found.describedBy) == described(item, base)
    assert seen(found.items) == {
        (f"{base}/col/{item.ibi}/doc/paper.pdf", "application/pdf", frozenset()),
        (f"{base}/col/{item.ibi}/doc/data.csv", "text/csv", frozenset())}
    assert {str(s.target) for s in found.authors} == {f"https://orcid.org/{JOSIAH}"}
    assert str(found.license.target) == CC_BY
    assert "https://schema.org/CreativeWork" in {str(s.target) for s in found.types}


# -- Landing page ------------------------------------------------------------------------------

def test_the_landing_pages_link_header_has_every_level_1_link_and_announces_its_linksets(
        client, item):
    found = header(client.get(landing(item)))
    assert_level_1(found, item)
    assert {str(s.target) for s in found.types} == {"https://schema.org/CreativeWork",
                                                    "https://schema.org/AboutPage"}
    assert {(str(s.target), str(s.type)) for s in found.linksets} == {
        (landing(item) + "/linkset", "application/linkset"),
        (landing(item) + "/linkset.json", "application/linkset+json")}


def test_the_landing_pages_head_has_the_same_links_as_its_header(client, item):
    response = client.get(landing(item))
    html = response.content.decode()
    page = signposting.htmllinks.HTML(html, "text/html", landing(item), landing(item))
    in_html = signposting.htmllinks._parse_html(page)  # the client's own HTML reader
    assert unprofiled(in_html) == unprofiled(header(response))
    assert not any(s.profiles for s in in_html.signposts)
    assert len(re.findall(r"<link rel=\"(?:cite-as|describedby|item|author|license|type |"
                          r"linkset)\"", html)) == len(in_html)


def test_a_creator_without_orcid_and_rights_that_are_no_url_give_no_link(client, db):
    plain = make.item(*PAPER_AND_DATA,
                      dc={**SIGNPOSTED, "creator": ["Banon, Gerald"],
                          "rights": ["All rights reserved"]})
    found = header(client.get(landing(plain)))
    assert not found.authors and found.license is None


def test_an_item_with_more_files_than_the_header_holds_lists_them_in_its_linkset(
        client, settings, db):
    many = make.item(*[(f"f{n}.txt", b"x", "text/plain") for n in range(21)], dc=SIGNPOSTED)
    found = header(client.get(landing(many)))
    assert found.citeAs and len(found.describedBy) == len(FORMATS) and not found.items
    text = client.get(landing(many) + "/linkset").content.decode()
    in_linkset = linkset_text(text, landing(many) + "/linkset")
    assert len(in_linkset.for_context(landing(many)).items) == 21


def test_an_item_with_more_orcid_authors_than_the_header_holds_lists_them_in_its_linkset(
        client, db):
    ids = ["0000-0002-1825-0097", "0000-0002-1694-233X"] * 11
    crowd = make.item(*PAPER_AND_DATA,
                      dc={**SIGNPOSTED,
                          "creator": [(f"Author {n}", orcid) for n, orcid in enumerate(ids)]})
    found = header(client.get(landing(crowd)))
    assert found.citeAs and found.items and not found.authors
    in_linkset = linkset_text(client.get(landing(crowd) + "/linkset").content.decode(),
                              landing(crowd) + "/linkset")
    assert {str(s.target) for s in in_linkset.for_context(landing(crowd)).authors} == {
        f"https://orcid.org/{orcid}" for orcid in ids}


def test_odd_file_names_and_stored_types_cannot_break_the_header(client, db):
    odd = make.item(*[('a "b", <c>; d.txt', b"x", "text/plain")], dc=SIGNPOSTED)
    ItemFile.objects.filter(item=odd).update(content_type='text/plain"; x=<y>')
    found = header(client.get(landing(odd)))
    (only,) = found.items
    assert str(only.target).endswith("/doc/a%20%22b%22%2C%20%3Cc%3E%3B%20d.txt")
    assert only.type is None  # the odd content type is left out


IRI_LICENCE = "https://licença.example/by/4.0/deed.ja/ライセンス"  # beyond Latin-1
IRI_AS_URI = ("https://xn--licena-0ua.example/by/4.0/deed.ja/"
              "%E3%83%A9%E3%82%A4%E3%82%BB%E3%83%B3%E3%82%B9")


def test_a_licence_iri_is_sent_as_a_uri_and_every_link_survives(client, db):
    """One letter beyond Latin-1 made Django send the whole header RFC 2047-encoded, which no
    client reads as links (issue #30, 11): every URL in a header is a URI."""
    licensed = make.item(*PAPER_AND_DATA, dc={**SIGNPOSTED, "rights": [IRI_LICENCE]})
    page = client.get(landing(licensed))
    redirect = client.get(f"/{licensed.ibi}")
    download = client.get(f"/col/{licensed.ibi}/doc/paper.pdf")
    text = client.get(landing(licensed) + "/linkset").content.decode()
    for response in (page, redirect, download):
        assert response["Link"].isascii() and "=?utf-8?" not in response["Link"]
    found = header(page)
    assert str(found.license.target) == IRI_AS_URI
    assert len(found.items) == 2 and found.citeAs and found.authors
    assert str(header(redirect).license.target) == IRI_AS_URI
    in_linkset = linkset_text(text, landing(licensed) + "/linkset")
    assert str(in_linkset.for_context(landing(licensed)).license.target) == IRI_AS_URI


def test_a_right_that_cannot_be_a_url_is_left_out_of_the_header_and_logged(client, db, caplog):
    odd = make.item(*PAPER_AND_DATA, dc={**SIGNPOSTED, "rights": ["http://:99999/licence"]})
    found = header(client.get(landing(odd)))
    assert found.license is None and len(found.items) == 2 and found.citeAs
    assert ("signposting: 'http://:99999/licence' (rel license) is no URL; left out of the "
            "Link header") in caplog.messages


# -- Linksets (level 2) ------------------------------------------------------------------------

def linkset_text(text: str, url: str) -> signposting.Signposting:
    return signposting.linkset._parse_linkset(signposting.linkset.Linkset(
        text, "application/linkset", url, url))


def json_links(document: dict) -> set[tuple[str, str, str, str, tuple]]:
    """(anchor, rel, href, type, profiles) of an RFC 9264 §4.2 document, its structure checked."""
    assert list(document) == ["linkset"] and isinstance(document["linkset"], list)
    found = set()
    for context in document["linkset"]:
        assert isinstance(context["anchor"], str) and len(context) > 1
        for rel, targets in context.items():
            if rel == "anchor":
                continue
            assert re.fullmatch(r"[a-z][a-z0-9.-]*", rel) and isinstance(targets, list)
            for target in targets:
                assert set(target) <= {"href", "type", "profile"}, target
                assert isinstance(target["href"], str)
                assert isinstance(target.get("type", ""), str)
                profiles = target.get("profile", [])
                assert isinstance(profiles, list) and all(isinstance(p, str) for p in profiles)
                found.add((context["anchor"], rel, target["href"], target.get("type", ""),
                           tuple(profiles)))
    return found


def test_both_linksets_hold_the_same_links_and_the_json_one_follows_rfc_9264(client, item):
    text = client.get(landing(item) + "/linkset")
    assert text.status_code == 200 and text["Content-Type"].startswith("application/linkset;")
    in_text = linkset_text(text.content.decode(), landing(item) + "/linkset")
    as_json = client.get(landing(item) + "/linkset.json")
    assert as_json["Content-Type"].startswith("application/linkset+json")
    in_json = json_links(json.loads(as_json.content))
    assert in_json == {(str(s.context), str(s.rel.value if isinstance(s.rel, LinkRel)
                                            else s.rel),
                        str(s.target), str(s.type or ""), tuple(str(p) for p in s.profiles))
                       for s in in_text.signposts}
    page = in_text.for_context(landing(item))
    assert_level_1(page, item)
    assert {str(s.target) for s in page.types} >= {"https://schema.org/AboutPage"}
    for name in ("paper.pdf", "data.csv"):
        of_file = in_text.for_context(f"{BASE}/col/{item.ibi}/doc/{name}")
        assert str(of_file.collection.target) == landing(item)
        assert str(of_file.citeAs.target) == f"{BASE}/{item.ibi}/{name}"
    for url, _type, _profiles in described(item):
        assert {str(s.target) for s in in_text.for_context(url).describes} == {landing(item)}


def test_the_linkset_url_negotiates_json_and_other_spellings_redirect(client, item):
    asked = client.get(landing(item) + "/linkset", HTTP_ACCEPT="application/linkset+json")
    assert asked["Content-Type"].startswith("application/linkset+json")
    assert "Accept" in asked["Vary"]
    assert json_links(json.loads(asked.content))
    moved = client.get(reverse("archive:item_linkset", args=[item.ibip]))
    assert moved.status_code == 301 and moved["Location"].endswith(f"/{item.ibi}/linkset")
    assert client.get("/items/nothing/here/2020/01.01/linkset").status_code == 404
    assert client.post(landing(item) + "/linkset").status_code == 405


# -- Persistent URL, files, tombstones ---------------------------------------------------------

def test_the_persistent_url_redirect_carries_the_items_signposting(client, item):
    response = client.get(f"/{item.ibi}")
    assert response.status_code == 302
    found = header(response)
    assert_level_1(found, item, more_described=True)
    assert "https://schema.org/AboutPage" not in {str(s.target) for s in found.types}
    assert {str(s.type) for s in found.linksets} == {"application/linkset",
                                                     "application/linkset+json"}
    again = client.get(f"/{item.ibip}")  # the other form, from the answer cache or not
    assert seen(header(again).items) == seen(found.items)


def test_a_persistent_url_of_a_file_answers_that_files_links(client, item):
    found = header(client.get(f"/{item.ibi}/data.csv"))
    assert str(found.citeAs.target) == f"{BASE}/{item.ibi}/data.csv"
    assert str(found.collection.target) == landing(item)


def test_a_file_url_points_back_to_its_landing_page_and_persistent_url(client, item):
    for method in (client.get, client.head):
        response = method(f"/col/{item.ibi}/doc/paper.pdf")
        assert response.status_code == 200
        found = header(response)
        assert str(found.collection.target) == landing(item)
        assert found.collection.type == "text/html"
        assert str(found.citeAs.target) == f"{BASE}/{item.ibi}/paper.pdf"


def test_a_tombstone_keeps_cite_as_describedby_and_type_but_no_items(client, item):
    services.item_delete(item=item, reason="retracted")
    for response in (client.get(landing(item)), client.get(f"/{item.ibi}")):
        assert response.status_code == 410
        found = header(response)
        assert str(found.citeAs.target) == f"{BASE}/{item.ibi}"
        assert seen(found.describedBy) >= described(item)
        assert found.types and not found.items and not found.authors
        assert found.license is None
    gone = client.get(landing(item) + "/linkset")
    assert gone.status_code == 410
    in_text = linkset_text(gone.content.decode(), landing(item) + "/linkset")
    assert not in_text.items and in_text.for_context(landing(item)).citeAs


# -- A real client over HTTP -------------------------------------------------------------------

@pytest.fixture
def server(transactional_db, settings):
    """A live server over plain HTTP, started after the test's settings (as test_browser.py)."""
    settings.SECURE_SSL_REDIRECT = False
    live = LiveServer("127.0.0.1")
    live._live_server_modified_settings.enable()
    yield live
    live._live_server_modified_settings.disable()
    live.stop()


def test_the_signposting_client_finds_everything_over_http(server, monkeypatch):
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")  # loopback only, whatever the environment
    item = make.item(*PAPER_AND_DATA, dc=SIGNPOSTED)
    url = landing(item, server.url)
    by_header = signposting.find_signposting_http(url)
    assert_level_1(by_header, item, server.url)
    assert unprofiled(by_header) == unprofiled(signposting.find_signposting_html(url))
    # Asked for the text linkset: the client reads a JSON `profile` as a string only.
    linkset = signposting.find_signposting_linkset(url + "/linkset", "application/linkset")
    assert_level_1(linkset.for_context(url), item, server.url)
