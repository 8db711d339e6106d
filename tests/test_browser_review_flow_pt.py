"""Self-deposit through review, end to end, in a real browser that prefers Brazilian Portuguese
(issue 35's "Done when"): a student signs in at /accounts/login/ and submits a dissertation
in a collection with MTD-BR's thesis profile and DSpace's three steps; a reviewer, in a
browser context of her own, claims it on /review/ and returns it with a reason; the student
reads the reason, changes the work and submits it again; the reviewer approves it, an editor
approves the edit and the final edit; it is published, and its IBI's persistent URL opens
its page. Each person's page lists the checks before review (clamscan with a signature
database sigtool made here). axe-core finds nothing on any page touched.

The mails go through a real SMTP server, aiosmtpd in a process of its own (tests/servers.py
`SmtpServer`), the live server's EMAIL settings pointed at it; the mails are written in the
repository's language (LANGUAGE_CODE pt-br). One Chromium (tests/conftest.py), a context per
person. With IBI_DOCS_SCREENSHOTS=1 it also photographs the returned submission's page and the
reviewer's queue for the README (docs/screenshots/):

    IBI_DOCS_SCREENSHOTS=1 pytest tests/test_browser_review_flow_pt.py
"""
from __future__ import annotations

import os
from email.header import decode_header, make_header
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.conf import settings as django_settings
from django.contrib.auth.models import Group
from playwright.sync_api import Page, expect

from archive.models import Item, Submission, SubmissionProfile
from ibirepo.env import env_email
from tests import factories as make
from tests.servers import SmtpServer
from tests.test_admin_profiles import THESIS_FORM

pytestmark = pytest.mark.usefixtures("eager_tasks")  # nudged work (checks, mails) in process

DESK, PHONE = {"width": 1280, "height": 800}, {"width": 375, "height": 740}
DOCS = Path(django_settings.BASE_DIR) / "docs" / "screenshots"
TITLE = "Repositórios institucionais e identificadores persistentes"
REASON = "Falta o resumo em inglês completo; inclua também as palavras-chave em inglês."


@pytest.fixture
def smtp(tmp_path, settings, monkeypatch):
    """Django's mail through a real SMTP server in a process of its own."""
    with SmtpServer(tmp_path / "maildir") as server:
        monkeypatch.setenv("EMAIL_URL", server.url)
        for name, value in env_email("EMAIL_URL", "console://").items():
            setattr(settings, name, value)
        yield server


def _accessible(page: Page, name: str) -> None:
    page.evaluate("document.activeElement.blur(); window.scrollTo(0, 0)")
    assert make.axe_violations(page) == [], name
    make.screenshot(page, f"review-flow-{name}-pt-BR")


def _for_the_docs(page: Page, name: str) -> None:
    if os.environ.get("IBI_DOCS_SCREENSHOTS") == "1":
        DOCS.mkdir(parents=True, exist_ok=True)
        page.evaluate("document.activeElement.blur(); window.scrollTo(0, 0)")
        page.screenshot(path=DOCS / f"{name}.png")


def _signed_in(browser, url: str, email: str, *, checked: bool = False) -> Page:
    """A person's own browser context, signed in through /accounts/login/ (its page and the
    account's `checked` by axe)."""
    context = browser.new_context(locale="pt-BR", viewport=DESK, bypass_csp=True)
    page = context.new_page()
    page.goto(f"{url}/accounts/login/")
    if checked:
        _accessible(page, "login")
    page.get_by_label("Endereço de email").fill(email)
    page.get_by_label("Senha").fill(make.ACCOUNT_PASSWORD)
    page.get_by_role("main").get_by_role("button", name="Entrar").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Minha conta")
    if checked:
        _accessible(page, "account")
    return page


def _received(smtp: SmtpServer) -> list[tuple[str, str, str]]:
    """(to, subject, text) of each mail the SMTP server received (its headers decoded)."""
    return [(m["To"], str(make_header(decode_header(m["Subject"]))),
             m.get_payload(decode=True).decode(m.get_content_charset()))
            for m in smtp.messages()]


def _mails(smtp: SmtpServer, to: str, subject: str, count: int = 1) -> list[str]:
    """The texts of the mails to `to` with this subject, once `count` of them arrived."""
    def arrived() -> list:
        found = [text for (address, title, text) in _received(smtp)
                 if address == to and title == subject]
        return found if len(found) >= count else []

    return make.wait_until(arrived, timeout=10, what=f"{count} {subject!r} mailed to {to}")


