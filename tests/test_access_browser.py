"""A request for a copy, in a real browser that prefers Brazilian Portuguese (issue 26): a reader
without an account asks for an embargoed thesis on its landing page, the librarian is mailed
and sees it counted on the admin's index and in its menu (issue 43), approves it in the admin,
the reader gets the mail and downloads the file through its link.

Debian's Chromium driven by Playwright (tests/conftest.py `browser`, `live_site`); mail through
a real SMTP server, aiosmtpd in a process of its own (tests/servers.py `SmtpServer`; the same
path with Django's in-memory outbox is tests/test_access.py's). The request form is
photographed to artifacts/screenshots/; with IBI_DOCS_SCREENSHOTS=1 also to
docs/screenshots/access-request-pt-BR.png, docs/librarians/access.md's picture:

    IBI_DOCS_SCREENSHOTS=1 pytest tests/test_access_browser.py
"""
from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.utils import timezone
from playwright.sync_api import expect

from archive.deposit import services
from archive.models import AccessRequest
from ibirepo.env import env_email
from tests import factories as make
from tests.conftest import PASSWORD
from tests.servers import SmtpServer

DOCS_SCREENSHOT = Path(django_settings.BASE_DIR) / "docs/screenshots/access-request-pt-BR.png"
PDF = b"%PDF-1.4 tese sob embargo\n%%EOF\n"


@pytest.fixture
def smtp(tmp_path, settings, monkeypatch):
    """Django's mail through a real SMTP server in a process of its own."""
    with SmtpServer(tmp_path / "maildir") as server:
        monkeypatch.setenv("EMAIL_URL", server.url)
        for name, value in env_email("EMAIL_URL", "console://").items():
            setattr(settings, name, value)
        yield server


def axe_violations(page) -> list[str]:
    make.with_axe(page)
    return page.evaluate("""async () => (await axe.run(document, {runOnly: ['wcag2a',
        'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']})).violations
        .map(v => v.id + ': ' + v.nodes.map(n => n.target.join(' ')).join(', '))""")


