"""The landing page leads with the work, in a browser that prefers Brazilian Portuguese: title,
creators (search links, ORCID iDs), date, type and licence, a Download of the main file with
its name, format and size, the browser's own preview of a PDF (an <object>: Chromium shows no
PDF in a sandboxed <iframe>) or an image, the description, the citation, the files, every
edition with its date (this one marked, a banner when a newer one exists), the identifiers in
a side panel. At 375 and 1280 px the page never scrolls sideways and no word of the file table
breaks inside.
"""
from __future__ import annotations

import pytest

from tests import factories as make

pytestmark = pytest.mark.django_db(transaction=True)

TITLE = make.SHOWCASE_TITLE
PDF, REPORT = make.SHOWCASE_PDF, make.SHOWCASE_REPORT
# Words of the file table that broke inside before (overflow-wrap: anywhere).
WORDS_PER_LINE = """(cells) => cells.flatMap(cell => {
  const broken = [];
  const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const match of node.data.matchAll(/\\S+/g)) {
      const range = document.createRange();
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
      if (tops.size > 1) broken.push(match[0]);
    }
  }
  return broken;
})"""


@pytest.fixture
def editions(settings):
    settings.ARCHIVE_ADDRESS = ""
    files = [("relatório final.pdf", PDF, "application/pdf"),
             ("Tabela de dados de precipitação.csv", b"a,b\n1,2\n", "text/csv")]
    first = make.item(*files, title=TITLE, language="pt-BR", dc=REPORT)
    second = make.item(*files, title=TITLE, language="pt-BR", dc=REPORT, previous_edition=first)
    return first, second


@pytest.fixture
def page(live_site, browser):
    context = browser.new_context(locale="pt-BR", viewport={"width": 1280, "height": 900},
                                  accept_downloads=True)
    yield context.new_page()
    context.close()


def test_the_landing_page_leads_with_the_work_its_download_and_preview(live_site, page,
                                                                        editions):
    _first, item = editions
    page.goto(f"{live_site.url}/items/{item.ibi}")
    file_url = f"{live_site.url}/col/{item.ibi}/doc/relat%C3%B3rio%20final.pdf"
    assert page.locator("h1").inner_text() == TITLE
    authors = page.locator("ul.authors li")
    assert authors.count() == 2
    assert authors.nth(0).locator("a").first.get_attribute("href") == (
        "/search?creator=Silva%2C%20Jo%C3%A3o%20Carlos")
    orcid = authors.nth(0).locator("a.orcid")
    assert orcid.get_attribute("href") == "https://orcid.org/0000-0002-1825-0097"
    assert orcid.locator("img").get_attribute("alt") == (
        "ORCID iD de Silva, João Carlos, não confirmado pelo titular")
    facts = page.locator("p.facts")
    assert "4 de setembro de 2013" in facts.inner_text()
    assert facts.locator("a.chip").inner_text() == "Relatório técnico"
    licence = facts.locator("a.licence")
    assert licence.get_attribute("href") == "https://creativecommons.org/licenses/by/4.0/"
    assert licence.inner_text() == "Creative Commons Atribuição 4.0 (CC BY 4.0)"

    download = page.locator("a.download")
    assert " ".join(download.inner_text().split()) == (
        f"Baixar relatório final.pdf PDF, {len(PDF)} bytes")
    assert download.get_attribute("href") == file_url
    with page.expect_download() as saving:
        download.click()
    assert saving.value.suggested_filename == "relatório final.pdf"
    preview = page.locator("object.preview")
    assert preview.get_attribute("data") == file_url + "#navpanes=0"
    assert preview.get_attribute("type") == "application/pdf"
    assert preview.bounding_box()["height"] > 300
    assert page.locator("p.description").inner_text() == make.SHOWCASE_DESCRIPTION
    side = page.locator("aside.side")
    assert item.ibi in side.inner_text() and item.ibip in side.inner_text()
    assert side.locator("#purl").get_attribute("href") == f"{live_site.url}/{item.ibi}"
    # Keyboard: from the last creator's ORCID link, Tab goes to the type, the licence and then
    # the download (the preview's viewer, once loaded, may hold the focus: start after it).
    page.goto(f"{live_site.url}/items/{item.ibi}")
    page.wait_for_load_state("networkidle")
    page.locator("ul.authors a").last.focus()
    visited = []
    for _ in range(3):
        page.keyboard.press("Tab")
        visited.append(page.evaluate("document.activeElement.className"))
    assert visited == ["chip", "licence", "download"]


def test_an_image_is_previewed_and_a_file_without_preview_is_only_downloaded(live_site, page):
    png = make.item(("mapa.png", b"\x89PNG\r\n\x1a\n" + b"\0" * 64, "image/png"), title="Mapa",
                    language="pt-BR")
    data = make.item(("dados.csv", b"a,b\n", "text/csv"), title="Dados", language="pt-BR")
    page.goto(f"{live_site.url}/items/{png.ibi}")
    assert page.locator("img.preview").get_attribute("src") == (
        f"{live_site.url}/col/{png.ibi}/doc/mapa.png")
    assert page.locator("img.preview").get_attribute("alt") == "Prévia de mapa.png"
    page.goto(f"{live_site.url}/items/{data.ibi}")
    assert page.locator("a.download").count() == 1
    assert page.locator(".preview").count() == 0


