"""Every public page as the checkers read it: the Nu HTML checker (vnu.jar, the W3C's own,
installed by `make test` from the npm registry and run by Debian's Java) finds no error, axe-core
(same origin) no accessibility violation, and a browser running every page, the admin's
included, under the site's Content-Security-Policy reports no refusal. Also what a search
engine or a shared link reads in a page's head: its description, canonical URL, Open Graph and
Twitter card, the favicon.
"""
from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import lxml.html
import pytest

from archive.models import CollectionRole
from tests import factories as make
from tests.conftest import PASSWORD

ROOT = Path(__file__).resolve().parent.parent
VNU = ROOT / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"
PT = {"HTTP_ACCEPT_LANGUAGE": "pt-BR,pt;q=0.9"}
def public_pages(site) -> dict[str, str]:
    item = site["item"]
    return {
        "home": "/",
        "search": "/search?q=clima",
        "search, filtered": "/search?type=http%3A%2F%2Fpurl.org%2Fcoar%2Fresource_type%2Fc_18gh",
        "search, bad year": "/search?year=20",
        "landing": f"/items/{item.ibi}",
        "landing, first edition": f"/items/{site['first'].ibi}",
        "landing, translation": f"/items/{site['english'].ibi}",
        "files": f"/items/{item.ibi}/files",
        "metadata": f"/items/{item.ibi}/metadata",
        "tombstone": f"/items/{site['gone'].ibi}",
        "resolver tombstone": f"/{site['gone'].ibip}",
        "not found": "/LK47B6W/362SFKH",
        "page not found": "/nothing/here",
        "bad URL": "/sid.inpe.br/mtc-m19/2013/13.45",
        "translation missing": f"/{item.ibi}+(de)",
        "inspection": f"/inspect/{item.ibi}",
        "landing, embargoed": f"/items/{site['embargoed'].ibi}",
        "closed file (403)": f"/col/{site['embargoed'].ibi}/doc/tese.pdf",
        "closed file, bad link (403)": f"/col/{site['embargoed'].ibi}/doc/tese.pdf?token=x",
        "request a copy": f"/items/{site['embargoed'].ibi}/request",
        "request sent": f"/items/{site['embargoed'].ibi}/request?sent",
        "old link not found": "/handle/123456789/999999",
        "community": "/communities/engenharia",
        "collection": "/collections/teses-ppgee",
        "collection, default": "/collections/general",
    }


def error_pages() -> dict[str, str]:
    """The pages Django renders itself for an error no view answered."""
    from django.template.loader import render_to_string

    return {f"error {code}": render_to_string(f"{code}.html", {"exception": "x"})
            for code in (400, 403, 404, 500)}


@pytest.fixture
def site(db, settings):
    settings.ARCHIVE_ADDRESS = "testserver"
    return make.showcase()


def nu_errors(documents: dict[str, str], folder: Path) -> dict[str, list[str]]:
    """The Nu HTML checker's errors in each document (one run of the checker for all)."""
    paths = {}
    for number, (name, html) in enumerate(documents.items()):
        paths[name] = folder / f"page-{number}.html"
        paths[name].write_text(html)
    # The JVM's quick compiler only (half the CPU of a run this short; it then needs a deeper
    # stack for the checker's schema).
    done = subprocess.run(["java", "-XX:TieredStopAtLevel=1", "-Xss16m", "-jar", str(VNU),
                           "--errors-only", "--format", "json",
                           "--stdout", *map(str, paths.values())],
                          capture_output=True, text=True, timeout=300)
    messages = json.loads(done.stdout)["messages"]
    by_file = {path.name: name for name, path in paths.items()}
    found: dict[str, list[str]] = {}
    for message in messages:
        name = by_file.get(message.get("url", "").rsplit("/", 1)[-1], message.get("url"))
        found.setdefault(name, []).append(
            f"{message['type']}: {message['message']} «{message.get('extract', '')}»")
    return found


