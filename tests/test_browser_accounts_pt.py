"""In a real browser that prefers Brazilian Portuguese, on a 375 px phone: a student creates an
account, follows the link mailed to verify the address, and signs in; every page in
Portuguese, none wider than the screen, axe-core finding nothing. Debian's Chromium, driven
by Playwright (tests/conftest.py's fixtures), against a live server whose mails are sent for
real after each commit (into Django's test outbox)."""
from __future__ import annotations

import pytest
from django.core import mail
from playwright.sync_api import Page, expect

from tests import factories as make

pytestmark = pytest.mark.usefixtures("eager_tasks", "mailoutbox")

PHONE = {"width": 375, "height": 800}


def checked(page: Page, name: str) -> None:
    """The page fits the phone and has no accessibility violation."""
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], name
    assert make.axe_violations(page) == [], name
    make.screenshot(page, f"accounts-{name}-pt-BR")


def test_a_student_signs_up_verifies_the_address_and_signs_in_in_portuguese(
        live_site, browser):
    # bypass_csp: axe-core is loaded as an inline script (test_admin_accessibility.py).
    context = browser.new_context(locale="pt-BR", viewport=PHONE, bypass_csp=True)
    page = context.new_page()
    page.goto(f"{live_site.url}/")
    page.get_by_role("link", name="Entrar").click()
    page.get_by_role("link", name="Crie uma").click()

    expect(page.get_by_role("heading", level=1)).to_have_text("Criar uma conta")
    checked(page, "signup")
    page.get_by_label("Seu nome").fill("Maria Souza")
    page.get_by_label("Endereço de email").fill("maria.souza@example.org")
    page.get_by_label("Senha", exact=True).fill(make.ACCOUNT_PASSWORD)
    page.get_by_label("Senha de novo").fill(make.ACCOUNT_PASSWORD)
    page.get_by_role("button", name="Criar a conta").click()

    expect(page).to_have_url(f"{live_site.url}/accounts/verify/")
    expect(page.get_by_role("status")).to_contain_text(
        "Estamos enviando um link para maria.souza@example.org")
    checked(page, "verify-sent")
    [sent] = make.wait_until(lambda: list(mail.outbox), what="the verification mail")
    assert sent.subject == "Verifique seu endereço de email" and "Olá, Maria Souza." in sent.body

    page.goto(live_site.url + make.link_in(sent))
    expect(page.get_by_role("heading", level=1)).to_have_text("Seu endereço está verificado")
    checked(page, "verified")
    page.get_by_role("main").get_by_role("link", name="Entrar").click()

    expect(page.get_by_role("heading", level=1)).to_have_text("Entrar")
    checked(page, "login")
    page.get_by_label("Endereço de email").fill("Maria.Souza@Example.org")
    page.get_by_label("Senha").fill(make.ACCOUNT_PASSWORD)
    page.get_by_role("main").get_by_role("button", name="Entrar").click()

    expect(page).to_have_url(f"{live_site.url}/accounts/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Minha conta")
    expect(page.locator("dl.account")).to_contain_text("Sim, em")
    expect(page.get_by_role("navigation").get_by_role("link", name="Minha conta")).to_be_visible()
    checked(page, "account")
    context.close()


def test_a_person_sees_their_ways_in_removes_one_and_asks_for_erasure_in_portuguese(
        live_site, browser):
    """Issue 36, 4: the account page's ways in and data, and the erasure page."""
    from archive.accounts import services
    from archive.models import Account, Identity

    user = make.account("joana@example.org", name="Joana Lima")
    services.link_identity(user=user, provider=Identity.Provider.ORCID,
                           issuer="https://orcid.org", subject="0000-0002-1825-0097")
    context = browser.new_context(locale="pt-BR", viewport=PHONE, bypass_csp=True)
    page = context.new_page()
    page.goto(f"{live_site.url}/accounts/login/")
    page.get_by_label("Endereço de email").fill("joana@example.org")
    page.get_by_label("Senha").fill(make.ACCOUNT_PASSWORD)
    page.get_by_role("main").get_by_role("button", name="Entrar").click()

    expect(page.get_by_role("heading", name="Suas formas de entrar")).to_be_visible()
    expect(page.locator("ul.ways-in")).to_contain_text("ORCID: 0000-0002-1825-0097")
    expect(page.get_by_role("link", name="Baixar seus dados (JSON)")).to_be_visible()
    checked(page, "ways-in")
    page.get_by_role("button", name="Remover esta forma de entrar: ORCID").click()
    expect(page.get_by_role("status")).to_have_text(
        "Essa forma de entrar foi removida da sua conta.")
    assert not Identity.objects.filter(user=user).exists()

    page.get_by_role("link", name="Pedir que seus dados sejam apagados").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Apagar seus dados")
    checked(page, "erasure")
    page.get_by_role("button", name="Pedir que meus dados sejam apagados").click()
    expect(page.get_by_role("status").first).to_have_text(
        "Seu pedido para apagar seus dados foi enviado à biblioteca.")
    expect(page.get_by_role("main")).to_contain_text("a biblioteca está cuidando disso")
    assert Account.objects.get(user=user).erasure_requested_at is not None


def test_the_orcid_pages_and_marks_in_portuguese(live_site, browser, settings):
    """Signing in with ORCID offered, the "connect your ORCID iD" page, a refusal, and the
    landing page's marks: an authenticated iD (green) and one not confirmed (grey)."""
    from archive.accounts import invitations, services
    from archive.models import Identity

    settings.IBI_ORCID_BASE_URL = "https://sandbox.orcid.org"  # never reached here
    settings.IBI_ORCID_CLIENT_ID, settings.IBI_ORCID_CLIENT_SECRET = "APP-TEST", "secret"
    item = make.item(bare=True, title="Relatório técnico")
    make.dc_value(item, "creator", "Carberry, Josiah", 0, authority="0000-0002-1825-0097")
    make.dc_value(item, "creator", "Silva, Ana", 1, authority="0000-0001-5109-3700")
    services.link_identity(user=make.account(), provider=Identity.Provider.ORCID,
                           issuer=settings.IBI_ORCID_BASE_URL, subject="0000-0002-1825-0097")
    invitation = invitations.invite(item=item, orcid="0000-0001-5109-3700",
                                    email="ana@example.org", sent_by=None,
                                    base=live_site.url, language="pt-br")
    context = browser.new_context(locale="pt-BR", viewport=PHONE, bypass_csp=True)
    page = context.new_page()
    page.goto(f"{live_site.url}/accounts/login/")
    expect(page.get_by_role("link", name="Entrar com ORCID")).to_be_visible()
    checked(page, "login-orcid")
    page.goto(f"{live_site.url}/items/{item.ibi}")
    expect(page.get_by_role("img", name="ORCID iD autenticado de Carberry, Josiah")
           ).to_be_visible()
    expect(page.get_by_role("img", name="ORCID iD de Silva, Ana, não confirmado pelo titular")
           ).to_be_visible()
    checked(page, "orcid-marks")
    page.goto(invitations.link_of(invitation))
    expect(page.get_by_role("heading", name="Conecte seu ORCID iD")).to_be_visible()
    checked(page, "orcid-connect")
    page.goto(f"{live_site.url}/accounts/orcid/callback/?code=x&state=forged")
    expect(page.get_by_role("alert")).to_contain_text("não é da entrada que este navegador")
    checked(page, "orcid-refused")
    context.close()