def test_an_older_edition_says_a_newer_one_exists_and_the_timeline_marks_this_one(
        live_site, page, editions):
    first, second = editions
    page.goto(f"{live_site.url}/items/{first.ibi}")
    banner = page.locator("p.newer")
    assert banner.inner_text() == "Existe uma edição mais recente desta obra: edição 2."
    assert page.locator("article > *").first.evaluate("e => e.classList.contains('newer')")
    timeline = page.locator("ol.timeline li")
    assert timeline.count() == 2
    assert timeline.nth(0).get_attribute("aria-current") == "page"
    assert "Edição 1 (esta)" in timeline.nth(0).inner_text()
    banner.locator("a").click()
    page.wait_for_url(f"{live_site.url}/items/{second.ibi}")
    assert page.locator("p.newer").count() == 0
    assert page.locator("ol.timeline li").nth(1).get_attribute("aria-current") == "page"
    assert page.locator("ol.timeline li").nth(0).locator("a").get_attribute("href") == (
        f"/items/{first.ibi}")


# A 120-character file name, as a thesis's annex is named: the file table scrolled sideways
# inside its box at 375 and at 1280 px before issue 43.
LONG_NAME = ("Anexo_B-Modelagem_hidrologica_da_precipitacao_na_Amazonia_Oriental-series_"
             "diarias_de_1980_a_2020-versao_revisada-fim.pdf")
# Every element that scrolls, or would, sideways: its content wider than its box (an element
# that clips what overflows, as the visually hidden ones do, shows nothing sideways).
SIDEWAYS = """() => [document.documentElement, ...document.body.querySelectorAll('*')]
  .filter(e => {
    const style = getComputedStyle(e);
    return style.display !== 'none' && !['hidden', 'clip'].includes(style.overflowX)
      && e.clientWidth > 0 && e.scrollWidth > e.clientWidth;
  })
  .map(e => e.tagName.toLowerCase() + (e.className ? '.' + e.className : ''))"""


def test_nothing_scrolls_sideways_and_no_word_of_the_file_table_breaks(live_site, browser,
                                                                        editions):
    assert len(LONG_NAME) == 120
    _first, item = editions
    long = make.item((LONG_NAME, PDF, "application/pdf"),
                     ("relatório final.pdf", PDF, "application/pdf"), title=TITLE,
                     language="pt-BR", dc=REPORT)
    for width in (375, 1280):
        context = browser.new_context(locale="pt-BR", viewport={"width": width, "height": 800},
                                      bypass_csp=True)  # for axe's script
        page = context.new_page()
        for shown in (item, long):
            page.goto(f"{live_site.url}/items/{shown.ibi}")
            assert page.evaluate(SIDEWAYS) == [], (width, shown.ibi)
            cells = page.locator("table.files th:visible, table.files td:visible")
            assert cells.count() >= 4
            assert cells.evaluate_all(WORDS_PER_LINE) == []
            headers = page.locator("table.files thead th:visible").all_inner_texts()
            assert headers[:2] == ["Arquivo", "Tamanho"]
            # A phone shows the name and the size; a wide screen the type and checksum too.
            assert len(headers) == (2 if width == 375 else 4)
        assert page.locator("table.files td.name a").first.inner_text() == LONG_NAME
        make.with_axe(page)
        found = page.evaluate("""async () => (await axe.run(document, {runOnly: ['wcag2a',
            'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']})).violations
            .map(v => v.id + ': ' + v.nodes.map(n => n.target.join(' ')).join(', '))""")
        assert found == [], width
        context.close()


@pytest.mark.parametrize("level", ["restricted", "embargoed", "metadata-only"])
def test_a_closed_main_file_is_never_offered_nor_previewed(client, level):
    """The landing page asks archive/access/policy.py (through the page's file rows): a
    file the reader may not have has no Download and no preview; the page offers what the
    access section offers (a request for a copy) instead."""
    from datetime import date

    from archive.models import Item

    item = make.item(("relatório.pdf", PDF, "application/pdf"), title=TITLE, language="pt-BR",
                     dc=REPORT)
    Item.objects.filter(pk=item.pk).update(
        access_rights=level, embargo_until=date(2099, 1, 1) if level == "embargoed" else None)
    page = client.get(f"/items/{item.ibi}", HTTP_ACCEPT_LANGUAGE="pt-BR").content.decode()
    assert 'class="download"' not in page and 'class="preview"' not in page
    assert f"/col/{item.ibi}/doc/" not in page
    if level != "metadata-only":
        assert f'href="/items/{item.ibi}/request"' in page


def test_subjects_and_creators_in_the_details_link_to_a_search_that_finds_the_item(client):
    item = make.item(("relatório.pdf", PDF, "application/pdf"), title=TITLE, language="pt-BR",
                     dc=REPORT)
    other = make.item(("outro.pdf", PDF), title="Outro", language="pt-BR",
                      dc={"subject": ["clima"]})
    for url in (f"/items/{item.ibi}", f"/items/{item.ibi}/metadata"):
        page = client.get(url, HTTP_ACCEPT_LANGUAGE="pt-BR").content.decode()
        assert '<a href="/search?subject=Amaz%C3%B4nia">Amazônia</a>' in page, url
        assert '<a href="/search?subject=clima">clima</a>' in page
        assert '<a href="/search?creator=Souza%2C%20Maria">Souza, Maria</a>' in page
        assert '<a href="/search?publisher=' not in page  # a publisher is no search filter
    found = client.get("/search?subject=Amaz%C3%B4nia", HTTP_ACCEPT_LANGUAGE="pt-BR")
    assert f"/items/{item.ibi}" in found.content.decode()
    assert f"/items/{other.ibi}" not in found.content.decode()
