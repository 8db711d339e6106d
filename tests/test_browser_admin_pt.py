"""In a real browser that prefers Brazilian Portuguese: a librarian deposits an item, a new
edition of it and a translation of it through the admin, entirely in Portuguese; the item list
and the file table fit a 1280 px screen and a phone's.

Debian's Chromium, driven by Playwright, as in tests/test_browser.py (its fixtures). The
screenshots go to artifacts/screenshots/; with IBI_DOCS_SCREENSHOTS=1 the deposit form's is
also written to docs/screenshots/admin-deposit-pt-BR.png, docs/librarians/site.md's picture:

    IBI_DOCS_SCREENSHOTS=1 pytest tests/test_browser_admin_pt.py -k deposits
"""
from __future__ import annotations

import os
import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.utils import timezone
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from archive.models import Item
from tests import factories as make
from tests.conftest import PASSWORD

DOCS_SCREENSHOT = Path(django_settings.BASE_DIR) / "docs/screenshots/admin-deposit-pt-BR.png"
TECHNICAL_REPORT = "http://purl.org/coar/resource_type/c_18gh"
CC_BY = "https://creativecommons.org/licenses/by/4.0/"
ADD = "/admin/archive/item/add/"


def log_in_in_portuguese(page: Page, url: str, next_url: str = ADD) -> None:
    page.goto(f"{url}/admin/login/?next={next_url}")
    page.fill("#id_username", "librarian")
    page.fill("#id_password", PASSWORD)
    expect(page.locator("input[type=submit]")).to_have_value("Acessar")
    page.click("input[type=submit]")
    expect(page).to_have_url(f"{url}{next_url}")


def fill_the_deposit(page: Page, title: str, language: str, file_name: str) -> None:
    page.fill("#id_title", title)
    page.set_input_files("input[name=upload]", [{
        "name": file_name, "mimeType": "application/pdf", "buffer": title.encode()}])
    page.fill("#id_language", language)
    page.fill("#id_dc_creator", "Banon, Gerald | 0000-0002-1825-0097\nBanon, Lise")
    page.select_option("#id_dc_type", label="Relatório técnico")
    page.select_option("#id_dc_rights", label="Creative Commons Atribuição 4.0 (CC BY 4.0)")
    page.fill("#id_dc_date", "2013-09-04")


def pick(page: Page, field: str, typed: str, choice: str) -> None:
    """Choose an item in one of the admin's pickers (select2) by typing part of its title."""
    page.click(f"#id_{field} + .select2 .select2-selection")
    page.fill(".select2-container--open .select2-search__field", typed)
    option = page.locator(".select2-results__option", has_text=choice)
    expect(option).to_be_visible()
    option.click()


def save_and_land_on_the_item(page: Page, title: str) -> Item:
    save = page.locator("input[name=_save]")
    expect(save).to_have_value("Salvar")
    save.click()
    item = Item.objects.get(title=title)
    message = page.locator(".messagelist .success")
    expect(message).to_have_text(f"Depositado “{title}”: {item.ibi}, {item.ibip}.")
    expect(page).to_have_url(re.compile(rf"/admin/archive/item/{item.pk}/change/$"))
    expect(page.locator(".field-ibi .readonly")).to_have_text(item.ibi)
    expect(page.locator(".field-ibip .readonly")).to_have_text(item.ibip)
    expect(page.locator("label", has_text="URL persistente")).to_be_visible()
    return item