@pytest.mark.usefixtures("eager_tasks")  # mails sent by the task, in process
def test_request_approval_mail_and_download_in_portuguese(live_site, browser, librarian,
                                                          smtp):
    librarian.email = "biblioteca@example.org"
    librarian.save()
    day = timezone.localdate() + timedelta(days=120)
    thesis = make.item(("tese.pdf", PDF, "application/pdf"), language="pt-BR",
                       title="Modelagem da precipitação na Amazônia",
                       dc={"creator": ["Silva, Ana"], "type": ["Tese de doutorado"]},
                       access=services.Access("embargoed", day, "patente em andamento"))
    reader = browser.new_context(locale="pt-BR", viewport={"width": 1280, "height": 800},
                                 accept_downloads=True).new_page()

    # The landing page says why the file is closed, and offers to ask for a copy.
    reader.goto(f"{live_site.url}/items/{thesis.ibi}")
    expect(reader.locator("#access-h")).to_have_text("Acesso")
    expect(reader.locator("section.access")).to_contain_text("estão sob embargo até")
    expect(reader.locator("section.access")).to_contain_text("Motivo: patente em andamento")
    expect(reader.locator("table.files a")).to_have_count(0)  # no link to the file
    reader.get_by_role("link", name="Pedir uma cópia").click()

    expect(reader.get_by_role("heading", level=1)).to_have_text("Pedir uma cópia")
    expect(reader.locator("p.privacy")).to_contain_text("Seu endereço IP não é guardado")
    reader.get_by_label("Seu nome").fill("Ana Souza")
    reader.get_by_label("Seu endereço de email").fill("ana.souza@example.org")
    reader.get_by_label("Por que você precisa dos arquivos").fill(
        "Minha dissertação de mestrado trata do mesmo modelo.")
    reader.evaluate("document.activeElement.blur(); window.scrollTo(0, 0)")
    make.screenshot(reader, "access-request-pt-BR")
    if os.environ.get("IBI_DOCS_SCREENSHOTS") == "1":
        DOCS_SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        reader.screenshot(path=DOCS_SCREENSHOT)
    reader.get_by_role("button", name="Enviar o pedido").click()
    expect(reader.locator("p.notice[role=status]")).to_contain_text("Seu pedido foi enviado")
    request = AccessRequest.objects.get()
    assert (request.name, request.email, request.status) == (
        "Ana Souza", "ana.souza@example.org", "pending")

    # The librarian is told (the staff who may answer, when the collection names no
    # handlers), by a mail in the repository's language whose link opens the request.
    (notice,) = make.wait_until(lambda: [m for m in smtp.messages()
                                         if m["To"] == "biblioteca@example.org"],
                                what="the librarian's notice mailed")
    body = notice.get_payload(decode=True).decode(notice.get_content_charset())
    answer_url = f"{live_site.url}/admin/archive/accessrequest/{request.pk}/change/"
    assert answer_url in body.split() and ":8000" not in body

    # The admin's index counts it and its menu shows a badge, in Portuguese; axe finds
    # nothing on either page.
    admin = browser.new_context(locale="pt-BR", bypass_csp=True).new_page()  # for axe
    admin.goto(f"{live_site.url}/admin/login/?next=/admin/")
    admin.fill("#id_username", "librarian")
    admin.fill("#id_password", PASSWORD)
    admin.click("input[type=submit]")
    expect(admin.locator("p.ibi-pending")).to_have_text("1 pedido de cópia aguarda resposta")
    badge = admin.locator("#content-main tr.model-accessrequest .ibi-badge")
    expect(badge).to_have_text("1 aguardando resposta")  # its hidden words read aloud
    make.screenshot(admin, "admin-index-pending-request-pt-BR")
    assert axe_violations(admin) == []
    admin.goto(answer_url)
    expect(admin.locator("#nav-sidebar tr.model-accessrequest .ibi-badge")).to_contain_text("1")
    expect(admin.locator(".field-status")).to_have_count(0)  # pending: the answer's form
    assert axe_violations(admin) == []
    admin.goto(f"{live_site.url}/admin/archive/accessrequest/")
    expect(admin.locator("#result_list thead")).to_contain_text("Situação")
    expect(admin.locator("#result_list")).to_contain_text("Ana Souza")
    expect(admin.locator("#result_list")).to_contain_text("aguardando")
    admin.locator("#result_list tbody th a").first.click()
    expect(admin.locator(".field-reason .readonly")).to_contain_text("dissertação de mestrado")
    admin.get_by_label("Aprovar: enviar ao leitor, por email, um link secreto para os "
                       "arquivos").check()
    admin.fill("#id_message", "Bom trabalho com a dissertação.")
    admin.locator("input[name=_save]").click()
    expect(admin.locator(".messagelist .success").first).to_contain_text(
        "A resposta está a caminho de ana.souza@example.org.")

    # The mail, through the SMTP server, in the reader's language, with the link; the link
    # opens the file.
    (mail,) = make.wait_until(lambda: [m for m in smtp.messages()
                                       if m["To"] == "ana.souza@example.org"],
                              what="the answer mailed")
    body = mail.get_payload(decode=True).decode(mail.get_content_charset())
    assert mail["To"] == "ana.souza@example.org" and "Prezado(a) Ana Souza" in body
    link = next(word for word in body.split() if "?token=" in word)
    assert link.startswith(f"{live_site.url}/items/{thesis.ibi}?token=")
    reader.goto(link)
    expect(reader.locator("section.access")).to_contain_text("Seu link abre estes arquivos")
    # The page previews the PDF in an <object> from the same URL (private, no-store): the
    # download is clicked once the page's requests are over (a second request for the URL
    # may otherwise wait behind the preview's; the download never began in 2 of 6 runs).
    reader.wait_for_load_state("networkidle")
    with reader.expect_download() as download:
        reader.get_by_role("link", name="tese.pdf", exact=True).click()
    assert Path(download.value.path()).read_bytes() == PDF