def test_every_public_page_has_no_nu_html_checker_error(client, site, tmp_path):
    documents = {}
    for name, url in public_pages(site).items():
        for language, headers in (("pt-BR", PT), ("en", {})):
            documents[f"{name} ({language})"] = client.get(url, **headers).content.decode()
    documents.update(error_pages())
    assert nu_errors(documents, tmp_path) == {}


def test_the_account_pages_have_no_nu_html_checker_error(client, db, tmp_path):
    """/accounts/ (HTTPS only): each form empty and refused, a link that fails, the person's
    own page with a role."""
    user = make.account("ana@example.org")
    collection = make.collection("teses", make.community("ufc"))
    CollectionRole.objects.create(collection=collection, role="submitter", user=user)
    documents = {}
    for language, headers in (("pt-BR", PT), ("en", {})):
        for name, url, data in (
                ("sign-up", "/accounts/signup/", None),
                ("sign-up refused", "/accounts/signup/", {"email": "x", "password1": "1"}),
                ("verify sent", "/accounts/verify/", None),
                ("verify: bad link", "/accounts/verify/x/", None),
                ("sign-in", "/accounts/login/?next=/submit/", None),
                ("sign-in refused", "/accounts/login/", {"username": "ana@example.org"}),
                ("reset", "/accounts/password/reset/", None),
                ("reset sent", "/accounts/password/reset/sent/", None),
                ("reset: bad link", "/accounts/password/reset/MQ/x-y/", None),
                ("reset done", "/accounts/password/reset/done/", None)):
            answer = (client.post(url, data, secure=True, **headers) if data
                      else client.get(url, secure=True, **headers))
            assert answer.status_code in (200, 400), name
            documents[f"{name} ({language})"] = answer.content.decode()
        client.force_login(user)
        for name, url in (("account", "/accounts/"),
                          ("password change", "/accounts/password/change/")):
            documents[f"{name} ({language})"] = client.get(url, secure=True,
                                                           **headers).content.decode()
        client.logout()
    assert nu_errors(documents, tmp_path) == {}


def test_the_checker_finds_errors_when_there_are_some(tmp_path):
    """The check itself: a page with the errors the issue found (a datetime with
    microseconds, profile on <link>) is reported."""
    page = ('<!doctype html><html lang="en"><head><title>x</title>'
            '<link rel="describedby" href="/x" profile="http://x"></head><body>'
            '<time datetime="2026-11-26T22:54:01.123456+00:00:00">x</time></body></html>')
    found = nu_errors({"bad": page}, tmp_path)["bad"]
    assert len(found) == 2, found


# -- What search engines and shared links read ---------------------------------------------------

def _head(html: str):
    return lxml.html.document_fromstring(html).find("head")


def test_the_landing_page_says_what_it_is_in_its_head(client, site):
    item = site["item"]
    url = f"http://testserver/items/{item.ibi}"
    head = _head(client.get(f"/items/{item.ibi}?style=apa", **PT).content.decode())

    def meta(attribute: str, name: str) -> str:
        return head.find(f'meta[@{attribute}="{name}"]').get("content")

    description = meta("name", "description")
    assert description.startswith("Este relatório descreve a modelagem do clima")
    assert description.endswith("…") and len(description) <= 200
    assert make.SHOWCASE_DESCRIPTION.startswith(description[:-1])
    assert head.find('link[@rel="canonical"]').get("href") == url
    assert (meta("property", "og:title"), meta("property", "og:type"),
            meta("property", "og:url"), meta("property", "og:description"),
            meta("property", "og:locale")) == (item.title, "article", url, description, "pt_BR")
    assert (meta("name", "twitter:card"), meta("name", "twitter:title")) == (
        "summary", item.title)


def test_other_pages_describe_the_repository_and_alerts_are_not_indexed(client, site):
    head = _head(client.get("/", **PT).content.decode())
    assert head.find('meta[@name="description"]').get("content").startswith(
        "Um repositório de documentos e dados")
    assert head.find('link[@rel="canonical"]').get("href") == "http://testserver/"
    tombstone = _head(client.get(f"/items/{site['gone'].ibi}").content.decode())
    assert tombstone.find('meta[@name="robots"]').get("content") == "noindex"
    assert tombstone.find('link[@rel="canonical"]') is None
    assert "Este relatório" not in tombstone.find('meta[@name="description"]').get("content")


