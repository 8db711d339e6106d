"""The admin's deposit in a real browser that prefers Brazilian Portuguese (Debian's Chromium,
Playwright): files dropped or chosen upload at once, each with its progress bar, by tus
(static/archive/uploader.js); a validation error keeps them; the main file is chosen from their
names, accents and em dash included; an upload whose connection drops resumes from the last
byte the server holds. Without JavaScript the form keeps its files too.
"""
from __future__ import annotations

import hashlib
import os
import re

import pytest
from playwright.sync_api import Page, expect

from archive.deposit import pending, storage
from archive.models import Item, PendingUpload
from tests import factories as make
from tests.conftest import PASSWORD

REPORT = "Relatório — versão final.pdf"
ADD = "/admin/archive/item/add/"


def signed_in(browser, live_site, **options) -> Page:
    context = browser.new_context(locale="pt-BR", viewport={"width": 1280, "height": 900},
                                  **options)
    page = context.new_page()
    page.goto(f"{live_site.url}/admin/login/?next={ADD}")
    page.fill("#id_username", "librarian")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    expect(page).to_have_url(f"{live_site.url}{ADD}")
    # The uploader starts on DOMContentLoaded: files chosen before it listens would go unseen
    # (on a loaded machine the URL changes well before the page has run its scripts).
    page.wait_for_load_state("load")
    return page


def drop(page: Page, files: dict[str, bytes]) -> None:
    """Files dropped on the uploader's drop zone, as a file manager drops them."""
    page.evaluate("""files => {
        const data = new DataTransfer();
        for (const [name, bytes] of Object.entries(files)) {
            data.items.add(new File([new Uint8Array(bytes)], name));
        }
        const zone = document.querySelector('.ibi-dropzone');
        zone.dispatchEvent(new DragEvent('dragover', {dataTransfer: data, bubbles: true,
                                                      cancelable: true}));
        zone.dispatchEvent(new DragEvent('drop', {dataTransfer: data, bubbles: true,
                                                  cancelable: true}));
    }""", {name: list(data) for name, data in files.items()})


def rows(page: Page):
    return page.locator(".ibi-uploads li.ibi-upload")


def test_dropped_files_upload_with_a_bar_each_survive_a_validation_error_and_one_is_the_main_file(
        live_site, browser, librarian):
    page = signed_in(browser, live_site)
    expect(page.locator(".ibi-dropzone")).to_contain_text("Solte os arquivos aqui, ou escolha-os:")
    page.fill("#id_title", "Relatório técnico")
    files = {REPORT: b"%PDF-1.4 " + os.urandom(3000), "dados.csv": b"a,b\n1,2\n",
             "rascunho.txt": b"fora"}
    drop(page, files)
    expect(rows(page)).to_have_count(3)
    for name in files:
        row = rows(page).filter(has_text=name)
        expect(row.get_by_role("progressbar", name=name)).to_be_visible()
        expect(row.locator(".ibi-state")).to_have_text("enviado")
        expect(row.get_by_role("progressbar")).to_have_attribute("value", "100")
        expect(row.get_by_role("checkbox", name=name)).to_be_checked()
    # One is removed: gone from the form, from the main file's choices and from the server.
    rows(page).filter(has_text="rascunho.txt").get_by_role("button", name="Remover").click()
    expect(rows(page)).to_have_count(2)
    make.wait_until(lambda: PendingUpload.objects.count() == 2, what="the upload terminated")
    expect(page.locator("#id_target_file option")).to_have_text(
        ["— o primeiro arquivo —", REPORT, "dados.csv"])
    # …and from the restricted files offered, one of which is ticked.
    restricted = page.locator("#id_restricted_files input[type=checkbox]")
    expect(restricted).to_have_count(2)
    page.locator("#id_restricted_files input[value='dados.csv']").check()

    page.fill("#id_dc_date", "04/09/2013")
    page.click("input[name=_save]")
    expect(page.locator(".errorlist").first).to_contain_text("não é uma data")
    # Sent back: the files wait, ticked, and are offered as the main file.
    expect(rows(page)).to_have_count(2)
    expect(rows(page).get_by_role("checkbox", name=REPORT)).to_be_checked()
    expect(rows(page).get_by_role("checkbox", name="dados.csv")).to_be_checked()
    expect(page.locator("#id_target_file option")).to_have_text(
        ["— o primeiro arquivo —", REPORT, "dados.csv"])
    expect(restricted).to_have_count(2)  # as the server drew them again, the tick kept
    expect(page.locator("#id_restricted_files input[value='dados.csv']")).to_be_checked()
    make.screenshot(page, "admin-deposit-sent-back-pt-BR")

    page.fill("#id_dc_date", "2013-09-04")
    page.select_option("#id_target_file", label=REPORT)
    page.click("input[name=_save]")
    expect(page.locator(".messagelist .success")).to_contain_text("Depositado “Relatório técnico”")
    item = Item.objects.get(title="Relatório técnico")
    assert item.target_file == REPORT
    assert dict(item.files.values_list("name", "restricted")) == {REPORT: False,
                                                                  "dados.csv": True}
    for name in (REPORT, "dados.csv"):
        assert storage.open_file(item.ibi, name).read() == files[name]
    assert not PendingUpload.objects.exists()


