"""What search engines read: Highwire citation_* tags in the landing page, the sitemap index
and its sitemaps (read back with lxml, paged with a small page size), and robots.txt."""
from __future__ import annotations

import lxml.html
import pytest
import rdflib
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from lxml import etree

from archive.deposit import services
from archive.harvest import sitemap as sitemap_module
from archive.metadata import highwire
from tests import factories as make

REPORT_FILES = (("report.pdf", b"%PDF-1 r", "application/pdf"), ("data.csv", b"a\n1\n", "text/csv"),
                ("annex.pdf", b"%PDF-1 a", "application/pdf"))

BASE = "http://testserver"
SITEMAPS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
JOSIAH = "0000-0002-1825-0097"


def meta_tags(html: str) -> list[tuple[str, str]]:
    page = lxml.html.fromstring(html)
    return [(m.get("name"), m.get("content")) for m in page.xpath("//head/meta[@name]")
            if m.get("name").startswith("citation_")]


# -- Highwire Press tags -----------------------------------------------------------------------

def test_the_landing_page_has_the_citation_tags_google_scholar_reads(client, db):
    item = make.item(*REPORT_FILES, title="Relatório de atividades", target_file="report.pdf",
                     language="pt-BR",
                     dc={"creator": [("Carberry, Josiah", JOSIAH), "Banon, Gerald"],
                         "date": ["2013-09-04"], "publisher": ["INPE"],
                         "type": ["Relatório técnico"],
                         "identifier": ["INPE-15678-RPQ/819", "https://example.org/x",
                                        "10.1000/182"],
                         "subject": ["remote sensing"]})
    tags = meta_tags(client.get(reverse("archive:item", args=[item.ibi])).content.decode())
    doc = f"{BASE}/col/{item.ibi}/doc/"
    assert tags == [
        ("citation_title", "Relatório de atividades"),
        ("citation_author", "Carberry, Josiah"),
        ("citation_author_orcid", f"https://orcid.org/{JOSIAH}"),
        ("citation_author", "Banon, Gerald"),
        ("citation_publication_date", "2013/09/04"),
        ("citation_pdf_url", doc + "report.pdf"),  # the target file first
        ("citation_pdf_url", doc + "annex.pdf"),
        ("citation_language", "pt-BR"),
        ("citation_publisher", "INPE"),
        ("citation_keywords", "remote sensing"),
        ("citation_doi", "10.1000/182"),
        ("citation_technical_report_number", "INPE-15678-RPQ/819"),
        ("citation_technical_report_institution", "INPE"),
        ("citation_public_url", f"{BASE}/{item.ibi}"),
        ("citation_abstract_html_url", f"{BASE}/items/{item.ibi}"),
    ]


def test_an_item_that_is_no_report_has_no_report_number_and_markup_stays_text(client, db):
    item = make.item(*(("a.txt", b"a", "text/plain"),), title='<b>"Bold"</b> & co',
                     dc={"type": ["Dataset"], "identifier": ["INPE-1"]})
    html = client.get(reverse("archive:item", args=[item.ibi])).content.decode()
    tags = dict(meta_tags(html))
    assert tags["citation_title"] == '<b>"Bold"</b> & co'
    assert "citation_technical_report_number" not in tags and "citation_pdf_url" not in tags
    # Without a dc:date the deposit's date is the publication date.
    assert tags["citation_publication_date"] == item.created.strftime("%Y/%m/%d")


def test_a_tombstone_has_no_citation_tags(client, db):
    item = make.item(*REPORT_FILES, title="Relatório de atividades")
    services.item_delete(item=item)
    assert meta_tags(client.get(reverse("archive:item", args=[item.ibi])).content.decode()) == []


@pytest.mark.parametrize("identifier, is_number", [
    ("INPE-15678-RPQ/819", True), ("TR 2009-12", True), ("NT-7", True),
    ("https://example.org/1", False), ("urn:nbn:de:1", False), ("doi:10.1/2", False),
    ("10.1000/182", False), ("ISBN 978-3-16-148410-0", False), ("no digits", False),
])
def test_which_identifiers_of_a_report_are_report_numbers(identifier, is_number):
    from archive.metadata.record import Record

    record = Record(ibi="a", ibip="b", title="T", persistent_url="http://x/a",
                    types=("Technical report",), identifiers=(identifier,))
    assert highwire.report_numbers(record) == ([identifier] if is_number else [])


# -- schema.org JSON-LD -----------------------------------------------------------------------