def test_the_favicon_is_where_browsers_look_for_it(client, db):
    response = client.get("/favicon.ico")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/vnd.microsoft.icon"
    assert b"".join(response.streaming_content)[:4] == b"\0\0\1\0"  # an ICO's header
    head = _head(client.get("/").content.decode())
    assert [link.get("href") for link in head.findall('link[@rel="icon"]')] == [
        "/static/archive/favicon.svg", "/favicon.ico"]


# -- The Content-Security-Policy ----------------------------------------------------------------

def test_every_page_the_admin_and_the_api_docs_included_has_a_strict_policy(
        client, site, librarian_client):
    answers = [client.get(url) for url in public_pages(site).values()]
    answers += [librarian_client.get(url, secure=True) for url in (
        "/admin/", "/admin/archive/item/", "/admin/archive/item/add/",
        f"/admin/archive/item/{site['item'].pk}/change/")]
    answers += [client.get("/admin/login/", secure=True), client.get("/api/docs/", secure=True),
                client.get("/api/items/", secure=True), client.get("/favicon.ico")]
    # A file may be framed by this site's own landing page (its preview), by no other.
    file = client.get(f"/col/{site['item'].ibi}/doc/dados.csv")
    assert file["X-Frame-Options"] == "SAMEORIGIN" and answers[0]["X-Frame-Options"] == "DENY"
    answers.append(file)
    for response in answers:
        policy = dict(part.strip().split(" ", 1)
                      for part in response["Content-Security-Policy"].split(";"))
        docs = response.request["PATH_INFO"] == "/api/docs/"  # Swagger UI draws with styles
        assert policy["script-src"] == "'self'"
        assert policy["style-src"] == ("'self' 'unsafe-inline'" if docs else "'self'")
        assert policy["default-src"] == "'self'" and policy["frame-ancestors"] == "'self'"
        if response["Content-Type"].startswith("text/html"):
            html = response.content.decode()
            inline = re.findall(r"<script(?![^>]*\bsrc=)(?![^>]*application/ld\+json)[^>]*>",
                                html)
            assert inline == [], response.request["PATH_INFO"]
            assert not re.search(r"<[^>]+\son[a-z]+=", html), response.request["PATH_INFO"]


def test_a_browser_finds_no_refusal_and_axe_core_no_violation(live_site, browser,
                                                                 librarian):
    """Every public page in pt-BR and the admin's, in Chromium under the real policy: the
    console reports no Content-Security-Policy refusal; axe-core (injected past the policy:
    Playwright's init script, which no policy governs) finds no violation of WCAG 2.1 AA on
    the public pages."""
    site = make.showcase()
    context = browser.new_context(locale="pt-BR", bypass_csp=False)
    make.axe_everywhere(context)
    page = context.new_page()
    refused: list[str] = []
    page.on("console", lambda message: refused.append(f"{page.url}: {message.text}")
            if "Content Security Policy" in message.text else None)
    violations = {}
    for name, url in public_pages(site).items():
        page.goto(live_site.url + url)
        found = page.evaluate("""async () => (await axe.run(document, {runOnly:
            ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']})).violations
            .map(v => v.id + ': ' + v.nodes.map(n => n.target.join(' ')).join(', '))""")
        if found:
            violations[name] = found
    page.goto(live_site.url + "/admin/login/")
    page.fill("#id_username", "librarian")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    for url in ("/admin/", "/admin/archive/item/", "/admin/archive/item/add/",
                f"/admin/archive/item/{site['item'].pk}/change/"):
        page.goto(live_site.url + url)  # loaded: its scripts, styles and images fetched
    # The API's documentation fetches the schema after its load and draws it: drawn, every
    # request it made was answered (not "network idle", which a loaded machine never gave
    # within 30 s in a full run).
    page.goto(live_site.url + "/api/docs/")
    page.locator(".swagger-ui .info .title").wait_for()
    assert refused == []
    assert violations == {}
