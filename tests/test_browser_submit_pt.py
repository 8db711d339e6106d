"""In a real browser that prefers Brazilian Portuguese, a student who is not staff submits a
dissertation at /submit/ (issue 35, 2): a collection with MTD-BR's thesis profile, its fields
filled, a PDF uploaded (resumable, tus, static/archive/uploader.js), the deposit licence
accepted, saved as a draft; back later, submitted. A task waits for the reviewers and nothing
is published. axe-core finds nothing on any page, at 375 and at 1280 px, and nothing scrolls
sideways on a phone. (The same pages in process, and their refusals: tests/test_submit_ui.py.)"""
from __future__ import annotations

from django.conf import settings
from django.test import Client
from playwright.sync_api import expect

from archive.models import PendingUpload, Submission, SubmissionProfile, Task
from tests import factories as make
from tests.test_admin_profiles import STORED, THESIS_FORM

PHONE, DESK = {"width": 375, "height": 740}, {"width": 1280, "height": 800}


def _accessible_at_both_widths(page, name: str) -> None:
    for size in (PHONE, DESK):
        page.set_viewport_size(size)
        page.evaluate("document.activeElement.blur(); window.scrollTo(0, 0)")
        assert make.axe_violations(page) == [], (name, size)
        if size == PHONE:
            assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], name
            make.screenshot(page, f"submit-{name}-pt-BR-375")


def test_a_student_submits_a_dissertation_in_portuguese(live_site, browser,
                                                        tmp_path):
    settings.FILE_UPLOAD_TEMP_DIR = str(tmp_path)
    theses = make.collection("teses-ppgc", make.community("ppgc"),
                             profile=SubmissionProfile.objects.get(slug="tese"),
                             deposit_licence=make.LICENCE)
    make.reviewed(theses, submitter="Estudantes", reviewer="Revisores")
    student = make.person("maria", "Estudantes")
    session = Client()
    session.force_login(student)
    context = browser.new_context(locale="pt-BR", viewport=PHONE, bypass_csp=True)
    context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "url": live_site.url,
                          "value": session.cookies[settings.SESSION_COOKIE_NAME].value}])
    page = context.new_page()

    page.goto(f"{live_site.url}/submit/")
    expect(page.locator("h1")).to_have_text("Suas submissões")
    _accessible_at_both_widths(page, "list")
    page.select_option("#new-collection", label="Coleção teses-ppgc")
    page.get_by_role("button", name="Iniciar uma submissão").click()
    expect(page.locator("p.notice[role=status]")).to_contain_text("Um novo rascunho")

    page.fill("#id_title", "Uma dissertação")
    page.fill("#id_language", "pt-BR")
    for name, value in THESIS_FORM.items():
        name = "md_dc_publisher" if name == "dc_publisher" else name  # no classic field here
        if name == "md_local_degree_level":
            page.select_option(f"#id_{name}", label="Doutorado")
        elif name == "md_dc_subject_cnpq":  # CNPq's table: boxes offering its areas
            for n, code in enumerate(value):
                page.fill(f"#id_{name}_{n}", code)
        elif name.startswith("md_"):
            page.fill(f"#id_{name}", value)
    page.set_input_files("input[name=upload]", [{
        "name": "dissertacao.pdf", "mimeType": "application/pdf",
        "buffer": b"%PDF-1.4 dissertacao"}])
    expect(page.locator(".ibi-upload .ibi-state")).to_have_text("enviado")
    page.get_by_label("Li a licença de depósito acima e a aceito").check()
    _accessible_at_both_widths(page, "form")
    page.get_by_role("button", name="Salvar como rascunho").click()
    expect(page.locator("p.notice[role=status]")).to_have_text("Salvo como rascunho.")

    # Later: back through the list, the draft as it was left.
    page.goto(f"{live_site.url}/submit/")
    expect(page.locator("td .state")).to_have_text("Rascunho")
    page.get_by_role("link", name="Uma dissertação").click()
    expect(page.locator("#id_title")).to_have_value("Uma dissertação")
    expect(page.locator("input[name=pending]")).to_be_checked()
    page.get_by_role("button", name="Submeter", exact=True).click()
    expect(page.locator("p.notice[role=status]")).to_have_text("Submetida: agora aguarda revisão.")
    expect(page.locator(".facts .state")).to_have_text("Em revisão")
    _accessible_at_both_widths(page, "submitted")
    context.close()

    submission = Submission.objects.get(owner=student)
    assert submission.state == Submission.State.IN_REVIEW and submission.item is None
    assert Task.objects.filter(submission=submission, role="reviewer",
                               closed__isnull=True).exists()
    assert {(r["field"], r["value"], r["language"], r["authority"])
            for r in submission.metadata} == STORED
    assert submission.licence_text == make.LICENCE and submission.licence_accepted_at
    upload = PendingUpload.objects.get(pk=submission.files[0])
    assert (upload.name, upload.complete, upload.owner) == ("dissertacao.pdf", True, student)
