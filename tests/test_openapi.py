"""The OpenAPI schema says what the API does: .ci/api-fuzz (schemathesis) checks every answer
against it; these tests keep the points it once got wrong from coming back under `make test`."""
from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

ITEMS = "/api/items/"


@pytest.fixture
def schema() -> dict:
    response = APIClient().get("/api/schema/", {"format": "json"}, secure=True)
    assert response.status_code == 200
    return json.loads(response.content)


def operations(schema: dict):
    for path, methods in schema["paths"].items():
        for method, operation in methods.items():
            if method != "parameters":
                yield path, method, operation


def test_the_edition_and_translation_links_are_nullable(schema):
    item = schema["components"]["schemas"]["Item"]["properties"]
    for name in ("previous_edition", "next_edition", "translation_of"):
        assert item[name].get("nullable") is True, name


def test_the_bad_requests_and_missing_pages_of_the_item_list_are_documented(schema, librarian_api):
    responses = schema["paths"]["/api/items/"]["get"]["responses"]
    assert {"200", "400", "404"} <= set(responses)
    bad = librarian_api.get(ITEMS, {"state": "Lost"}, secure=True)
    assert bad.status_code == 400
    assert bad.json() == {"state": ["one of Original, Copy, Deleted"]}  # a field's errors
    gone = librarian_api.get(ITEMS, {"page": 2}, secure=True)
    assert gone.status_code == 400 and "next link" in gone.json()["page"][0]
    assert librarian_api.get(ITEMS, {"page": 1}, secure=True).status_code == 200
    lost = librarian_api.get(ITEMS, {"cursor": "not-a-cursor"}, secure=True)
    assert lost.status_code == 404 and "invalid cursor" in lost.json()["detail"]


def test_every_error_answer_has_a_json_schema(schema):
    for path, method, operation in operations(schema):
        for code, response in operation["responses"].items():
            if code.startswith(("4", "5")):
                assert "application/json" in response.get("content", {}), (path, method, code)
        if "/{ibi}" in path:
            assert "404" in operation["responses"], (path, method)


def test_reads_are_declared_anonymous_and_writes_are_not(schema):
    """Reads are anonymous, but for an item's secret links and preservation events (the
    librarians', issue 38), a librarian's own uploads (/api/uploads/<id>, tus), and one's
    submissions and tasks (issue 35)."""
    for path, method, operation in operations(schema):
        anonymous = {} in operation.get("security", [])
        own = path.endswith(("/links", "/events")) or path.startswith(
            ("/api/uploads/", "/api/submissions/", "/api/tasks/"))
        assert anonymous == (method == "get" and not own), (path, method)


def test_the_bodies_that_refuse_unknown_fields_say_so(schema):
    components = schema["components"]["schemas"]
    assert components["DepositRequest"]["additionalProperties"] is False
    assert components["PatchedItemUpdateRequest"]["additionalProperties"] is False


def test_every_free_text_query_parameter_refuses_a_nul_as_the_api_does(schema, anonymous_api):
    """The middleware refuses a NUL in any query (400): no string parameter may promise it."""
    import re

    free = [(path, parameter) for path, _, operation in operations(schema)
            for parameter in operation.get("parameters", [])
            if parameter["in"] == "query" and parameter["schema"].get("type") == "string"
            and "enum" not in parameter["schema"]]
    assert {parameter["name"] for path, parameter in free if path == ITEMS} >= {
        "search", "creator", "subject", "type", "language", "cursor"}
    for path, parameter in free:
        assert not re.fullmatch(parameter["schema"]["pattern"], "a\x00b"), (path, parameter)
    assert anonymous_api.get(ITEMS, {"creator": "a\x00b"}, secure=True).status_code == 400


def test_an_anonymous_read_gets_what_the_schema_promises(librarian_api):
    record = librarian_api.post(ITEMS, {"title": "T", "files": [SimpleUploadedFile("a.txt", b"a")]},
                                format="multipart", secure=True).json()
    assert record["previous_edition"] is None and record["translation_of"] is None
    assert APIClient().get(ITEMS + record["ibi"], secure=True).status_code == 200