def test_a_brazilian_librarian_deposits_an_edition_and_a_translation_in_portuguese(
        live_site, browser, librarian):
    context = browser.new_context(locale="pt-BR", viewport={"width": 1280, "height": 800})
    page = context.new_page()
    log_in_in_portuguese(page, live_site.url)

    # The deposit form, in Portuguese: labels, vocabularies, buttons.
    expect(page.get_by_role("heading", level=1)).to_have_text("Adicionar item")
    for label in ("Título", "Idioma", "Arquivo principal", "Edição anterior", "Tradução de",
                  "Autor", "Tipo", "Direitos", "Data"):
        expect(page.locator("label", has_text=re.compile(rf"^{label}:?$")).first).to_be_visible()
    expect(page.locator("#id_dc_type option", has_text="Conjunto de dados")).to_have_count(1)
    fill_the_deposit(page, "Relatório técnico sobre identificadores", "pt-BR", "relatorio.pdf")
    page.evaluate("document.activeElement.blur(); window.scrollTo(0, 0)")
    screenshot_of_the_deposit_form(page)
    first = save_and_land_on_the_item(page, "Relatório técnico sobre identificadores")
    assert first.dc("type") == [TECHNICAL_REPORT] and first.dc("rights") == [CC_BY]
    assert first.language == "pt-BR" and first.dc("date") == ["2013-09-04"]

    # A new edition: the picker names the first by its edition and date.
    page.goto(f"{live_site.url}{ADD}")
    fill_the_deposit(page, "Relatório técnico sobre identificadores, 2ª ed.", "pt-BR",
                     "relatorio-2.pdf")
    pick(page, "previous_edition", "Relatório técnico sobre",
         f"Relatório técnico sobre identificadores — 1ª edição, 2013-09-04 · {first.ibi}")
    second = save_and_land_on_the_item(page, "Relatório técnico sobre identificadores, 2ª ed.")
    assert second.previous_edition == first and second.edition_number == 2
    expect(page.locator(".field-edition .readonly")).to_have_text(f"2ª (primeira: {first.ibi})")

    # A translation of the first, into English.
    page.goto(f"{live_site.url}{ADD}")
    fill_the_deposit(page, "Technical report on identifiers", "en", "report.pdf")
    pick(page, "translation_of", "Relatório técnico sobre identificadores",
         f"Relatório técnico sobre identificadores — 1ª edição, 2013-09-04 · {first.ibi}")
    translation = save_and_land_on_the_item(page, "Technical report on identifiers")
    assert translation.translation_of == first and translation.language == "en"
    make.screenshot(page, "admin-translation-pt-BR")

    # Refusals speak Portuguese too.
    page.goto(f"{live_site.url}{ADD}")
    fill_the_deposit(page, "Data errada", "pt-BR", "errada.pdf")
    page.fill("#id_dc_date", "04/09/2013")
    page.click("input[name=_save]")
    expect(page.locator(".errorlist").first).to_have_text(
        "'04/09/2013' não é uma data: escreva-a em ISO 8601, p. ex. "
        "2013, 2013-09, 2013-09-04, 2013/2014")
    assert not Item.objects.filter(title="Data errada").exists()
    context.close()


def screenshot_of_the_deposit_form(page: Page) -> None:
    """The deposit form at 1280×800, as docs/librarians/site.md shows it."""
    make.screenshot(page, "admin-deposit-pt-BR")
    if os.environ.get("IBI_DOCS_SCREENSHOTS") == "1":
        DOCS_SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=DOCS_SCREENSHOT)


LONG_TITLE = ("Avaliação da precipitação estimada por satélite sobre a Amazônia Legal "
              "com dados de radar meteorológico e pluviômetros")
LONG_FILE = "relatorio_final_precipitacao-estimada-por-satelite_amazonia-legal_2013-09-04.pdf"


@pytest.mark.parametrize("width", [1280, 375])
def test_the_item_list_and_the_file_table_fit_the_screen(live_site, browser, librarian,
                                                         width):
    item = make.item((LONG_FILE, b"%PDF-1.4 long"), ("dados.csv", b"a,b\n"), title=LONG_TITLE,
                     language="pt-BR")
    make.item(title="Outro item", bare=True)
    context = browser.new_context(locale="pt-BR",
                                            viewport={"width": width, "height": 800})
    page = context.new_page()
    log_in_in_portuguese(page, live_site.url, "/admin/archive/item/")

    expect(page.get_by_role("link", name=LONG_TITLE)).to_be_visible()
    assert no_sideways_scrolling(page)
    make.screenshot(page, f"admin-item-list-{width}")

    page.goto(f"{live_site.url}/admin/archive/item/{item.pk}/change/")
    name = page.locator("table.ibi-files:not(.ibi-events) a", has_text="relatorio_final")
    expect(name).to_be_visible()
    assert no_sideways_scrolling(page)
    # The file name wraps at its separators, not inside a word: every line of the link ends
    # with a whole piece of the name.
    assert name.evaluate("a => a.innerText").replace("\n", "") == LONG_FILE
    make.screenshot(page, f"admin-item-{width}")
    page.screenshot(path=make.SCREENSHOTS / f"admin-item-top-{width}.png")
    page.locator("table.ibi-files:not(.ibi-events)").screenshot(
        path=make.SCREENSHOTS / f"admin-file-table-{width}.png")
    context.close()


