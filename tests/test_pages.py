"""The public site: home, search and browse, landing pages, tombstones, file list, metadata."""
from __future__ import annotations

import hashlib
import re
from xml.etree import ElementTree

import pytest
from django.urls import reverse

from archive.deposit import services
from archive.metadata import bibtex
from archive.metadata.record import Creator, Record
from archive.models import Item, ItemFile
from tests import factories as make

pytestmark = pytest.mark.django_db

EVIL = '<script>alert("x")</script>'
DC = "{http://purl.org/dc/elements/1.1/}"


@pytest.fixture
def item():
    return make.item(("paper.pdf", b"%PDF-1 paper", "application/pdf"),
                     ("data.csv", b"a,b\n1,2\n", "text/csv"), target_file="paper.pdf",
                     language="en",
                     dc={"creator": ["Banon, Gerald", "Banon, Lise"], "subject": ["persistence"],
                         "date": ["2009-02-16"], "publisher": ["INPE"]})


def landing(item):
    return reverse("archive:item", args=[item.ibi])


# -- Home ----------------------------------------------------------------------------------------

def test_home_shows_recent_items_figures_and_a_search_box(client, item):
    services.ensure_archive_service()
    other = make.item(("paper.pdf", b"%PDF-1 paper", "application/pdf"), title="Second item",
                      language="pt-BR")
    gone = make.item(("paper.pdf", b"%PDF-1 paper", "application/pdf"), title="Withdrawn thing")
    services.item_delete(item=gone)

    response = client.get("/")

    html = response.content.decode()
    assert response.status_code == 200
    assert 'role="search"' in html and 'name="q"' in html
    assert item.title in html and other.title in html
    assert "Withdrawn thing" not in html and "Archive service" not in html
    figures = dict(re.findall(r"<dt>([^<]+)</dt><dd>([^<]+)", html))
    assert figures["Items"] == "2" and figures["Files"] == "3"
    assert figures["Languages"].strip() == "2"
    assert ('(<data value="en">English</data>, <data value="pt-BR">Portuguese (Brazil)</data>)'
            in html)
    assert html.index("Second item") < html.index(item.title)  # newest first


def test_home_counts_sizes(client, item):
    response = client.get("/")
    size = len(b"%PDF-1 paper") + len(b"a,b\n1,2\n")
    assert f"{size}\xa0bytes" in response.content.decode()


# -- Search and browse ---------------------------------------------------------------------------

def test_search_finds_by_title_word_and_metadata(client, item):
    make.item(("paper.pdf", b"%PDF-1 paper", "application/pdf"), title="Unrelated")
    assert item.title in client.get("/search", {"q": "persistence"}).content.decode()
    by_creator = client.get("/search", {"q": "lise"}).content.decode()
    assert item.title in by_creator and "Unrelated" not in by_creator
    assert "No item matches" in client.get("/search", {"q": "nothing-like-this"}).content.decode()


def test_browse_by_creator_subject_year_and_language(client, item):
    undated = make.item(("paper.pdf", b"%PDF-1 paper", "application/pdf"), title="Undated",
                        language="pt-BR")
    for params, expected, absent in [
        ({"creator": "Banon, Lise"}, item.title, "Undated"),
        ({"subject": "persistence"}, item.title, "Undated"),
        ({"year": "2009"}, item.title, "Undated"),
        ({"year": str(undated.created.year)}, "Undated", item.title),
        ({"language": "PT-br"}, "Undated", item.title),
    ]:
        html = client.get("/search", params).content.decode()
        assert expected in html and absent not in html, params


def test_facets_link_to_filtered_searches(client, item):
    html = client.get("/search").content.decode()
    assert 'href="/search?creator=Banon%2C+Gerald"' in html
    assert 'href="/search?subject=persistence"' in html
    assert 'href="/search?year=2009"' in html
    assert 'href="/search?language=en"' in html
    filtered = client.get("/search", {"q": "persistence", "subject": "persistence"})
    assert 'href="/search?q=persistence"' in filtered.content.decode()  # removes the filter


