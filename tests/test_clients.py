"""Real clients read what they meet: extruct (what search engines' structured-data readers use)
parses every public page in every syntax it knows, and FAIR Signposting's client reads an
item's signposts from its persistent URL over HTTP, on the redirect itself and, following it
as every HTTP client does, on the file it lands on. (CSL-JSON and RIS by their clients:
tests/test_negotiation.py and tests/test_formats.py; the landing page's signposts:
tests/test_signposting.py.)
"""
from __future__ import annotations

import urllib.request
from datetime import UTC, datetime

import extruct
import pytest
import signposting

from archive.metadata.formats import FORMATS
from tests import factories as make
from tests.test_page_checks import PT, public_pages


@pytest.fixture
def site(db, settings):
    settings.ARCHIVE_ADDRESS = "testserver"
    return make.showcase()


def test_extruct_reads_every_public_page_in_every_syntax(client, site):
    for name, url in public_pages(site).items():
        for headers in (PT, {}):
            html = client.get(url, **headers).content.decode()
            found = extruct.extract(html, base_url=f"http://testserver{url}", uniform=True)
            assert set(found) >= {"json-ld", "microdata", "rdfa", "opengraph", "dublincore"}, (
                name)
    landing = client.get(public_pages(site)["landing"], **PT).content.decode()
    found = extruct.extract(landing, base_url="http://testserver/", uniform=True)
    (report,) = found["json-ld"]
    assert report["@type"] == "Report" and report["name"] == site["item"].title
    (card,) = found["opengraph"]
    assert card["og:title"] == site["item"].title and card["@type"] == "article"  # og:type


# -- Signposting from the persistent URL, over HTTP --------------------------------------------

def _signposts(found: signposting.Signposting) -> dict[str, set[str]]:
    by_rel: dict[str, set[str]] = {}
    for signpost in found.signposts:
        rel = getattr(signpost.rel, "value", signpost.rel)  # a LinkRel, or a URI
        by_rel.setdefault(str(rel), set()).add(str(signpost.target))
    return by_rel


