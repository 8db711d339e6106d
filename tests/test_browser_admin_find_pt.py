"""In a real browser, in Brazilian Portuguese: a librarian finds an item imported from DSpace
in the admin's list by the Handle it had there, narrows the list with its filters, and the
list of long titles fits a 1280 px screen; axe-core finds nothing wrong on the list.

Debian's Chromium, driven by Playwright, with tests/test_browser_admin_pt.py's fixtures."""
from __future__ import annotations

import json
import os
from pathlib import Path

from django.conf import settings as django_settings
from playwright.sync_api import Page, expect

from tests import factories as make
from tests.test_admin_accessibility import violations
from tests.test_browser_admin_pt import log_in_in_portuguese, no_sideways_scrolling

LIST = "/admin/archive/item/"
# The README's picture of the list: `IBI_DOCS_SCREENSHOTS=1` writes it (tests/test_browser.py).
DOCS_SCREENSHOT = Path(django_settings.BASE_DIR) / "docs/screenshots/admin-list-pt-BR.png"
HANDLE = "123456789/4242"
REPORT = "http://purl.org/coar/resource_type/c_18gh"
LONG_TITLES = [
    "Avaliação da precipitação estimada por satélite sobre a Amazônia Legal com dados de "
    "radar meteorológico e pluviômetros de superfície entre 1998 e 2013",
    "Modelagem numérica da circulação atmosférica na região Sul do Brasil durante eventos "
    "extremos de precipitação associados a complexos convectivos de mesoescala",
    "Sensoriamento remoto aplicado ao mapeamento do desmatamento e da degradação florestal "
    "no Cerrado brasileiro: séries temporais de imagens Landsat e Sentinel-2",
]


def open_the_list(browser, live_site) -> Page:
    # bypass_csp: axe-core is loaded as an inline script (test_admin_accessibility.py).
    context = browser.new_context(locale="pt-BR", bypass_csp=True,
                                            viewport={"width": 1280, "height": 800})
    page = context.new_page()
    log_in_in_portuguese(page, live_site.url, LIST)
    return page


def test_a_librarian_finds_an_imported_item_by_its_old_handle(
        live_site, browser, librarian):
    old = make.from_dspace(make.item(title="Relatório de atividades de 2004",
                                     dc={"creator": ["Banon, Gerald"], "type": [REPORT]}),
                           handle=HANDLE)
    for title in LONG_TITLES:
        make.item(title=title, bare=True)
    page = open_the_list(browser, live_site)

    # The filters, in Portuguese, beside the list.
    filters = page.locator("#changelist-filter")
    for heading in ("Por tipo", "Por acesso", "Por coleção", "Por ano"):
        expect(filters.get_by_text(heading, exact=True)).to_be_visible()

    # The Handle as a citation prints it, pasted into the search box.
    page.fill("#searchbar", f"http://hdl.handle.net/{HANDLE}")
    page.press("#searchbar", "Enter")
    expect(page.locator("#result_list tbody tr")).to_have_count(1)
    expect(page.get_by_role("link", name="Relatório de atividades de 2004")).to_be_visible()
    expect(page.locator("#result_list tbody tr td.field-ibi_column")).to_have_text(old.ibi)
    make.screenshot(page, "admin-item-list-handle-pt-BR")
    assert (found := violations(page)) == [], json.dumps(found, indent=1, ensure_ascii=False)
    page.context.close()


def test_the_list_of_long_titles_fits_1280_px_with_its_filters(
        live_site, browser, librarian):
    for n, title in enumerate(LONG_TITLES):
        make.item(title=title, language="pt-BR", bare=True,
                  dc={"creator": ["Banon, Gerald"], "type": [REPORT], "date": [f"201{n}"]})
    page = open_the_list(browser, live_site)

    expect(page.locator("#result_list tbody tr")).to_have_count(len(LONG_TITLES))
    expect(page.locator("#changelist-filter")).to_be_visible()
    make.screenshot(page, "admin-item-list-long-titles-1280")
    if os.environ.get("IBI_DOCS_SCREENSHOTS") == "1":
        page.screenshot(path=DOCS_SCREENSHOT)
    assert no_sideways_scrolling(page)
    # The titles take the room the other columns give up: none is squeezed to a word a line.
    widths = page.locator("#result_list td.field-title, #result_list th.field-title").evaluate_all(
        "cells => cells.map(c => c.getBoundingClientRect().width)")
    assert len(widths) == len(LONG_TITLES) and min(widths) >= 240, widths
    page.context.close()