def test_the_landing_page_embeds_schema_org_json_ld_that_rdflib_reads(client, db):
    item = make.item(*REPORT_FILES, title="Relatório </script><!-- & co",
                     dc={ "creator": [("Carberry, Josiah", JOSIAH)], "type": ["Technical report"]})
    html = client.get(reverse("archive:item", args=[item.ibi])).content.decode()
    (script,) = lxml.html.fromstring(html).xpath('//head/script[@type="application/ld+json"]')
    assert "</script>" not in script.text and "<!--" not in script.text
    graph = rdflib.Graph().parse(data=script.text, format="json-ld")  # inline context: offline
    work = rdflib.URIRef(f"{BASE}/{item.ibi}")
    schema = rdflib.Namespace("https://schema.org/")
    assert (work, rdflib.RDF.type, schema.Report) in graph
    assert str(graph.value(work, schema.name)) == "Relatório </script><!-- & co"
    author = graph.value(work, schema.creator)
    assert author == rdflib.URIRef(f"https://orcid.org/{JOSIAH}")
    # The Signposting type link names the same class as the JSON-LD.
    assert '<https://schema.org/Report>; rel="type"' in client.get(
        reverse("archive:item", args=[item.ibi]))["Link"]


# -- Sitemaps ----------------------------------------------------------------------------------

def parse(response, root: str) -> etree._Element:
    """A sitemap answer read back: well-formed XML in the sitemaps.org namespace."""
    assert response.status_code == 200 and response["Content-Type"].startswith("application/xml")
    document = etree.fromstring(response.content)
    assert document.tag == SITEMAPS + root
    assert all(e.tag.startswith(SITEMAPS) for e in document.iter())
    return document


def entries(document: etree._Element) -> list[tuple[str, str | None]]:
    out = []
    for entry in document:
        assert [child.tag for child in entry][:1] == [SITEMAPS + "loc"]
        assert set(child.tag for child in entry) <= {SITEMAPS + "loc", SITEMAPS + "lastmod"}
        out.append((entry.findtext(SITEMAPS + "loc"), entry.findtext(SITEMAPS + "lastmod")))
    return out


def test_the_sitemap_pages_list_every_listed_item_once_in_pages_of_at_most_the_size(
        client, settings, db):
    settings.IBI_SITEMAP_PAGE_SIZE = 2
    items = [make.item(*(("a.txt", b"a", "text/plain"),), title=f"Item {n}")
             for n in range(7)]
    services.item_delete(item=items[1])
    services.item_delete(item=items[2])  # ids of a whole page gone: that page is not listed
    listed = [item for item in items if not item.is_deleted]
    for item in listed:
        item.refresh_from_db()

    index = entries(parse(client.get("/sitemap.xml"), "sitemapindex"))
    assert index[0] == (f"{BASE}/sitemaps/pages.xml", None)
    assert entries(parse(client.get("/sitemaps/pages.xml"), "urlset")) == [(f"{BASE}/", None)]
    found = []
    for loc, lastmod in index[1:]:
        assert loc.startswith(f"{BASE}/sitemaps/items-")
        with CaptureQueriesContext(connection) as queries:
            page = entries(parse(client.get(loc[len(BASE):]), "urlset"))
        sql = " ".join(q["sql"].upper() for q in queries.captured_queries)
        assert "OFFSET" not in sql and "COUNT(" not in sql
        assert 1 <= len(page) <= 2
        assert lastmod == max(m for _loc, m in page)  # the index's lastmod: the page's newest
        found += page
    assert found == [(f"{BASE}/items/{item.ibi}",
                      item.updated.strftime("%Y-%m-%dT%H:%M:%SZ")) for item in
                     sorted(listed, key=lambda i: i.pk)]
    assert len(index) - 1 < len(range(0, max(i.pk for i in items), 2))  # an empty page skipped


def test_an_empty_or_unknown_sitemap_page_is_a_404(client, settings, db):
    settings.IBI_SITEMAP_PAGE_SIZE = 2
    assert client.get("/sitemaps/items-999999.xml").status_code == 404
    assert client.get("/sitemaps/items--1.xml").status_code == 404
    assert client.post("/sitemap.xml").status_code == 405


def test_an_empty_collection_still_has_a_valid_sitemap_index(client, db):
    index = entries(parse(client.get("/sitemap.xml"), "sitemapindex"))
    assert index == [(f"{BASE}/sitemaps/pages.xml", None)]


def test_a_sitemap_refuses_more_than_the_protocol_allows():
    with pytest.raises(ValueError):
        sitemap_module.urlset((f"http://a/{n}", None) for n in range(50_001))


def test_robots_txt_points_at_the_sitemap_and_closes_admin_and_api(client, db):
    response = client.get("/robots.txt")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/plain")
    lines = response.content.decode().splitlines()
    assert lines[0] == "User-agent: *"
    assert {"Disallow: /admin/", "Disallow: /api/", "Allow: /"} <= set(lines)
    assert f"Sitemap: {BASE}/sitemap.xml" in lines