@pytest.mark.parametrize("page_size", ["null", "0", "-1", "2.5", "٣"])
def test_an_unreadable_page_size_is_a_400_not_silently_the_default(librarian_api, page_size):
    response = librarian_api.get(ITEMS, {"page_size": page_size}, secure=True)
    assert response.status_code == 400 and "page_size" in response.json()


def test_an_ibi_with_a_newline_is_a_json_404_not_the_sites_html_page(librarian_api):
    response = librarian_api.delete(ITEMS + "a%0Ab/c", secure=True)
    assert response.status_code == 404 and "detail" in response.json()


def test_a_deleted_item_and_its_statistics_answer_410_with_the_tombstone_only(librarian_api):
    record = librarian_api.post(ITEMS, {"title": "T", "files": [SimpleUploadedFile("a.txt", b"a")]},
                                format="multipart", secure=True).json()
    librarian_api.delete(ITEMS + record["ibi"], secure=True)
    gone = APIClient().get(ITEMS + record["ibi"], secure=True)
    assert gone.status_code == 410 and gone.json()["state"] == "Deleted"
    stats = APIClient().get(ITEMS + record["ibi"] + "/statistics", secure=True)
    assert stats.status_code == 410 and stats.json() == gone.json()  # no counts, no metadata


def test_a_target_file_with_a_control_character_is_a_400_not_a_500(librarian_api):
    response = librarian_api.post(ITEMS, {"title": "T", "target_file": "a\x01.txt",
                                          "files": [SimpleUploadedFile("a.txt", b"a")]},
                                  format="multipart", secure=True)
    assert response.status_code == 400 and "target_file" in response.json()["detail"]


def test_one_dublin_core_value_needs_no_list(librarian_api):
    record = librarian_api.post(ITEMS, {"title": "T", "files": [SimpleUploadedFile("a.txt", b"a")]},
                                format="multipart", secure=True).json()
    changed = librarian_api.patch(ITEMS + record["ibi"], {"creator": "Banon, G."}, format="json",
                                  secure=True)
    assert changed.status_code == 200 and changed.json()["creator"] == ["Banon, G."]


def test_an_empty_state_filter_is_a_400(librarian_api):
    assert librarian_api.get(ITEMS, {"state": ""}, secure=True).status_code == 400


def test_a_creator_is_a_name_or_a_name_with_an_orcid_id_in_the_schema_and_in_answers(
        schema, librarian_api):
    components = schema["components"]["schemas"]
    given = components["PatchedItemUpdateRequest"]["properties"]["creator"]["anyOf"]
    assert given[0] == {"type": "string"}
    assert given[1]["properties"].keys() == {"name", "orcid"}
    assert given[2]["items"]["anyOf"] == given[:2]
    creators = components["Item"]["properties"]["creators"]
    assert creators["items"]["$ref"].endswith("/Creator")
    assert components["Creator"]["required"] == ["name", "orcid", "orcid_authenticated"]
    record = librarian_api.post(ITEMS, {"title": "T", "files": [SimpleUploadedFile("a.txt", b"a")]},
                                format="multipart", secure=True).json()
    answer = librarian_api.patch(ITEMS + record["ibi"], {"creator": [
        "Silva, J.", {"name": "Carberry, Josiah", "orcid": "0000-0002-1825-0097"}]},
        format="json", secure=True).json()
    assert answer["creator"] == ["Silva, J.", "Carberry, Josiah"]
    assert answer["creators"][1] == {"name": "Carberry, Josiah", "orcid": "0000-0002-1825-0097",
                                     "orcid_authenticated": False}


def test_the_item_list_is_documented_as_walked_by_cursor_without_a_count(schema):
    operation = schema["paths"]["/api/items/"]["get"]
    parameters = {p["name"]: p for p in operation["parameters"]}
    assert {"cursor", "page_size"} <= set(parameters)
    assert parameters["page"]["deprecated"] is True and parameters["page"]["schema"]["enum"] == [1]
    ref = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    page = schema["components"]["schemas"][ref.rsplit("/", 1)[-1]]
    assert {"next", "previous", "results"} <= set(page["properties"])
    assert "count" not in page["properties"]
