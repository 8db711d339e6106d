"""In a real browser: a librarian deposits through the admin, a reader finds and downloads.

Playwright for Python drives Debian's headless Chromium (/usr/lib/chromium/chromium-headless-shell,
installed by `make system-packages`).
Screenshots go to artifacts/screenshots/ (kept by CI as artifacts; the documentation's are made by
docs/screenshots.py).
"""
from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect

from archive.models import Item
from tests import factories as make
from tests.conftest import PASSWORD

TITLE = "Ensuring <persistence> & access"  # markup must come back as text
PAPER = b"%PDF-1.4 the paper itself\n"
DATA = b"site,year\nINPE,2009\n"


def a_librarian_fills_and_saves_the_add_form(page: Page, url: str) -> None:
    """The admin's add form as a librarian uses it: signed in, two files, Dublin Core, Save."""
    page.goto(f"{url}/admin/login/?next=/admin/archive/item/add/")
    page.fill("#id_username", "librarian")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    expect(page).to_have_url(f"{url}/admin/archive/item/add/")
    page.fill("#id_title", TITLE)
    page.set_input_files("input[name=upload]", [
        {"name": "paper.pdf", "mimeType": "application/pdf", "buffer": PAPER},
        {"name": "data.csv", "mimeType": "text/csv", "buffer": DATA},
    ])
    # The uploader sends both at once; the main file is chosen from their names.
    expect(page.locator("#id_target_file option", has_text="paper.pdf")).to_have_count(1)
    page.select_option("#id_target_file", "paper.pdf")
    page.fill("#id_language", "en")
    page.fill("#id_dc_creator", "Banon, Gerald\nBanon, Lise")
    page.fill("#id_dc_subject", "persistent identifiers")
    page.fill("#id_dc_date", "2009-02-16")
    make.screenshot(page, "admin-deposit")
    page.click("input[name=_save]")
    expect(page.locator(".messagelist .success")).to_be_visible()


def test_a_librarian_deposits_and_a_reader_finds_and_downloads(live_site, browser, librarian):
    context = browser.new_context(accept_downloads=True, viewport={"width": 1100, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_site.url)
    page = context.new_page()

    a_librarian_fills_and_saves_the_add_form(page, live_site.url)

    item = Item.objects.get(title=TITLE)
    assert sorted(item.files.values_list("name", flat=True)) == ["data.csv", "paper.pdf"]
    context.clear_cookies()  # from here on, an anonymous reader

    # The search finds the item, from the search box of the home page.
    page.goto(live_site.url)
    make.screenshot(page, "home")
    page.fill("#home-q", "persistence")
    page.click("form.search.big button[type=submit]")
    result = page.get_by_role("link", name=TITLE)
    expect(result).to_be_visible()
    make.screenshot(page, "search")

    # The landing page: both IBI forms, the persistent URL and a working copy button.
    result.click()
    expect(page).to_have_url(f"{live_site.url}/items/{item.ibi}")
    expect(page.get_by_role("heading", level=1)).to_have_text(TITLE)
    expect(page.locator("#ibi-rep")).to_have_text(item.ibi)
    expect(page.locator("#ibi-ibip")).to_have_text(item.ibip)
    persistent = f"{live_site.url}/{item.ibi}"
    expect(page.locator("#purl")).to_have_attribute("href", persistent)
    copy = page.locator("button.copy[data-copy=purl]")
    expect(copy).to_be_visible()
    copy.click()
    expect(page.get_by_text("Copied.")).to_be_visible()
    assert page.evaluate("navigator.clipboard.readText()") == persistent
    make.screenshot(page, "landing-page")

    # The target file downloads from the landing page's link.
    with page.expect_download() as download:
        page.locator("table.files a", has_text="paper.pdf").click()
    assert download.value.suggested_filename == "paper.pdf"
    assert Path(download.value.path()).read_bytes() == PAPER
    # And so does the persistent URL, through the resolver (redirects followed).
    resolved = page.request.get(persistent)
    assert resolved.ok and resolved.body() == PAPER
    assert resolved.url == f"{live_site.url}/col/{item.ibi}/doc/paper.pdf"
    context.close()


def test_the_landing_page_works_without_javascript(live_site, browser, transactional_db):
    item = make.item(title="Plain <b>HTML</b>", bare=True)
    # And on a phone-sized screen.
    context = browser.new_context(java_script_enabled=False, viewport={"width": 375, "height": 740})
    page = context.new_page()
    page.goto(f"{live_site.url}/items/{item.ibip}")  # the IBIp redirects to the canonical page
    expect(page).to_have_url(f"{live_site.url}/items/{item.ibi}")
    expect(page.get_by_role("heading", level=1)).to_have_text("Plain <b>HTML</b>")
    expect(page.locator("button.copy[data-copy=purl]")).to_be_hidden()
    expect(page.locator("#purl")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 375  # no sideways scrolling
    make.screenshot(page, "landing-page-narrow-no-js")
    context.close()