def _claimed_from_the_queue(page: Page, url: str, step: str) -> None:
    """On /review/ (reached by the header's link), the task of the step claimed from its row,
    then its page opened."""
    page.goto(f"{url}/accounts/")
    page.get_by_role("navigation").get_by_role("link", name="Revisão").click()
    row = page.get_by_role("row").filter(has_text=TITLE)
    expect(row).to_contain_text(step)
    row.get_by_role("button", name=f"Assumir {TITLE}").click()
    expect(page.locator("p.notice[role=status]")).to_have_text("Esta tarefa agora é sua.")
    page.get_by_role("link", name=TITLE).click()
    expect(page.get_by_role("heading", level=1)).to_have_text(TITLE)


def test_a_dissertation_is_returned_resubmitted_approved_and_published_in_portuguese(
        live_site, browser, smtp, settings, tmp_path):
    settings.FILE_UPLOAD_TEMP_DIR = str(tmp_path)
    pdf = make.pdf("Repositorios institucionais")
    settings.LANGUAGE_CODE = "pt-br"  # the repository's language: its mails'
    settings.ARCHIVE_ADDRESS = urlsplit(live_site.url).netloc  # the links the mails give
    settings.IBI_RESOLVER_URL = ""
    settings.IBI_CLAMAV_DB = str(make.clamav_database(tmp_path / "clamav", b"no such file\n"))
    settings.IBI_CLAMSCAN = "clamscan"
    theses = make.collection("teses-ppgc", make.community("ppgc"),
                             profile=SubmissionProfile.objects.get(slug="tese"),
                             deposit_licence=make.LICENCE)
    make.reviewed(theses, "three", submitter="Estudantes", reviewer="Revisores",
                  editor="Editores")
    people = {"maria": ("maria.souza@example.org", "Estudantes"),
              "rita": ("rita.lima@example.org", "Revisores"),
              "edu": ("eduardo.costa@example.org", "Editores")}
    for name, (email, group) in people.items():
        make.account(email, name=name.title()).groups.add(Group.objects.get(name=group))
    student = _signed_in(browser, live_site.url, people["maria"][0], checked=True)

    # The student starts a dissertation from the header's link, fills it in and submits it.
    student.get_by_role("navigation").get_by_role("link", name="Submeter").click()
    expect(student.get_by_role("heading", level=1)).to_have_text("Suas submissões")
    _accessible(student, "list")
    student.select_option("#new-collection", label="Coleção teses-ppgc")
    student.get_by_role("button", name="Iniciar uma submissão").click()
    student.fill("#id_title", TITLE)
    student.fill("#id_language", "pt-BR")
    for name, value in THESIS_FORM.items():
        name = "md_dc_publisher" if name == "dc_publisher" else name  # no classic field here
        if name == "md_local_degree_level":
            student.select_option(f"#id_{name}", label="Mestrado")
        elif name == "md_dc_subject_cnpq":
            for n, code in enumerate(value):
                student.fill(f"#id_{name}_{n}", code)
        elif name.startswith("md_"):
            student.fill(f"#id_{name}", value)
    student.set_input_files("input[name=upload]", [{
        "name": "dissertacao.pdf", "mimeType": "application/pdf",
        "buffer": pdf}])
    expect(student.locator(".ibi-upload .ibi-state")).to_have_text("enviado")
    student.get_by_label("Li a licença de depósito acima e a aceito").check()
    _accessible(student, "form")
    student.get_by_role("button", name="Submeter", exact=True).click()
    expect(student.locator("p.notice[role=status]")).to_have_text(
        "Submetida: agora aguarda revisão.", timeout=30_000)
    # The checks before review ran after the commit: each result listed, in Portuguese.
    checks = student.locator("ul.check-results")
    expect(checks).to_contain_text("Aprovada Busca de vírus (arquivo dissertacao.pdf): "
                                   "dissertacao.pdf: nenhum vírus encontrado")
    expect(checks).to_contain_text("dissertacao.pdf tem camada de texto")
    _accessible(student, "submitted")
    submission = Submission.objects.get(title=TITLE)
    [pool] = _mails(smtp, people["rita"][0], f"Aguardando revisão: {TITLE}")
    assert f"{live_site.url}/review/" in pool and "teses-ppgc" in pool

    # The reviewer claims it from her queue and returns it, with a reason.
    reviewer = _signed_in(browser, live_site.url, people["rita"][0])
    _claimed_from_the_queue(reviewer, live_site.url, "revisão")
    expect(reviewer.locator("ul.check-results")).to_contain_text("nenhum vírus encontrado")
    _accessible(reviewer, "task")
    reviewer.fill("#return-reason", REASON)
    reviewer.get_by_role("button", name="Devolver ao submetedor").click()
    expect(reviewer.locator("p.notice[role=status]")).to_have_text(
        "Devolvida ao submetedor, com o seu motivo.")
    _accessible(reviewer, "queue-empty")
    [returned] = _mails(smtp, people["maria"][0], f"Devolvida a você: {TITLE}")
    assert REASON in returned

    # The student reads why, changes the abstract and submits it again.
    student.goto(f"{live_site.url}/submit/")
    expect(student.get_by_role("row").filter(has_text=TITLE)).to_contain_text(REASON)
    student.get_by_role("link", name=TITLE).click()
    expect(student.locator(".returned")).to_contain_text(REASON)
    _accessible(student, "returned")
    _for_the_docs(student, "submit-pt-BR")
    student.set_viewport_size(PHONE)  # the reason and the checks' results fit a phone too
    assert student.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    _accessible(student, "returned-375")
    student.set_viewport_size(DESK)
    student.fill("#id_md_dc_description_abstract_en",
                 "An abstract, complete.\n\nKeywords: repositories, persistent identifiers.")
    student.get_by_role("button", name="Submeter de novo").click()
    expect(student.locator("p.notice[role=status]")).to_have_text(
        "Submetida: agora aguarda revisão.")

    # The reviewer approves it this time; an editor approves the edit and the final edit.
    _claimed_from_the_queue(reviewer, live_site.url, "revisão")
    reviewer.get_by_role("button", name="Aprovar").click()
    expect(reviewer.locator("p.notice[role=status]")).to_have_text("Aprovada.")
    editor = _signed_in(browser, live_site.url, people["edu"][0])
    [waiting] = _mails(smtp, people["edu"][0], f"Aguardando revisão: {TITLE}")
    assert "aguarda a etapa de edição." in waiting
    # (The final edit's task waits in the pool of the editor who approved the edit: nobody
    # is mailed of their own action.)
    for step in ("edição", "edição final"):
        if step == "edição":  # the queue as an editor finds it (the reviewer's: axe'd above)
            editor.goto(f"{live_site.url}/review/")
            _accessible(editor, "queue")
            _for_the_docs(editor, "review-queue-pt-BR")
        _claimed_from_the_queue(editor, live_site.url, step)
        editor.get_by_role("button", name="Aprovar").click()
        expect(editor.locator("p.notice[role=status]")).to_have_text("Aprovada.")

    # Published: an IBI minted now, its persistent URL mailed to the student, and it opens.
    submission.refresh_from_db()
    assert submission.state == Submission.State.PUBLISHED
    item = Item.objects.get(pk=submission.item_id)
    [published] = _mails(smtp, people["maria"][0], f"Publicada: {TITLE}")
    persistent = f"{live_site.url}/{item.ibi}"
    assert persistent in published.split()
    # The persistent URL resolves to the work itself (an IBI of one document, as URLib's).
    resolved = student.request.get(persistent)
    assert resolved.ok and resolved.url == (
        f"{live_site.url}/col/{item.ibi}/doc/dissertacao.pdf") and resolved.body() == pdf
    student.goto(f"{live_site.url}/submit/{submission.pk}/")
    student.get_by_role("link", name="Publicada: a sua página").click()
    expect(student).to_have_url(f"{live_site.url}/items/{item.ibi}")
    expect(student.get_by_role("heading", level=1)).to_have_text(TITLE)
    _accessible(student, "published")
    # Each step's notice went to those who had to act, and nobody else.
    assert sorted((to, subject) for to, subject, _text in _received(smtp)) == sorted([
        (people["rita"][0], f"Aguardando revisão: {TITLE}"),
        (people["maria"][0], f"Devolvida a você: {TITLE}"),
        (people["rita"][0], f"Aguardando revisão: {TITLE}"),
        (people["edu"][0], f"Aguardando revisão: {TITLE}"),
        (people["maria"][0], f"Publicada: {TITLE}")])
