"""In a real browser that prefers Brazilian Portuguese, on a 375 px phone: a student goes from
the sign-in page to the discovery page, finds her university by name, signs in at its
identity provider (the stand-in of tests/saml_idp.py, served on a loopback port) and comes
back signed in; every page in Portuguese, none wider than the screen, axe-core finding
nothing. Debian's Chromium, driven by Playwright (tests/conftest.py's fixtures)."""
from __future__ import annotations

import html
import threading
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlsplit

import pytest
from django.contrib.auth.models import Group, User
from playwright.sync_api import Page, expect

from archive.accounts import federation, saml
from tests import factories as make
from tests import saml_idp as stand_in
from tests.servers import PromptHTTPServer, free_port

pytestmark = pytest.mark.usefixtures("eager_tasks")

PHONE = {"width": 375, "height": 800}
STUDENT = {"eduPersonPrincipalName": ["maria@exemplo.edu.br"],
           "mail": ["maria.souza@exemplo.edu.br"], "cn": ["Maria Souza"],
           "eduPersonAffiliation": ["student"]}


@pytest.fixture
def university(live_site, settings, tmp_path):
    """The federation (one university) and its identity provider on a loopback port, which
    signs in whoever asks as the student above (its login form is a button)."""
    port = free_port()
    entity_id = f"http://localhost:{port}/idp"  # the same site as the live server: Lax
    keys = {name: stand_in.keypair(tmp_path, name) for name in ("federation", "idp")}
    settings.IBI_SAML_BASE_URL = live_site.url
    settings.IBI_SAML_ENTITY_ID = f"{live_site.url}/saml/metadata/"
    settings.IBI_SAML_KEY, settings.IBI_SAML_CERT = "", ""
    settings.IBI_SAML_METADATA_CERT = str(keys["federation"].cert)
    settings.IBI_SAML_AFFILIATION_GROUPS = {"student": ["Submitters"]}
    settings.SAML_SESSION_COOKIE_SAMESITE = "Lax"  # plain HTTP: no SameSite=None cookie
    settings.IBI_SAML_METADATA = str(stand_in.aggregate(
        [stand_in.idp_descriptor(entity_id, keys["idp"], scope="exemplo.edu.br",
                                 names={"pt-br": "Universidade Exemplo"})],
        valid_until=datetime.now(UTC) + timedelta(days=1), signer=keys["federation"],
        folder=tmp_path))
    federation.refresh()
    Group.objects.create(name="Submitters")
    idp = stand_in.IdentityProvider(entity_id, keys["idp"], [saml.sp_metadata()],
                                    signed_requests=False)  # this SP has no key here
    acs = saml.acs_url()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            if not self.path.startswith("/idp/sso?"):  # the browser's /favicon.ico
                self.send_error(404)
                return
            request_id = idp.request_id(self.path)
            relay = parse_qs(urlsplit(self.path).query).get("RelayState", [""])[0]
            xml = idp.response(STUDENT, in_response_to=request_id, destination=acs,
                               audience=settings.IBI_SAML_ENTITY_ID)
            body = (f'<!doctype html><html lang="pt-BR"><title>Universidade Exemplo</title>'
                    f'<form method="post" action="{acs}">'
                    f'<input type="hidden" name="SAMLResponse" value="{stand_in.encoded(xml)}">'
                    f'<input type="hidden" name="RelayState" '
                    f'value="{html.escape(relay)}">'
                    f'<button>Continuar</button></form></html>').encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:
            pass

    server = PromptHTTPServer(("127.0.0.1", port), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield entity_id
    server.shutdown()
    server.server_close()


def checked(page: Page, name: str) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], name
    assert make.axe_violations(page) == [], name
    make.screenshot(page, f"saml-{name}-pt-BR")


def test_a_student_signs_in_through_her_university_in_portuguese(live_site, university,
                                                                 browser):
    context = browser.new_context(locale="pt-BR", viewport=PHONE, bypass_csp=True)
    page = context.new_page()
    page.goto(f"{live_site.url}/accounts/login/?next=/accounts/")
    page.get_by_role("link", name="Entrar pela sua instituição (CAFe)").click()

    expect(page.get_by_role("heading", level=1)).to_have_text("Entrar pela sua instituição")
    checked(page, "discovery")
    page.get_by_label("Nome da instituição").fill("exemplo")
    page.get_by_role("main").get_by_role("button", name="Buscar").click()
    expect(page.get_by_role("status")).to_have_text("1 instituição")
    page.get_by_role("link", name="Universidade Exemplo").click()

    expect(page).to_have_title("Universidade Exemplo")
    page.get_by_role("button", name="Continuar").click()

    expect(page).to_have_url(f"{live_site.url}/accounts/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Minha conta")
    checked(page, "signed-in")
    user = User.objects.get(email="maria.souza@exemplo.edu.br")
    assert [g.name for g in user.groups.all()] == ["Submitters"]
    context.close()
