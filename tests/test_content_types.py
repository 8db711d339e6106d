"""One rule for a stored file's content type, whichever way the file came in (API, admin,
importitems, copies, BagIt): archive/deposit/content_types.py. Downloads then send whatever a
browser could run as an attachment."""
from __future__ import annotations

import pytest
from django.test import Client

from archive.deposit.content_types import is_script_capable, stored_type
from archive.models import ItemFile
from tests import factories as make

pytestmark = pytest.mark.django_db
HTML = b"<!doctype html><script>alert(document.cookie)</script>"


def through_the_api(librarian, name: str, declared: str) -> str:
    response = make.posted(make.token_client(librarian), (name, HTML, declared), title="T")
    assert response.status_code == 201, response.json()
    return response.json()["files"][0]["content_type"]


def through_the_admin(librarian, name: str, declared: str) -> str:
    client = Client()
    client.force_login(librarian)
    make.admin_deposit(client, (name, HTML, declared), title="T", language="en")
    return ItemFile.objects.filter(name=name).latest("pk").content_type


@pytest.mark.parametrize(("name", "expected"), [
    ("page.html", "text/html"),
    ("notes.txt", "text/plain"),
    ("no-extension", "application/octet-stream"),
])
def test_a_declared_text_html_gets_the_same_stored_type_through_the_api_and_the_admin(
        librarian, name, expected):
    assert through_the_api(librarian, name, "text/html") == expected
    assert through_the_admin(librarian, name, "text/html") == expected


@pytest.mark.parametrize(("name", "declared", "expected"), [
    ("notes.txt", "text/html", "text/plain"),
    ("notes.txt", "text/plain; charset=ISO-8859-1", "text/plain; charset=ISO-8859-1"),
    ("page.html", "text/plain", "text/html"),
    ("data", "application/vnd.example+json", "application/vnd.example+json"),
    ("data", "image/svg+xml", "application/octet-stream"),
    ("data", "application/xhtml+xml", "application/octet-stream"),
    ("data", "text/javascript", "application/octet-stream"),
    ("data", "text/html\r\nX-Evil: 1", "application/octet-stream"),
    ("data", "", "application/octet-stream"),
])
def test_the_rule(name, declared, expected):
    assert stored_type(name, declared) == expected


@pytest.mark.parametrize("media", ["text/html", "image/svg+xml", "text/xml", "application/xml",
                                   "application/xhtml+xml", "application/javascript"])
def test_script_capable_types(media):
    assert is_script_capable(media)


@pytest.mark.parametrize(("name", "kind"), [
    ("page.html", "attachment"), ("drawing.svg", "attachment"), ("data.xml", "attachment"),
    ("notes.txt", "inline"),
])
def test_html_svg_and_xml_deposited_through_the_api_download_as_attachments(
        librarian, name, kind):
    through_the_api(librarian, name, "text/html")
    row = ItemFile.objects.select_related("item").get(name=name)
    response = Client().get(f"/col/{row.item.ibi}/doc/{name}")
    assert response.status_code == 200
    assert response["Content-Disposition"].startswith(f"{kind};")
    assert response["X-Content-Type-Options"] == "nosniff"