def test_search_is_paginated(client, settings):
    for n in range(23):
        make.item(("paper.pdf", b"%PDF-1 paper", "application/pdf"), title=f"Paged item {n:02d}")
    first = client.get("/search", {"q": "paged"}).content.decode()
    assert "Page 1 of 2" in first and 'href="?q=paged&amp;page=2"' in first
    second = client.get("/search", {"q": "paged", "page": "2"}).content.decode()
    assert second.count('class="summary"') == 3
    assert client.get("/search", {"page": "999"}).status_code == 200
    assert client.get("/search", {"page": "x"}).status_code == 200


def test_browse_by_title(client):
    for title in ("beta", "Alpha", "gamma"):
        make.item(("paper.pdf", b"%PDF-1 paper", "application/pdf"), title=title)
    html = client.get("/search", {"sort": "title"}).content.decode()
    assert html.index(">Alpha<") < html.index(">beta<") < html.index(">gamma<")
    newest = client.get("/search").content.decode()
    assert newest.index(">gamma<") < newest.index(">beta<")
    kept = client.get("/search", {"sort": "title", "q": "a"}).content.decode()
    assert 'value="title" selected' in kept


@pytest.mark.parametrize("params", [{"year": "20x9"}, {"year": "٢٠٠٩"}, {"language": "not a tag"},
                                    {"q": "x" * 201}, {"sort": "random"}])
def test_bad_search_arguments_are_a_400_with_a_message(client, params):
    response = client.get("/search", params)
    assert response.status_code == 400
    assert 'role="alert"' in response.content.decode()


@pytest.mark.parametrize("params", [{"q": "a\x00b"}, {"creator": "\x00"}])
def test_a_nul_in_a_search_argument_is_a_400_before_the_form(client, params):
    # Refused for every route by archive/web/middleware.py (tests/test_nul.py), before any form.
    response = client.get("/search", params)
    assert response.status_code == 400
    assert "A NUL character is not allowed" in response.content.decode()


def test_search_excludes_deleted_items_and_the_archive_service(client, item):
    services.ensure_archive_service()
    services.item_delete(item=item)
    html = client.get("/search").content.decode()
    assert item.title not in html and "Archive service" not in html
    assert "0 items" in html


# -- Landing page --------------------------------------------------------------------------------

def test_landing_page_shows_identifiers_metadata_files_and_citation(client, item):
    response = client.get(landing(item))
    html = response.content.decode()
    assert response.status_code == 200
    assert item.ibi in html and item.ibip in html
    assert f'href="http://testserver/{item.ibi}"' in html  # the persistent URL
    assert 'class="copy" data-copy="purl" hidden' in html  # shown by JavaScript only
    assert "Banon, Gerald" in html and "persistence" in html and "INPE" in html
    for name, data in (("paper.pdf", b"%PDF-1 paper"), ("data.csv", b"a,b\n1,2\n")):
        assert f'href="http://testserver/col/{item.ibi}/doc/{name}"' in html
        assert hashlib.sha256(data).hexdigest() in html
    # APA, the default for a reader of English (metadata/cite.py), by citeproc-py.
    assert "Banon, G., &amp; Banon, L. (2009). Ensuring persistence. INPE." in html
    assert "@misc{banon2009ensuring," in html
    assert "Original" in html


def test_landing_page_signposting(client, item):
    link = client.get(landing(item))["Link"]
    base = "http://testserver"
    assert f'<{base}/{item.ibi}>; rel="cite-as"' in link
    assert (f'<{base}/items/{item.ibi}/oai_dc.xml>; rel="describedby"; type="application/xml"'
            in link)
    assert f'<{base}/col/{item.ibi}/doc/paper.pdf>; rel="item"; type="application/pdf"' in link
    assert f'<{base}/col/{item.ibi}/doc/data.csv>; rel="item"; type="text/csv"' in link


