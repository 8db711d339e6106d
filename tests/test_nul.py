"""A NUL character anywhere in a request's path or query is refused, never a 500.

PostgreSQL cannot hold NUL in text: before archive/web/middleware.py, each of these answered 500
there. Run this module on SQLite and on PostgreSQL (DATABASE_URL=postgres://…).
"""
from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from archive.deposit import services
from archive.models import Item
from tests import factories as make

pytestmark = pytest.mark.django_db

NO_PATH = "No resource has a NUL character in its path."
NO_QUERY = "A NUL character is not allowed in a query parameter."


@pytest.fixture(autouse=True)
def item(settings) -> Item:
    services.ensure_archive_service()
    return make.item(("report.pdf", b"%PDF report", "application/pdf"), title="Report")


def get(client, url: str):
    return client.get(url, secure=True)


@pytest.mark.parametrize("url", [
    "/api/items/?search=%00", "/api/items/?search=a%00b", "/api/items/?language=%00",
    "/api/items/?state=Original%00", "/api/items/?page=%00", "/api/items/?%00=1",
])
def test_a_nul_in_an_api_query_is_a_json_400(client, url):
    response = get(client, url)
    assert response.status_code == 400
    assert response.json() == {"detail": NO_QUERY}


def test_a_nul_in_an_api_path_is_a_json_404(client, item):
    for url in ("/api/items/%00", f"/api/items/{item.ibi}%00", f"/api/items/{item.ibi}/files%00"):
        response = get(client, url)
        assert response.status_code == 404, url
        assert response.json() == {"detail": NO_PATH}


def test_a_nul_in_a_download_path_is_a_404(client, item):
    for url in (f"/col/{item.ibi}/doc/%00", f"/col/{item.ibi}/doc/report.pdf%00",
                f"/col/{item.ibi}%00/doc/report.pdf"):
        response = get(client, url)
        assert response.status_code == 404, url
        assert response.content.decode() == NO_PATH + "\n"
        assert response["Content-Type"] == "text/plain; charset=utf-8"


def test_a_nul_in_a_persistent_url_or_a_page_path_is_a_404(client, item):
    for url in (f"/{item.ibi}/%00", f"/{item.ibi}%00", f"/{item.ibip}%00", "/%00",
                f"/items/{item.ibi}%00", f"/items/{item.ibi}/files%00", "/search%00"):
        response = get(client, url)
        assert response.status_code == 404, url
        assert NO_PATH in response.content.decode()


def test_a_nul_in_the_archive_service_query_is_a_400_error_pair(client):
    from archive.protocol.pairs import loads

    service = services.ensure_archive_service()
    for query in ("servicesubject=urlRequest&parsedibiurl.ibi=%00",
                  "servicesubject=%00", "servicesubject=urlRequest&parsedibiurl.ibi=x&"
                  "clientinformation.ipaddress=%00"):
        response = get(client, f"/{service.ibi}?{query}")
        assert response.status_code == 400, query
        # The standard's wire, as for the service's other refusals.
        [(name, words)] = loads(response.content.decode("ascii"), strict=True)
        assert (name, " ".join(words)) == ("error", NO_QUERY)


def test_a_nul_in_a_site_query_is_a_400(client, item):
    for url in ("/search?q=%00", "/search?creator=%00", f"/{item.ibi}?ibiurl.verblist=%00",
                "/oai?verb=%00", "/oai?verb=GetRecord&identifier=%00&metadataPrefix=oai_dc"):
        response = get(client, url)
        assert response.status_code == 400, url
        assert NO_QUERY in response.content.decode()


def test_a_nul_in_a_urlencoded_form_is_a_400(client):
    response = client.post("/oai", "verb=Identify%00", secure=True,
                           content_type="application/x-www-form-urlencoded")
    assert response.status_code == 400
    assert "A NUL character is not allowed in a form field." in response.content.decode()


@pytest.mark.parametrize("field", ["title", "creator", "language", "target_file",
                                   "previous_edition", "description"])
def test_a_nul_in_a_deposit_field_is_a_400_and_creates_nothing(librarian_api, field):
    before = Item.objects.count()
    data = {"title": "T", "files": [SimpleUploadedFile("a.txt", b"a")], field: "x\x00y"}
    response = librarian_api.post("/api/items/", data, format="multipart", secure=True)
    assert response.status_code == 400, response.content
    assert Item.objects.count() == before


def test_a_nul_free_request_is_answered_as_before(client, item):
    assert len(get(client, "/api/items/?search=Report").json()["results"]) == 1
    assert get(client, f"/col/{item.ibi}/doc/report.pdf").status_code == 200


@pytest.mark.parametrize("path", ["/admin/", "/api/items/", "/"])
def test_a_cookie_whose_escape_decodes_to_nul_is_a_400(client, path):
    """A quoted cookie value's octal escape (\\000) becomes NUL in Django's parser; the session
    lookup then carried it to PostgreSQL (a 500 there)."""
    response = client.get(path, HTTP_COOKIE='sessionid="abcdefghijkl\\000mnop"', secure=True)
    assert response.status_code == 400
    assert b"NUL character is not allowed in a cookie" in response.content



def test_a_persistent_url_is_refused_as_before_with_too_many_query_fields(client, item,
                                                                         settings):
    # The middleware looks at the raw query (no %00: no NUL), but a query of more fields
    # than Django accepts is still parsed there, and refused (TooManyFieldsSent).
    many = "&".join(["a=1"] * (settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 1))
    assert client.get(f"/{item.ibi}", QUERY_STRING=many).status_code == 400
    assert client.get(f"/{item.ibi}", QUERY_STRING="a=1&b=%0").status_code == 302