def test_without_javascript_a_validation_error_keeps_the_files_too(live_site, browser,
                                                                   librarian):
    page = signed_in(browser, live_site, java_script_enabled=False)
    page.fill("#id_title", "Sem JavaScript")
    page.set_input_files("#id_upload", [
        {"name": REPORT, "mimeType": "application/pdf", "buffer": b"%PDF-1.4 sem js"},
        {"name": "dados.csv", "mimeType": "text/csv", "buffer": b"a,b\n"}])
    page.fill("#id_dc_date", "ontem")
    page.click("input[name=_save]")
    expect(page.locator(".errorlist").first).to_contain_text("não é uma data")
    expect(rows(page).get_by_role("checkbox", name=REPORT)).to_be_checked()
    expect(rows(page).get_by_role("checkbox", name="dados.csv")).to_be_checked()
    expect(page.get_by_text("Este campo é obrigatório")).to_have_count(0)

    page.fill("#id_dc_date", "2013")
    page.select_option("#id_target_file", label=REPORT)
    page.click("input[name=_save]")
    expect(page.locator(".messagelist .success")).to_contain_text("Depositado “Sem JavaScript”")
    item = Item.objects.get(title="Sem JavaScript")
    assert item.target_file == REPORT
    assert storage.open_file(item.ibi, REPORT).read() == b"%PDF-1.4 sem js"


@pytest.fixture
def small_requests(settings):
    """The uploader sends 64 KiB a request, so that a file takes several."""
    settings.IBI_UPLOAD_CHUNK_SIZE = 64 * 1024
    return settings.IBI_UPLOAD_CHUNK_SIZE


def test_an_upload_whose_connection_drops_resumes_from_the_last_byte_the_server_holds(
        live_site, browser, librarian, small_requests):
    page = signed_in(browser, live_site)
    data = os.urandom(4 * small_requests + 100)
    seen: list[str] = []
    page.on("request", lambda r: seen.append(
        f"{r.method} {r.headers.get('upload-offset', '')}".strip())
        if "/api/uploads/" in r.url else None)
    dropped = []

    def cut_once(route) -> None:
        if (route.request.method == "PATCH" and not dropped
                and route.request.headers.get("upload-offset") == str(2 * small_requests)):
            dropped.append(route.request.url)
            route.abort("connectionreset")
        else:
            route.continue_()

    page.route(re.compile(r"/api/uploads/"), cut_once)
    page.set_input_files("#id_upload", [{"name": "grande.bin", "mimeType":
                                         "application/octet-stream", "buffer": data}])
    expect(rows(page).locator(".ibi-state")).to_have_text("enviado", timeout=30_000)
    assert dropped, "the connection was never cut"
    step = small_requests
    # The request cut at 128 KiB is asked about (HEAD) and sent again from there, not from 0.
    assert seen == ["POST", "PATCH 0", f"PATCH {step}", f"PATCH {2 * step}", "HEAD",
                    f"PATCH {2 * step}", f"PATCH {3 * step}", f"PATCH {4 * step}"], seen
    upload = PendingUpload.objects.get()
    assert upload.sha256 == hashlib.sha256(data).hexdigest()
    assert pending.path_of(upload).read_bytes() == data