def test_signposting_quotes_odd_file_names_and_skips_huge_file_lists(client, settings):
    odd = make.item(*[('a "b", <c>; d.txt', b"x", "text/plain")])
    # As an older deposit stored a client's type, unchecked (deposit.content_types decides now).
    ItemFile.objects.filter(item=odd).update(content_type='text/plain"; x=<y>')
    link = client.get(landing(odd))["Link"]
    assert f'/col/{odd.ibi}/doc/a%20%22b%22%2C%20%3Cc%3E%3B%20d.txt>; rel="item"' in link
    assert 'd.txt>; rel="item",' in link  # the odd content type is left out
    many = make.item(*[(f"f{n}.txt", b"x", "text/plain") for n in range(21)])
    link = client.get(landing(many))["Link"]
    assert 'rel="cite-as"' in link and 'rel="describedby"' in link and 'rel="item"' not in link


def test_the_ibip_and_other_spellings_redirect_to_the_canonical_page(client, item):
    for spelling, view in [(item.ibip, "archive:item"), (item.ibi.upper(), "archive:item"),
                           (item.ibip.lower(), "archive:item_files")]:
        response = client.get(reverse(view, args=[spelling]))
        assert response.status_code == 301
        assert response["Location"] == reverse(view, args=[item.ibi])


@pytest.mark.parametrize("path", ["/items/nothing", "/items/x.y/z/2020/01.01",
                                  "/items/8JMKD3MGP8W/34PGRBS", "/items/../../etc/passwd",
                                  "/items/%3Cscript%3E/files", "/items/a%00b/2020/01.01"])
def test_unknown_items_are_404(client, path):
    assert client.get(path).status_code == 404


def test_editions_and_translations_are_linked(client, item):
    second = make.item(("paper.pdf", b"%PDF-1 paper", "application/pdf"),
                       title="Ensuring persistence, 2nd ed.", previous_edition=item)
    third = make.item(("paper.pdf", b"%PDF-1 paper", "application/pdf"),
                      title="Ensuring persistence, 3rd ed.", previous_edition=second)
    translation = make.item(("paper.pdf", b"%PDF-1 paper", "application/pdf"),
                            title="Garantindo a persistência", translation_of=item,
                            language="pt-BR")

    first_html = client.get(landing(item)).content.decode()
    assert f'href="/items/{second.ibi}"' in first_html  # next
    assert f'href="/items/{third.ibi}"' in first_html  # latest
    assert f'href="/items/{translation.ibi}"' in first_html and "pt-BR" in first_html
    middle = client.get(landing(second)).content.decode()
    assert "Previous edition" in middle and "Next edition" in middle
    assert "Latest edition" in middle
    last = client.get(landing(third)).content.decode()
    assert "Latest edition" not in last and "Next edition" not in last
    assert "Translation of" in client.get(landing(translation)).content.decode()


def test_deleted_item_is_a_tombstone_with_410(client, item):
    newer = make.item(("paper.pdf", b"%PDF-1 paper", "application/pdf"), title="Newer edition",
                      previous_edition=item)
    services.item_delete(item=item)
    item.refresh_from_db()

    response = client.get(landing(item))

    html = response.content.decode()
    assert response.status_code == 410
    assert "This item was deleted on" in html and item.deleted_at.strftime("%Y-%m-%d") in html
    assert f'href="/items/{newer.ibi}"' in html
    assert "@misc{" in html  # still citable
    assert "paper.pdf" not in html
    assert response["Link"].startswith(f'<http://testserver/{item.ibi}>; rel="cite-as", ')
    assert 'rel="item"' not in response["Link"]  # tests/test_signposting.py has the rest
    for view in ("archive:item_files", "archive:item_metadata", "archive:item_oai_dc"):
        assert client.get(reverse(view, args=[item.ibi])).status_code == 410