def no_sideways_scrolling(page: Page) -> bool:
    """True once the page, loaded, is no wider than the screen (within five seconds: the
    admin's scripts lay the form out after the load event; on a loaded machine it was once
    measured before they had). Else the elements that stick out are printed."""
    page.wait_for_load_state("load")
    try:
        page.wait_for_function("() => document.documentElement.scrollWidth <= window.innerWidth",
                               timeout=5000)
    except PlaywrightTimeoutError:
        print(page.evaluate("""() => [
            'scrollX ' + window.scrollX + ', scrollWidth '
                + document.documentElement.scrollWidth + ', body ' + document.body.scrollWidth,
            ...[...document.querySelectorAll('body *')].filter(e => {
                const r = e.getBoundingClientRect();
                return r.right > window.innerWidth + 1 || r.left < -1
                    || e.scrollWidth > e.clientWidth + 1; })
            .slice(0, 12).map(e => e.tagName + '#' + e.id + '.' + e.className + ' '
                + Math.round(e.getBoundingClientRect().left) + '…'
                + Math.round(e.getBoundingClientRect().right) + ' sw ' + e.scrollWidth
                + '/' + e.clientWidth)]"""))
        return False
    return True



def test_a_brazilian_librarian_changes_two_items_access_and_catalogues_a_print_only_thesis(
        live_site, browser, librarian):
    """Issue 43, in Portuguese: two items embargoed at once with a reason, from the item list
    through its confirmation page; a metadata-only record deposited with no file; a file
    chosen as restricted among those just uploaded. axe-core finds nothing on any page."""
    a, b = make.item(title="Tese A"), make.item(title="Tese B")
    later = (timezone.localdate() + timedelta(days=120)).isoformat()
    context = browser.new_context(locale="pt-BR", bypass_csp=True,
                                            viewport={"width": 1280, "height": 800})
    page = context.new_page()
    log_in_in_portuguese(page, live_site.url, "/admin/archive/item/")
    found = {}

    for item in (a, b):
        page.check(f"input[name=_selected_action][value='{item.pk}']")
    page.select_option("select[name=action]", label="Alterar nível de acesso ou embargo")
    page.click("button[name=index]")
    expect(page.get_by_role("heading", level=1)).to_have_text("Alterar o acesso de itens")
    expect(page.locator("#content h2")).to_have_text("2 itens selecionados")
    found["alterar o acesso"] = make.axe_violations(page)
    page.select_option("#id_access_rights", label="embargado")
    page.fill("#id_embargo_until", later)
    page.fill("#id_reason", "Patente em análise")
    make.screenshot(page, "admin-bulk-access-pt-BR")
    page.click("input[value='Sim, alterar o acesso']")
    expect(page.locator(".messagelist .success")).to_have_text(
        "Acesso alterado para embargado em 2 itens.")
    found["lista"] = make.axe_violations(page)
    for item in (a, b):
        item.refresh_from_db()
        assert (item.access_rights, item.embargo_until.isoformat(), item.access_reason) == (
            "embargoed", later, "Patente em análise")

    # A print-only thesis catalogued: metadata only, no file.
    page.goto(f"{live_site.url}{ADD}")
    page.fill("#id_title", "Tese impressa de 1975")
    page.select_option("#id_access_rights", label="somente metadados")
    page.fill("#id_dc_creator", "Banon, Gerald")
    found["adicionar"] = make.axe_violations(page)
    thesis = save_and_land_on_the_item(page, "Tese impressa de 1975")
    assert (thesis.access_rights, thesis.files.count()) == ("metadata-only", 0)
    found["item sem arquivo"] = make.axe_violations(page)
    landing = page.goto(f"{live_site.url}/{thesis.ibi}")
    assert landing.ok and page.url == f"{live_site.url}/items/{thesis.ibi}"
    expect(page.get_by_role("heading", level=1)).to_have_text("Tese impressa de 1975")

    # Restricted files chosen among the files just uploaded.
    page.goto(f"{live_site.url}{ADD}")
    page.fill("#id_title", "Artigo com dados")
    page.set_input_files("#id_upload", [
        {"name": "artigo.pdf", "mimeType": "application/pdf", "buffer": b"%PDF-1.4"},
        {"name": "dados.csv", "mimeType": "text/csv", "buffer": b"a,b\n"}])
    boxes = page.locator("#id_restricted_files input[type=checkbox]")
    expect(boxes).to_have_count(2)
    found["adicionar (enviados)"] = make.axe_violations(page)
    page.locator("#id_restricted_files input[value='dados.csv']").check()
    article = save_and_land_on_the_item(page, "Artigo com dados")
    assert {f.name: f.restricted for f in article.files.all()} == {"artigo.pdf": False,
                                                                  "dados.csv": True}
    context.close()
    assert found == {name: [] for name in found}, found