def test_the_signposting_client_reads_a_persistent_url_and_the_file_it_leads_to(
        live_site, monkeypatch):
    monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1")  # loopback only
    site = make.showcase()
    base, item = live_site.url, site["item"]
    purl, landing = f"{base}/{item.ibi}", f"{base}/items/{item.ibi}"
    described = {f"{base}/items/{item.ibi}/metadata/{name}" for name in FORMATS
                 if name != "oai_dc"} | {f"{base}/items/{item.ibi}/oai_dc.xml"}
    linksets = {f"{landing}/linkset", f"{landing}/linkset.json"}
    credits = {"author": {"https://orcid.org/0000-0002-1825-0097"},
               "license": {"https://creativecommons.org/licenses/by/4.0/"}}

    # The redirect's own Link header: the item's whole set, as its landing page has it.
    class NoFollow(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    with pytest.raises(urllib.request.HTTPError) as redirect:
        urllib.request.build_opener(NoFollow).open(urllib.request.Request(purl, method="HEAD"))
    assert redirect.value.code == 302
    on_redirect = _signposts(signposting.find_signposting_http_link(
        redirect.value.headers.get_all("Link"), purl))
    assert on_redirect["cite-as"] == {purl}
    assert on_redirect["describedby"] >= described and on_redirect["linkset"] == linksets
    assert on_redirect["item"] == {f"{base}/col/{item.ibi}/doc/relat%C3%B3rio%20final.pdf",
                                   f"{base}/col/{item.ibi}/doc/dados.csv"}
    assert {rel: on_redirect[rel] for rel in credits} == credits

    # Followed to the file (urllib follows redirects): the file's links and its item's.
    on_file = _signposts(signposting.find_signposting_http(purl))
    assert on_file["collection"] == {landing}
    assert on_file["cite-as"] == {f"{purl}/relat%C3%B3rio%20final.pdf"}
    assert on_file["describedby"] >= described and on_file["linkset"] == linksets
    assert {rel: on_file[rel] for rel in credits} == credits

    # And the linkset it names holds every link of the landing page.
    linkset = signposting.find_signposting_linkset(f"{landing}/linkset", "application/linkset")
    in_linkset = _signposts(linkset.for_context(landing))
    assert in_linkset["item"] == on_redirect["item"] and purl in in_linkset["cite-as"]


def test_a_file_of_an_item_deposited_after_another_names_its_own_item(client, site):
    """The per-process Signposts of files are per item: a second item's file never says the
    first item's links."""
    other = make.item(("other.pdf", b"%PDF-1.4 other", "application/pdf"), title="Outro",
                      dc={"creator": [("Outra, Pessoa", "0000-0001-5109-3700")]})
    first = client.head(f"/col/{site['item'].ibi}/doc/dados.csv")["Link"]
    second = client.head(f"/col/{other.ibi}/doc/other.pdf")["Link"]
    assert "0000-0002-1825-0097" in first and "0000-0002-1825-0097" not in second
    assert "0000-0001-5109-3700" in second


# -- Memento: memento_client finds the TimeGate and the TimeMap ----------------------------------

def test_memento_client_discovers_the_timegate_from_the_landing_page(live_site, monkeypatch):
    """Told no TimeGate of ours (its fallback is a closed port: asking it fails the test),
    memento_client finds the chain's TimeGate in the landing page's Link header, and the
    Memento current at a date there."""

    from memento_client import MementoClient


    monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1")  # loopback only
    base = live_site.url
    first, second = make.edition_series(2020, 2022)
    landing = f"{base}/items/{first.ibi}"

    client = MementoClient(timegate_uri="http://127.0.0.1:9/timegate/")
    info = client.get_memento_info(landing, datetime(2021, 6, 1, tzinfo=UTC))

    assert info["timegate_uri"] == f"{base}/timegate/{base}/{first.ibi}!"
    # The closest, followed to its bytes: the first edition's persistent URL leads to its file.
    assert info["mementos"]["closest"]["uri"] == [f"{base}/col/{first.ibi}/doc/e1.pdf"]
    assert info["mementos"]["last"]["uri"] == [f"{base}/{second.ibi}"]


@pytest.mark.parametrize(("asked", "when", "expected"), [
    (0, datetime(2021, 6, 1, tzinfo=UTC), 1), (2, datetime(2020, 6, 1, tzinfo=UTC), 0),
    (1, datetime(2030, 1, 1, tzinfo=UTC), 2)])
def test_memento_client_finds_the_edition_from_a_persistent_url_alone(live_site, monkeypatch,
                                                                      asked, when, expected):
    """Issue 43: given any edition's persistent URL and a date, and no TimeGate of ours (its
    fallback is a closed port: asking it fails the test), memento_client finds the chain's
    TimeGate in the answers it is redirected through, and the edition current then."""
    from memento_client import MementoClient

    monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1")  # loopback only
    base = live_site.url
    editions = make.edition_series(2020, 2021, 2022)

    client = MementoClient(timegate_uri="http://127.0.0.1:9/timegate/")
    info = client.get_memento_info(f"{base}/{editions[asked].ibi}", when)

    original = f"{base}/{editions[0].ibi}!"
    assert info["original_uri"] == original
    assert info["timegate_uri"] == f"{base}/timegate/{original}"
    # The edition current then, followed to its bytes by the redirects.
    assert info["mementos"]["closest"]["uri"] == [
        f"{base}/col/{editions[expected].ibi}/doc/e{expected + 1}.pdf"]
    assert info["mementos"]["first"]["uri"] == [f"{base}/{editions[0].ibi}"]
    assert info["mementos"]["last"]["uri"] == [f"{base}/{editions[2].ibi}"]


def test_memento_client_finds_the_timegate_and_timemap_of_an_ibi_with_editions(live_site,
                                                                              monkeypatch):
    """Given this resolver's TimeGate base (`timegate_uri`, as a client configured for an
    aggregator is), memento_client finds the Mementos of the chain there, and the TimeMap they
    name lists every edition. Nothing leaves the machine (the aggregator is never asked)."""
    from memento_client import MementoClient

    monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1")  # loopback only
    base = live_site.url
    editions = make.edition_series(2020, 2021, 2022)
    original = f"{base}/{editions[0].ibi}!"
    client = MementoClient(timegate_uri=f"{base}/timegate/")
    info = client.get_memento_info(original, datetime(2021, 6, 1, tzinfo=UTC))
    assert info["original_uri"] == original
    assert info["timegate_uri"] == f"{base}/timegate/{original}"
    mementos = info["mementos"]
    assert mementos["first"]["uri"] == [f"{base}/{editions[0].ibi}"]
    # memento_client gives naive datetimes, in GMT
    assert mementos["first"]["datetime"] == datetime(2020, 3, 1, tzinfo=UTC).replace(tzinfo=None)
    assert mementos["last"]["uri"] == [f"{base}/{editions[2].ibi}"]
    # The TimeGate's own answer names the TimeMap; memento_client's parser reads both.
    answer = MementoClient.request_head(info["timegate_uri"], "Tue, 01 Jun 2021 00:00:00 GMT")
    assert answer.status_code == 302 and answer.headers["Location"] == (
        f"{base}/{editions[1].ibi}")
    found = MementoClient.get_uri_dt_for_rel(
        MementoClient.parse_link_header(answer.headers["Link"]), ["timemap", "original"])
    assert found["original"]["uri"] == original
    timemap = client.session.get(found["timemap"]["uri"])
    listed = MementoClient.parse_link_header(timemap.text.replace("\n", ""))
    assert {uri for uri in listed if "memento" in " ".join(listed[uri].get("rel", []))} == {
        f"{base}/{e.ibi}" for e in editions}
    # Any edition's persistent URL, its IBIp or the bare IBI name the same chain; another
    # host's URI is nobody's here.
    assert MementoClient.request_head(f"{base}/timegate/{editions[2].ibip}").status_code == 302
    assert MementoClient.request_head(
        f"{base}/timegate/http://elsewhere.example/{editions[0].ibi}").status_code == 404