def test_file_list_and_metadata_pages(client, item):
    files = client.get(reverse("archive:item_files", args=[item.ibi])).content.decode()
    assert "paper.pdf" in files and "data.csv" in files and item.ibip in files
    meta = client.get(reverse("archive:item_metadata", args=[item.ibi])).content.decode()
    assert "Banon, Lise" in meta and item.ibip in meta and "Transferable" in meta


def test_oai_dc_record_of_an_item(client, item):
    response = client.get(reverse("archive:item_oai_dc", args=[item.ibi]))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/xml; charset=utf-8"
    root = ElementTree.fromstring(response.content)
    assert root.tag == "{http://www.openarchives.org/OAI/2.0/oai_dc/}dc"
    assert [e.text for e in root.iter(f"{DC}creator")] == ["Banon, Gerald", "Banon, Lise"]
    assert root.find(f"{DC}title").text == item.title
    assert root.find(f"{DC}identifier").text == f"http://testserver/{item.ibi}"
    assert root.find(f"{DC}language").text == "en"


# -- Bad input -----------------------------------------------------------------------------------

def test_markup_in_titles_metadata_and_file_names_is_escaped_everywhere(client):
    evil = make.item(*[(f"{EVIL}.txt", b"x", "text/html")], title=EVIL,
                     dc={"creator": [EVIL], "subject": [EVIL], "description": [EVIL]},
                     language="en")
    pages = ["/", "/search", f"/search?q={EVIL}", landing(evil),
             reverse("archive:item_files", args=[evil.ibi]),
             reverse("archive:item_metadata", args=[evil.ibi])]
    for path in pages:
        html = client.get(path).content.decode()
        assert "<script>alert" not in html, path
        assert "&lt;script&gt;" in html, path
    record = client.get(reverse("archive:item_oai_dc", args=[evil.ibi])).content
    assert ElementTree.fromstring(record).find(f"{DC}title").text == EVIL
    services.item_delete(item=evil)
    assert "<script>alert" not in client.get(landing(evil)).content.decode()


def test_control_characters_do_not_break_the_xml_record(client):
    # Deposits refuse control characters; older records may still hold them.
    odd = make.item(("paper.pdf", b"%PDF-1 paper", "application/pdf"), title="placeholder",
                    dc={"description": ["placeholder"]})
    Item.objects.filter(pk=odd.pk).update(title="Bell\x07 and form feed\x0c")
    odd.dc_values.update(value="escape\x1b?")
    response = client.get(reverse("archive:item_oai_dc", args=[odd.ibi]))
    root = ElementTree.fromstring(response.content)
    assert root.find(f"{DC}title").text == "Bell and form feed"


# -- Citations (pure) ------------------------------------------------------------------------------

def test_bibtex_escapes_latex_specials():
    assert bibtex.escape("50% & {x}_1 #2 $3 ^ ~ \\") == (
        r"50\% \& \{x\}\_1 \#2 \$3 \^{} \~{} \textbackslash{}")
    text = bibtex.entry(Record(ibi="x", ibip="", title="A {b}\nc", persistent_url="http://h/x",
                               creators=(Creator("Ünal, Ö."),), date="2020"))
    assert text.startswith("@misc{unal2020a,\n")
    assert "title = {A \\{b\\} c}" in text and "publisher" not in text


def test_archive_service_landing_page_exists_but_is_not_listed(client):
    service = services.ensure_archive_service()
    assert client.get(landing(service)).status_code == 200
    listed = make.item(title="Listed report")
    for word in (service.title.split()[0], "report"):
        home = client.get("/").content.decode()
        search = client.get("/search", {"q": word}).content.decode()
        api = client.get("/api/items/", {"search": word}, secure=True).json()["results"]
        for page in (home, search):
            assert landing(service) not in page and service.ibi not in page, word
        assert service.ibi not in [record["ibi"] for record in api], word
    assert landing(listed) in client.get("/").content.decode()  # what is listed is shown
