"""Issue 36's "done when", in a real browser that prefers Brazilian Portuguese: a student
signs in through the discovery page at her university's identity provider (SAML, the stand-in
of tests/test_browser_saml_pt.py), connects her ORCID iD from her account page by signing in
at the stand-in ORCID over TLS (tests/servers.py FakeOrcid), submits a thesis at /submit/ in a
collection published on submit, and her iD shows as authenticated on the published item's
landing page. axe-core finds nothing on any page she sees."""
from __future__ import annotations

import pytest
from django.conf import settings
from playwright.sync_api import Page, expect

from archive.models import Submission
from tests import factories as make
from tests.servers import FakeOrcid
from tests.test_browser_saml_pt import PHONE, university  # noqa: F401 (university: a fixture)

ORCID = "0000-0002-1825-0097"


@pytest.fixture
def orcid(tmp_path):
    with FakeOrcid(tmp_path) as server:
        settings.IBI_ORCID_BASE_URL = server.url
        settings.IBI_ORCID_CLIENT_ID = server.client_id
        settings.IBI_ORCID_CLIENT_SECRET = server.client_secret
        settings.IBI_ORCID_CA_FILE = server.ca_file
        server.signs_in_as = (ORCID, "Maria Souza")
        yield server


def accessible(page: Page, name: str) -> None:
    assert make.axe_violations(page) == [], name
    make.screenshot(page, f"login-flow-{name}-pt-BR")


def test_a_student_signs_in_submits_and_her_orcid_shows_authenticated(
        live_site, university, orcid, browser):  # noqa: F811 (university: the imported fixture)
    theses = make.collection("teses", make.community("pos"), deposit_licence=make.LICENCE)
    make.reviewed(theses, kind="none", submitter="Submitters")
    # The stand-in ORCID's certificate is from trustme's CA, which this Chromium does not know.
    context = browser.new_context(locale="pt-BR", viewport=PHONE, bypass_csp=True,
                                            ignore_https_errors=True)
    page = context.new_page()

    page.goto(f"{live_site.url}/accounts/login/?next=/accounts/")
    accessible(page, "login")
    page.get_by_role("link", name="Entrar pela sua instituição (CAFe)").click()
    accessible(page, "discovery")
    page.get_by_role("link", name="Universidade Exemplo").click()
    page.get_by_role("button", name="Continuar").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Minha conta")
    accessible(page, "account")

    page.get_by_role("link", name="Conecte seu ORCID iD").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Minha conta")
    expect(page.get_by_role("img", name="ORCID iD autenticado de Maria Souza")).to_be_visible()
    accessible(page, "orcid-connected")

    page.goto(f"{live_site.url}/submit/")
    accessible(page, "submissions")
    page.select_option("#new-collection", label="Coleção teses")
    page.get_by_role("button", name="Iniciar uma submissão").click()
    page.fill("#id_title", "Uma tese sobre repositórios")
    page.fill("#id_language", "pt-BR")
    page.fill("#id_md_dc_creator", f"Souza, Maria | {ORCID}")
    page.set_input_files("input[name=upload]", [{
        "name": "tese.pdf", "mimeType": "application/pdf", "buffer": make.pdf("Uma tese")}])
    expect(page.locator(".ibi-upload .ibi-state")).to_have_text("enviado")
    page.get_by_label("Li a licença de depósito acima e a aceito").check()
    accessible(page, "form")
    page.get_by_role("button", name="Submeter", exact=True).click()
    expect(page.locator("p.notice[role=status]")).to_have_text("Submetida e publicada.")
    expect(page.locator(".facts .state")).to_have_text("Publicada")
    accessible(page, "published")

    page.get_by_role("link", name="Publicada: a sua página").click()
    mark = page.get_by_role("img", name="ORCID iD autenticado de Souza, Maria")
    expect(mark).to_be_visible()
    expect(page.get_by_role("link", name="ORCID iD autenticado de Souza, Maria")).to_have_attribute(
        "href", f"https://orcid.org/{ORCID}")
    accessible(page, "item")
    context.close()
    submission = Submission.objects.get(owner__email="maria.souza@exemplo.edu.br")
    assert submission.state == Submission.State.PUBLISHED
    assert submission.item.collection == theses
