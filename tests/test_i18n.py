"""Portuguese and English: the reader's browser picks, the switcher keeps a choice, and no URL
changes with the language."""
from __future__ import annotations

import pytest

from archive.metadata.languages import language_name

PT = {"HTTP_ACCEPT_LANGUAGE": "pt-BR,pt;q=0.9,en;q=0.5"}

pytestmark = pytest.mark.django_db


def test_a_brazilian_browser_gets_the_site_in_portuguese(reader):
    page = reader.get("/", **PT)
    assert page["Content-Language"] == "pt-br"
    html = page.content.decode()
    assert '<html lang="pt-BR">' in html
    assert ">Navegar</a>" in html and ">Browse</a>" not in html


def test_a_browser_that_asks_for_neither_gets_english(reader):
    html = reader.get("/", HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert '<html lang="en">' in html and ">Browse</a>" in html


def test_the_switcher_keeps_the_readers_choice_over_the_browsers(reader):
    switched = reader.post("/i18n/setlang/", {"language": "en", "next": "/search?q=x"}, **PT)
    assert switched.status_code == 302 and switched["Location"] == "/search?q=x"
    assert ">Browse</a>" in reader.get("/", **PT).content.decode()
    reader.post("/i18n/setlang/", {"language": "pt-br", "next": "/"}, **PT)
    assert ">Navegar</a>" in reader.get("/", **PT).content.decode()


def test_the_switcher_never_sends_the_reader_to_another_site(reader):
    switched = reader.post("/i18n/setlang/", {"language": "en", "next": "https://evil.example/"})
    assert switched.status_code == 302
    assert switched["Location"] == "/"


def test_every_page_offers_both_languages_by_their_own_names(reader):
    html = reader.get("/", **PT).content.decode()
    assert 'value="pt-br" lang="pt-br" selected>Português (Brasil)' in html
    assert 'value="en" lang="en">English' in html


def test_the_librarians_admin_speaks_portuguese_too(db, admin_client):
    html = admin_client.get("/admin/", secure=True, **PT).content.decode()
    assert "Acervo e depósitos" in html


@pytest.mark.parametrize(("tag", "reader_language", "name"), [
    ("pt-BR", "pt-br", "Português (Brasil)"),
    ("pt-BR", "en", "Portuguese (Brazil)"),
    ("en", "pt-br", "Inglês"),
    ("es-419", "en", "Spanish (Latin America)"),
    ("qaa", "en", "qaa"),  # private use: no name, shown as written
])
def test_language_tags_are_named_in_the_readers_language(tag, reader_language, name):
    assert language_name(tag, reader_language) == name
