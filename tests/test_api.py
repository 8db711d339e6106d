"""The REST API under /api/ through DRF's client, over HTTPS as production forces it."""
from __future__ import annotations

import hashlib
import json
import re
import threading
from unittest import mock

import pytest
import yaml
from django.contrib.auth.models import Permission, User
from django.db import connection
from django.utils.html import escape
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from archive.deposit import services
from archive.models import DcValue, Item, ItemFile
from tests import factories as make

ITEMS = "/api/items/"
PDF = b"%PDF-1.4\n" + bytes(range(256)) * 64 + b"\n%%EOF\n"
TEXT = "Relatório final\n".encode()

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def upload_dir(settings, tmp_path):
    """Where uploads wait on disk: every test checks that nothing is left behind."""
    folder = tmp_path / "uploads"
    folder.mkdir()
    settings.FILE_UPLOAD_TEMP_DIR = str(folder)
    return folder


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def stored(media) -> list[str]:
    """Every file under the media folder, as paths relative to it."""
    return sorted(str(p.relative_to(media)) for p in media.rglob("*") if p.is_file())


def items_here() -> int:
    """The items of this Archive, the archive service aside."""
    return Item.objects.filter(is_archive_service=False).count()


# -- Deposit -----------------------------------------------------------------------------------

def test_deposit_answers_the_record_and_stores_the_files(librarian_api, media, upload_dir):
    response = make.posted(librarian_api, title="Relatório final", language="pt-br",
                           target_file="report.pdf",
                           files=[make.uploaded(("notes.txt", TEXT, "text/plain")),
                                  make.uploaded(("report.pdf", PDF))],
                           sha256=[sha(TEXT), sha(PDF)], creator=["Banon, G.", "Silva, A."],
                           subject=["identifiers"], date=["2013-09-04"], rights=["CC-BY"])
    assert response.status_code == 201, response.json()
    record = response.json()
    item = Item.objects.get(ibi=record["ibi"])
    assert record["ibip"] == item.ibip
    assert (record["state"], record["language"], record["title"]) == (
        "Original", "pt-BR", "Relatório final")
    assert record["target_file"] == "report.pdf"
    assert record["creator"] == ["Banon, G.", "Silva, A."]
    assert (record["subject"], record["date"], record["rights"]) == (
        ["identifiers"], ["2013-09-04"], ["CC-BY"])
    assert record["publisher"] == []
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", record["timestamp"])
    assert record["persistent_url"].endswith(f"/{item.ibi}")
    assert record["landing_url"].endswith(f"/items/{item.ibi}")
    assert response["Location"] == f"https://testserver/api/items/{item.ibi}"
    files = {f["name"]: f for f in record["files"]}
    assert files["report.pdf"]["sha256"] == sha(PDF)
    assert files["report.pdf"]["size"] == len(PDF)
    assert files["report.pdf"]["content_type"] == "application/pdf"  # from the name
    assert files["notes.txt"]["content_type"] == "text/plain"
    assert files["notes.txt"]["url"].endswith(f"/col/{item.ibi}/doc/notes.txt")
    assert stored(media) == [f"col/{item.ibi}/doc/notes.txt", f"col/{item.ibi}/doc/report.pdf"]
    assert (media / "col" / item.ibi / "doc" / "report.pdf").read_bytes() == PDF
    assert list(upload_dir.iterdir()) == []


def test_deposit_links_editions_and_translations_by_either_form(librarian_api):
    first = make.posted(librarian_api, ("report.pdf", PDF, "application/pdf"), title="First").json()
    english = make.posted(librarian_api, ("report.pdf", PDF, "application/pdf"),
                          title="In English", language="en").json()
    second = make.posted(librarian_api, ("report.pdf", PDF, "application/pdf"), title="Second",
                         previous_edition=first["ibi"].upper(),
                         translation_of=english["ibip"].lower()).json()
    assert second["previous_edition"] == first["ibi"]
    assert second["translation_of"] == english["ibi"]
    assert librarian_api.get(ITEMS + first["ibi"],
                             secure=True).json()["next_edition"] == second["ibi"]
    assert librarian_api.get(ITEMS + english["ibi"],
                             secure=True).json()["translations"] == [second["ibi"]]


@pytest.mark.parametrize("field", ["previous_edition", "translation_of"])
def test_an_unknown_linked_ibi_is_a_400_saying_so(librarian_api, media, field):
    response = make.posted(librarian_api, ("report.pdf", PDF, "application/pdf"), title="A report",
                           **{field: "example.org/x/2020/01.01.00.00"})
    assert response.status_code == 400
    assert "example.org/x/2020/01.01.00.00" in response.json()[field][0]
    assert items_here() == 0 and stored(media) == []


def test_title_and_files_are_required(librarian_api):
    assert make.posted(librarian_api, ("report.pdf", PDF, "application/pdf"),
                       title="").status_code == 400
    response = librarian_api.post(ITEMS, {"title": "No files"}, format="multipart", secure=True)
    assert response.status_code == 400 and "files" in response.json()


def test_a_target_file_that_is_not_deposited_is_refused(librarian_api, media):
    response = make.posted(librarian_api, ("report.pdf", PDF, "application/pdf"), title="A report",
                           target_file="other.pdf")
    assert response.status_code == 400 and "other.pdf" in response.json()["detail"]
    assert items_here() == 0 and stored(media) == []


@pytest.mark.parametrize("target", ["report\x01.pdf", "report\x7f.pdf", "evil\u202efdp.pdf",
                                    "report\u2066.pdf", "report\n.pdf"])
def test_a_control_or_bidi_character_in_target_file_is_a_400_not_a_500(librarian_api, media,
                                                                       target):
    response = make.posted(librarian_api, ("report.pdf", PDF, "application/pdf"), title="A report",
                           target_file=target)
    assert response.status_code == 400
    assert "target_file: file names must not contain control or bidirectional" in (
        response.json()["detail"])
    assert items_here() == 0 and stored(media) == []


def test_patch_refuses_a_control_or_bidi_character_in_target_file(librarian_api):
    record = make.posted(librarian_api, ("report.pdf", PDF, "application/pdf"),
                         title="A report").json()
    response = librarian_api.patch(ITEMS + record["ibi"], {"target_file": "report\u202e.pdf"},
                                   format="json", secure=True)
    assert response.status_code == 400 and "control or bidirectional" in (
        response.json()["detail"])


# -- Reading -----------------------------------------------------------------------------------

def test_an_item_is_read_by_either_form_in_any_case_anonymously(librarian_api, anonymous_api):
    record = make.posted(librarian_api, ("report.pdf", PDF, "application/pdf"),
                         title="A report").json()
    for ibi in (record["ibi"], record["ibi"].upper(), record["ibip"], record["ibip"].lower()):
        response = anonymous_api.get(ITEMS + ibi, secure=True)
        assert response.status_code == 200, ibi
        assert response.json()["ibi"] == record["ibi"]


@pytest.mark.parametrize("ibi", ["example.org/x/2020/01.01.00.00", "not an ibi", "a/b/c/d/e/f",
                                 "8JMKD3MGP7W/3EPGUE5/files/x"])
def test_an_unknown_or_invalid_ibi_is_a_json_404(anonymous_api, ibi):
    response = anonymous_api.get(ITEMS + ibi, secure=True)
    assert response.status_code == 404
    assert "detail" in response.json()


def test_the_archive_service_is_neither_listed_nor_served(anonymous_api):
    service = services.ensure_archive_service()
    assert anonymous_api.get(ITEMS, secure=True).json()["results"] == []
    assert anonymous_api.get(ITEMS + service.ibi, secure=True).status_code == 404


def test_the_list_filters_by_state_and_language_and_searches_title_and_creators(librarian_api):
    ibis = {}
    for title, language, creator in [("Solar wind", "en", "Banon"), ("Vento solar", "pt-BR",
                                     "Silva"), ("Ventos", "pt", "Banon")]:
        ibis[title] = make.posted(librarian_api, ("report.pdf", PDF, "application/pdf"),
                                  title=title, language=language, creator=[creator]).json()["ibi"]
    librarian_api.delete(ITEMS + ibis["Ventos"], secure=True)

    def titles(**query) -> list[str]:
        response = librarian_api.get(ITEMS, query, secure=True)
        assert response.status_code == 200
        return sorted(r["title"] for r in response.json()["results"])

    assert titles() == ["Solar wind", "Vento solar", "Ventos"]
    assert titles(state="deleted") == ["Ventos"]
    assert titles(state="Original") == ["Solar wind", "Vento solar"]
    # A tombstone (Ventos) is found by what it shows, its title and state: not by its
    # language or creators, which it no longer shows.
    assert titles(language="pt") == ["Vento solar"]
    assert titles(language="PT-br") == ["Vento solar"]
    assert titles(search="solar") == ["Solar wind", "Vento solar"]
    assert titles(search="banon") == ["Solar wind"]
    # The tombstone by its title; PostgreSQL stems Portuguese, so "ventos" finds "Vento" too.
    stemmed = connection.vendor == "postgresql"
    assert titles(search="ventos") == (["Vento solar", "Ventos"] if stemmed else ["Ventos"])
    assert titles(search="banon solar") == ["Solar wind"]
    assert librarian_api.get(ITEMS, {"state": "lost"}, secure=True).status_code == 400


def test_the_list_is_paginated_in_a_fixed_number_of_queries(librarian_api, anonymous_api,
                                                            django_assert_max_num_queries):
    for n in range(3):
        make.posted(librarian_api, title=f"Item {n}", creator=["A"],
                    files=[make.uploaded(("a.txt", b"a")),
                           make.uploaded(("b.txt", b"b"))])
    with django_assert_max_num_queries(8):
        page = anonymous_api.get(ITEMS, {"page_size": 2}, secure=True).json()
    assert "count" not in page and len(page["results"]) == 2 and page["next"]
    assert [f["name"] for f in page["results"][0]["files"]] == ["a.txt", "b.txt"]


# -- Changing ----------------------------------------------------------------------------------

def test_patch_changes_metadata_and_replaces_only_the_elements_given(librarian_api):
    english = make.posted(librarian_api, ("report.pdf", PDF, "application/pdf"),
                          title="Original text", language="en").json()
    record = make.posted(librarian_api, title="Old", creator=["A"], subject=["x"],
                         files=[make.uploaded(("a.txt", b"a")),
                                make.uploaded(("b.txt", b"b"))]).json()
    response = librarian_api.patch(ITEMS + record["ibip"], {
        "title": "New", "language": "pt-br", "target_file": "b.txt", "creator": ["B", "C"],
        "translation_of": english["ibi"]}, format="json", secure=True)
    assert response.status_code == 200, response.json()
    changed = response.json()
    assert (changed["title"], changed["language"], changed["target_file"]) == (
        "New", "pt-BR", "b.txt")
    assert changed["creator"] == ["B", "C"] and changed["subject"] == ["x"]
    assert changed["translation_of"] == english["ibi"]
    assert changed["ibi"] == record["ibi"]
    cleared = librarian_api.patch(ITEMS + record["ibi"], {"translation_of": None}, format="json",
                                  secure=True)
    assert cleared.json()["translation_of"] is None


@pytest.mark.parametrize("body", [{"ibi": "example.org/x/2020/01.01.00.00"},
                                  {"ibip": "8JMKD3MGP7W/3EPGUE5"}, {"state": "Copy"},
                                  {"title": "T", "files": []}])
def test_patch_refuses_the_fields_it_cannot_change(librarian_api, body):
    record = make.posted(librarian_api, ("report.pdf", PDF, "application/pdf"),
                         title="A report").json()
    response = librarian_api.patch(ITEMS + record["ibi"], body, format="json", secure=True)
    assert response.status_code == 400
    assert "cannot change" in response.json()["detail"]
    assert librarian_api.get(ITEMS + record["ibi"], secure=True).json() == record


@pytest.mark.parametrize("body", [[None, None], ["title"], "title", 3])
def test_patch_refuses_a_body_that_is_no_object(librarian_api, body):
    """Found by schemathesis once it had a real item to PATCH: a JSON list was a 500."""
    record = make.posted(librarian_api, ("report.pdf", PDF, "application/pdf"),
                         title="A report").json()
    response = librarian_api.patch(ITEMS + record["ibi"], body, format="json", secure=True)
    assert response.status_code == 400
    assert response.json() == {"detail": "the body must be a JSON object of fields"}
    assert librarian_api.get(ITEMS + record["ibi"], secure=True).json() == record


@pytest.mark.parametrize(("body", "kind"), [
    ({}, "json"),
    # Found by schemathesis: a list sent as a form is a form of no field, which was a 200.
    (b"--b\r\n[]--b\r\n", "multipart/form-data; boundary=b")])
def test_patch_refuses_a_body_that_names_no_field(librarian_api, body, kind):
    record = make.posted(librarian_api, ("report.pdf", PDF, "application/pdf"),
                         title="A report").json()
    if kind == "json":
        response = librarian_api.patch(ITEMS + record["ibi"], body, format="json", secure=True)
    else:
        response = librarian_api.generic("PATCH", ITEMS + record["ibi"], body,
                                         content_type=kind, secure=True)
    assert response.status_code == 400
    assert response.json() == {"detail": "the body names no field to change"}
    assert librarian_api.get(ITEMS + record["ibi"], secure=True).json() == record


def test_patch_refuses_a_bad_language_or_target_file(librarian_api):
    record = make.posted(librarian_api, ("report.pdf", PDF, "application/pdf"),
                         title="A report").json()
    for body in ({"language": "not a tag"}, {"target_file": "missing.pdf"}, {"title": ""}):
        assert librarian_api.patch(ITEMS + record["ibi"], body, format="json",
                                   secure=True).status_code == 400, body


def test_files_are_added_but_never_overwritten(librarian_api, media):
    record = make.posted(librarian_api, ("report.pdf", PDF, "application/pdf"),
                         title="A report").json()
    url = f"{ITEMS}{record['ibi']}/files"
    response = librarian_api.post(url,
                                  {"files": [make.uploaded(("annex.txt", TEXT))],
                                   "sha256": sha(TEXT)},
                                  format="multipart", secure=True)
    assert response.status_code == 201, response.json()
    assert [f["name"] for f in response.json()["files"]] == ["annex.txt", "report.pdf"]
    again = librarian_api.post(url, {"files": [make.uploaded(("report.pdf", b"other bytes"))]},
                               format="multipart", secure=True)
    assert again.status_code == 409
    assert (media / "col" / record["ibi"] / "doc" / "report.pdf").read_bytes() == PDF
    mismatch = librarian_api.post(url,
                                  {"files": [make.uploaded(("more.txt", b"x"))],
                                   "sha256": sha(b"y")},
                                  format="multipart", secure=True)
    assert mismatch.status_code == 409
    assert not (media / "col" / record["ibi"] / "doc" / "more.txt").exists()


def test_delete_leaves_a_readable_tombstone(librarian_api, anonymous_api, media):
    record = make.posted(librarian_api, ("report.pdf", PDF, "application/pdf"),
                         title="A report").json()
    response = librarian_api.delete(ITEMS + record["ibi"], secure=True)
    assert response.status_code == 200
    assert response.json()["state"] == "Deleted" and response.json()["deleted_at"]
    gone = anonymous_api.get(ITEMS + record["ibip"], secure=True)
    assert gone.status_code == 410  # as its persistent URL answers; the record is the body
    tombstone = gone.json()
    assert (tombstone["ibi"], tombstone["state"]) == (record["ibi"], "Deleted")
    assert librarian_api.patch(ITEMS + record["ibi"], {"title": "Back"}, format="json",
                               secure=True).status_code == 409
    assert librarian_api.delete(ITEMS + record["ibi"], secure=True).status_code == 200
    assert Item.objects.get(ibi=record["ibi"]).is_deleted


# -- Who may write ------------------------------------------------------------------------------

def test_anonymous_writes_are_401(librarian_api, anonymous_api, media):
    record = make.posted(librarian_api, ("report.pdf", PDF, "application/pdf"),
                         title="A report").json()
    assert make.posted(anonymous_api, ("report.pdf", PDF, "application/pdf"),
                       title="A report").status_code == 401
    assert anonymous_api.patch(ITEMS + record["ibi"], {"title": "X"}, format="json",
                               secure=True).status_code == 401
    assert anonymous_api.delete(ITEMS + record["ibi"], secure=True).status_code == 401
    assert anonymous_api.post(f"{ITEMS}{record['ibi']}/files",
                              {"files": [make.uploaded(("x", b"x"))]},
                              format="multipart", secure=True).status_code == 401
    wrong = APIClient()
    wrong.credentials(HTTP_AUTHORIZATION="Token 0123456789abcdef0123456789abcdef01234567")
    assert make.posted(wrong, ("report.pdf", PDF, "application/pdf"),
                       title="A report").status_code == 401
    assert items_here() == 1


def test_users_without_the_permissions_get_403(librarian_api, media):
    record = make.posted(librarian_api, ("report.pdf", PDF, "application/pdf"),
                         title="A report").json()
    reader = make.token_client(User.objects.create_user("reader"))
    assert make.posted(reader, ("report.pdf", PDF, "application/pdf"),
                       title="A report").status_code == 403
    assert reader.patch(ITEMS + record["ibi"], {"title": "X"}, format="json",
                        secure=True).status_code == 403
    assert reader.delete(ITEMS + record["ibi"], secure=True).status_code == 403
    adder = User.objects.create_user("adder")
    adder.user_permissions.add(Permission.objects.get(codename="add_item"))
    adder_api = make.token_client(adder)
    assert make.posted(adder_api, ("report.pdf", PDF, "application/pdf"),
                       title="A report").status_code == 201
    assert adder_api.post(f"{ITEMS}{record['ibi']}/files", {"files": [make.uploaded(("x", b"x"))]},
                          format="multipart", secure=True).status_code == 403
    assert items_here() == 2


def test_plain_http_is_redirected_to_https(anonymous_api):
    response = anonymous_api.get(ITEMS)
    assert response.status_code == 301 and response["Location"].startswith("https://")


# -- Hostile and odd input ----------------------------------------------------------------------

@pytest.mark.parametrize("name", ["../../x", "..\\x", "/etc/x", "C:\\x", "a/../../x"])
def test_a_path_in_a_file_name_is_reduced_to_the_bare_name(librarian_api, media, upload_dir, name):
    response = make.posted_raw(librarian_api, ITEMS, [(name, b"data")], dict((("title", "T"),)))
    assert response.status_code == 201, response.json()
    rep = response.json()["ibi"]
    assert [f["name"] for f in response.json()["files"]] == ["x"]
    assert stored(media) == [f"col/{rep}/doc/x"]
    assert list(upload_dir.iterdir()) == []


@pytest.mark.parametrize("name", ["a\x00b.pdf", "tab\there.txt", "bell\x07", "del\x7f.txt",
                                  "c1\x85.txt", "..", "../..", "x" * 256, "é" * 128 + ".pdf"])
def test_names_with_control_characters_or_too_long_are_refused(librarian_api, media, upload_dir,
                                                               name):
    response = make.posted_raw(librarian_api, ITEMS, [("fine.txt", b"ok"), (name, b"data")],
                               dict((("title", "T"),)))
    assert response.status_code == 400, response.content
    assert items_here() == 0 and stored(media) == []
    assert list(upload_dir.iterdir()) == []


@pytest.mark.parametrize("name", ["Relatório Final.pdf", "日本語の報告.txt", "x" * 251 + ".pdf",
                                  "a\u0301.txt", "space  and 'quote'.txt"])
def test_unicode_and_long_but_valid_names_are_kept(librarian_api, media, name):
    response = make.posted_raw(librarian_api, ITEMS, [(name, b"data")], dict((("title", "T"),)))
    assert response.status_code == 201, response.content
    record = response.json()
    kept = record["files"][0]["name"]
    assert kept == (name if name != "a\u0301.txt" else "\u00e1.txt")  # NFC, as on every OS
    assert stored(media) == [f"col/{record['ibi']}/doc/{kept}"]


def test_a_file_over_the_limit_is_413_and_nothing_is_stored(librarian_api, media, settings,
                                                            upload_dir):
    settings.IBI_MAX_FILE_SIZE = 100_000
    response = make.posted(librarian_api, title="A report",
                           files=[make.uploaded(("small.txt", b"s")),
                                  make.uploaded(("big.bin", b"x" * 100_001))])
    assert response.status_code == 413
    assert "big.bin" in response.json()["detail"]
    assert items_here() == 0 and stored(media) == []
    assert list(upload_dir.iterdir()) == []
    exact = make.posted(librarian_api, title="A report",
                        files=[make.uploaded(("exact.bin", b"x" * 100_000))])
    assert exact.status_code == 201


def test_an_admin_form_over_the_limit_is_a_413_page_not_a_500(settings, upload_dir):
    settings.IBI_MAX_FILE_SIZE = 1000
    client = APIClient(enforce_csrf_checks=True)
    response = client.post("/admin/login/",
                           {"username": "a", "file": make.uploaded(("f", b"x" * 1001))},
                           format="multipart", secure=True)
    assert response.status_code == 413
    assert response["Content-Type"].startswith("text/plain")
    assert list(upload_dir.iterdir()) == []


def test_an_admin_form_with_too_many_files_or_a_too_long_name_is_400_not_500(settings):
    settings.IBI_MAX_FILES = 1
    client = APIClient()
    files = [make.uploaded(("a", b"a")), make.uploaded(("b", b"b"))]
    assert client.post("/admin/login/", {"file": files}, format="multipart",
                       secure=True).status_code == 400
    # (By hand: the test client would cut the name to 255 characters itself.)
    assert make.posted_raw(client, "/admin/login/", [("x" * 256, b"x")],
                           dict((("title", "T"),))).status_code == 400


def test_too_many_files_is_400_and_nothing_is_stored(librarian_api, media, settings, upload_dir):
    settings.IBI_MAX_FILES = 3
    response = make.posted(librarian_api, title="A report",
                           files=[make.uploaded((f"{n}.txt", b"n")) for n in range(4)])
    assert response.status_code == 400
    assert "3" in response.json()["detail"]
    assert items_here() == 0 and stored(media) == []
    assert list(upload_dir.iterdir()) == []
    assert make.posted(librarian_api, title="A report",
                       files=[make.uploaded((f"{n}.txt",
                                             b"n")) for n in range(3)]).status_code == 201


def test_a_sha256_mismatch_is_409_and_nothing_is_stored(librarian_api, media, upload_dir):
    response = make.posted(librarian_api, title="A report",
                           files=[make.uploaded(("a.txt", b"a")),
                                  make.uploaded(("b.txt",
                                                 b"b"))], sha256=[sha(b"a"), sha(b"not b")])
    assert response.status_code == 409
    assert "b.txt" in response.json()["detail"]
    assert items_here() == 0 and stored(media) == []
    assert list(upload_dir.iterdir()) == []


def test_checksums_may_come_in_one_field_in_any_case(librarian_api):
    response = make.posted(librarian_api, title="A report",
                           files=[make.uploaded(("a.txt", b"a")), make.uploaded(("b.txt", b"b"))],
                           sha256=f"{sha(b'a').upper()}, {sha(b'b')}")
    assert response.status_code == 201, response.json()


@pytest.mark.parametrize("sums", [["abc"], [sha(b"a")], [sha(b"a")] * 3])
def test_malformed_or_miscounted_checksums_are_400(librarian_api, media, sums):
    response = make.posted(librarian_api, title="A report",
                           files=[make.uploaded(("a.txt", b"a")),
                                  make.uploaded(("b.txt", b"b"))], sha256=sums)
    assert response.status_code == 400
    assert items_here() == 0 and stored(media) == []


def test_the_same_name_twice_in_one_deposit_is_refused(librarian_api, media):
    # A mistake within the request (400), not a clash with what is stored (409).
    response = make.posted_raw(librarian_api, ITEMS, [("dir/x", b"1"), ("other/x", b"2")],
                               dict((("title", "T"),)))
    assert response.status_code == 400
    assert response.json() == {"detail": "two files would be named 'x'"}
    assert items_here() == 0 and stored(media) == []


@pytest.mark.parametrize("model", [ItemFile, DcValue])
def test_a_failure_before_commit_leaves_no_item_and_no_file(librarian_api, media, model):
    librarian_api.raise_request_exception = False
    with mock.patch.object(model.objects, "bulk_create", side_effect=RuntimeError("disk on fire")):
        response = make.posted(librarian_api, title="A report", creator=["A"],
                               files=[make.uploaded(("a.txt", b"a")),
                                      make.uploaded(("b.txt", b"b"))])
    assert response.status_code == 500
    assert items_here() == 0 and ItemFile.objects.count() == 0
    assert stored(media) == []


def test_a_lost_race_for_an_edition_link_is_409_and_leaves_no_file(librarian_api, media):
    first = make.posted(librarian_api, ("report.pdf", PDF, "application/pdf"), title="First").json()
    make.posted(librarian_api, ("report.pdf", PDF, "application/pdf"), title="Second",
                previous_edition=first["ibi"])
    # The loser of two concurrent deposits passed the service's check before the winner
    # committed: only the database's unique constraint stops it.
    with mock.patch.object(services, "_check_links"), mock.patch.object(services, "_full_clean"):
        response = make.posted(librarian_api, title="Also second", previous_edition=first["ibi"],
                               files=[make.uploaded(("loser.txt", b"x"))])
    assert response.status_code == 409
    assert items_here() == 2
    assert not [p for p in stored(media) if p.endswith("loser.txt")]


@pytest.mark.django_db(transaction=True)
def test_concurrent_deposits_get_distinct_ibis(media):
    services.ensure_librarians_group()
    user = User.objects.create_user("ana")
    user.groups.add(services.ensure_librarians_group())
    key = Token.objects.create(user=user).key
    answers: list[tuple[int, dict]] = []
    start = threading.Barrier(8)

    def depositor(n: int) -> None:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
        start.wait()
        try:
            response = make.posted(client, title=f"Concurrent {n}",
                                   files=[make.uploaded((f"{n}.txt", str(n).encode()))])
            answers.append((response.status_code, response.json()))
        finally:
            connection.close()

    threads = [threading.Thread(target=depositor, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [code for code, _ in answers] == [201] * 8
    assert len({record["ibi"] for _, record in answers}) == 8
    assert len({record["ibip"] for _, record in answers}) == 8
    assert len(stored(media)) == 8


# -- Schema and documentation -------------------------------------------------------------------

def test_the_openapi_schema_describes_the_items_and_the_multipart_deposit(anonymous_api):
    response = anonymous_api.get("/api/schema/", {"format": "json"}, secure=True)
    assert response.status_code == 200
    schema = json.loads(response.content)
    assert schema["openapi"].startswith("3.")
    assert {"/api/items/", "/api/items/{ibi}", "/api/items/{ibi}/files"} <= set(schema["paths"])
    body = schema["paths"]["/api/items/"]["post"]["requestBody"]["content"]
    ref = body["multipart/form-data"]["schema"]["$ref"].rsplit("/", 1)[-1]
    fields = schema["components"]["schemas"][ref]["properties"]
    assert fields["files"]["items"]["format"] == "binary"
    assert {"title", "sha256", "creator", "previous_edition"} <= set(fields)
    as_yaml = yaml.safe_load(anonymous_api.get("/api/schema/", secure=True).content)
    assert "/api/items/" in as_yaml["paths"]


def test_the_documentation_page_needs_no_network(anonymous_api):
    response = anonymous_api.get("/api/docs/", secure=True)
    assert response.status_code == 200
    page = response.content.decode()
    assert "swagger-ui" in page and "drf_spectacular_sidecar" in page
    assert not re.search(r"""(src|href)=["']https?://""", page)


def test_transferable_is_taken_at_deposit(librarian_api, media):
    response = make.posted(librarian_api, title="A report", files=[make.uploaded(("a.txt", b"a"))],
                           transferable="false")
    assert response.status_code == 201
    assert response.json()["transferable"] is False


def test_an_unknown_field_is_refused_not_dropped(librarian_api, media):
    response = make.posted(librarian_api, title="A report", files=[make.uploaded(("a.txt", b"a"))],
                           creater="Bob")
    assert response.status_code == 400
    assert response.json() == {"detail": "unknown field creater"}
    assert items_here() == 0 and stored(media) == []


# -- Tombstones: one policy on every route -----------------------------------------------------

TOMBSTONE_FIELDS = {"ibi", "ibip", "state", "title", "timestamp", "persistent_url", "citation",
                    "deleted_at", "deletion_reason", "newer_edition"}


@pytest.fixture
def tombstone(librarian_api):
    """A deleted item with a description, creators and a file, and a newer edition."""
    record = make.posted(librarian_api, ("report.pdf", PDF, "application/pdf"),
                         title="Retracted study", creator=["Silva, Secret"],
                         description=["The confidential abstract"], subject=["hidden"]).json()
    newer = make.posted(librarian_api, ("report.pdf", PDF, "application/pdf"),
                        title="Corrected study", previous_edition=record["ibi"]).json()
    response = librarian_api.delete(ITEMS + record["ibi"],
                                    {"reason": "Retracted at the authors' request"},
                                    format="json", secure=True)
    assert response.status_code == 200
    return record, newer, response.json()


def assert_is_tombstone(data: dict, record: dict, newer: dict) -> None:
    assert set(data) == TOMBSTONE_FIELDS
    assert (data["ibi"], data["ibip"], data["state"]) == (record["ibi"], record["ibip"],
                                                          "Deleted")
    assert data["title"] == "Retracted study" and data["deleted_at"]
    assert data["deletion_reason"] == "Retracted at the authors' request"
    assert data["newer_edition"] == newer["ibi"]
    assert data["persistent_url"] == record["persistent_url"]
    assert "Retracted study" in data["citation"]
    text = json.dumps(data)
    assert "confidential" not in text and "hidden" not in text and "report.pdf" not in text


def test_delete_answers_the_tombstone_with_its_reason(tombstone):
    record, newer, answer = tombstone
    assert_is_tombstone(answer, record, newer)


def test_get_of_a_tombstone_gives_only_the_tombstone(anonymous_api, tombstone):
    record, newer, _ = tombstone
    for ibi in (record["ibi"], record["ibip"]):
        response = anonymous_api.get(ITEMS + ibi, secure=True)
        assert response.status_code == 410  # gone, as its persistent URL answers
        assert_is_tombstone(response.json(), record, newer)


def test_a_list_or_search_shows_a_tombstone_not_its_record(anonymous_api, tombstone):
    record, newer, _ = tombstone
    for query in ("?state=Deleted", "?search=retracted", ""):
        results = anonymous_api.get(ITEMS + query, secure=True).json()["results"]
        found = [r for r in results if r["ibi"] == record["ibi"]]
        assert len(found) == 1, query
        assert_is_tombstone(found[0], record, newer)


def test_a_tombstone_is_not_found_by_its_creators(anonymous_api, tombstone):
    assert anonymous_api.get(ITEMS + "?search=Secret", secure=True).json()["results"] == []


def test_the_file_list_of_a_tombstone_is_410_with_the_tombstone(anonymous_api, tombstone):
    record, newer, _ = tombstone
    response = anonymous_api.get(f"{ITEMS}{record['ibi']}/files", secure=True)
    assert response.status_code == 410
    assert_is_tombstone(response.json(), record, newer)
    live = anonymous_api.get(f"{ITEMS}{newer['ibi']}/files", secure=True)
    assert live.status_code == 200 and [f["name"] for f in live.json()] == ["report.pdf"]


def test_the_site_tombstone_shows_the_reason(client, tombstone):
    record, newer, _ = tombstone
    page = client.get(f"/items/{record['ibi']}")
    html = page.content.decode()
    assert page.status_code == 410 and "Reason: Retracted at the authors" in html
    assert "confidential" not in html and "report.pdf" not in html


@pytest.mark.parametrize("language", ["en", "pt-BR"])
def test_a_tombstones_citation_is_the_one_its_page_shows(client, anonymous_api, tombstone,
                                                         language):
    """By citeproc-py (metadata/cite.py), in the reader's language's default style: APA, or
    ABNT for a reader of Portuguese; its creators named, as they did not ask for removal."""
    record, _, _ = tombstone
    headers = {"Accept-Language": language}
    cited = anonymous_api.get(ITEMS + record["ibi"], secure=True, headers=headers).json()[
        "citation"]
    page = client.get(f"/items/{record['ibi']}", secure=True, headers=headers).content.decode()
    assert cited.startswith("SILVA, S." if language == "pt-BR" else "Silva, S. (")
    assert "Retracted study" in cited and escape(cited) in page


def test_a_delete_reason_with_a_control_character_is_refused(librarian_api):
    record = make.posted(librarian_api, ("report.pdf", PDF, "application/pdf"),
                         title="A report").json()
    response = librarian_api.delete(ITEMS + record["ibi"], {"reason": "bad\x07"}, format="json",
                                    secure=True)
    assert response.status_code == 400
    assert not Item.objects.get(ibi=record["ibi"]).is_deleted


# -- Idempotency-Key: a retried deposit is not a duplicate --------------------------------------

def keyed(client: APIClient, key: str, title: str = "Keyed report", data: bytes = PDF,
          **fields):
    return client.post(ITEMS,
                       {"title": title, "files": [make.uploaded(("report.pdf", data))], **fields},
                       format="multipart", secure=True, headers={"Idempotency-Key": key})


def test_a_retried_deposit_with_its_key_replays_the_same_item(librarian_api, media):
    first = keyed(librarian_api, "retry-1", creator=["Silva"])
    assert first.status_code == 201 and "Idempotent-Replayed" not in first
    again = keyed(librarian_api, "retry-1", creator=["Silva"])  # the client lost the first answer
    assert again.status_code == 201 and again["Idempotent-Replayed"] == "true"
    assert again.json() == first.json() and again["Location"] == first["Location"]
    assert items_here() == 1 and len(stored(media)) == 1


def test_the_same_key_with_another_body_is_409_and_deposits_nothing(librarian_api, media):
    assert keyed(librarian_api, "k").status_code == 201
    for changed in ({"title": "Other title"}, {"data": PDF + b"x"},
                    {"creator": ["Someone else"]}):
        response = keyed(librarian_api, "k", **changed)
        assert response.status_code == 409, changed
        assert "used for another request" in response.json()["detail"]
    assert items_here() == 1 and len(stored(media)) == 1


def test_users_do_not_share_keys(librarian_api, media):
    other = User.objects.create_user("bia")
    other.groups.add(services.ensure_librarians_group())
    mine, theirs = keyed(librarian_api, "shared"), keyed(make.token_client(other), "shared")
    assert mine.status_code == theirs.status_code == 201
    assert mine.json()["ibi"] != theirs.json()["ibi"] and items_here() == 2


def test_a_failed_deposit_releases_its_key(librarian_api):
    refused = keyed(librarian_api, "fix-me", target_file="missing.pdf")
    assert refused.status_code == 400
    assert keyed(librarian_api, "fix-me").status_code == 201


def test_keys_expire_after_a_day(librarian_api):
    from datetime import timedelta

    from archive.models import IdempotencyKey

    first = keyed(librarian_api, "old").json()
    IdempotencyKey.objects.update(created=IdempotencyKey.objects.get().created
                                  - timedelta(hours=24, seconds=1))
    again = keyed(librarian_api, "old")
    assert again.status_code == 201 and again.json()["ibi"] != first["ibi"]


class Killed(BaseException):
    """The process dies: nothing after this point of the request runs."""


def test_a_claim_left_by_a_killed_process_is_taken_over_by_a_later_retry(librarian_api, media,
                                                                         monkeypatch):
    from datetime import timedelta

    from archive.deposit.idempotency import IDEMPOTENCY_ABANDONED
    from archive.models import IdempotencyKey

    def killed(**fields):
        raise Killed

    from django.db.models import QuerySet

    with monkeypatch.context() as dying:
        dying.setattr(services, "item_deposit", killed)
        dying.setattr(QuerySet, "delete", lambda self: (0, {}))  # no clean-up runs either
        with pytest.raises(Killed):
            keyed(librarian_api, "killed")
    assert IdempotencyKey.objects.get().item is None and items_here() == 0
    # Soon after, the claim may still be a deposit at work: the retry is told to wait.
    waiting = keyed(librarian_api, "killed")
    assert waiting.status_code == 409 and "in progress" in waiting.json()["detail"]
    # Past IDEMPOTENCY_ABANDONED nobody is at work on it: the retry deposits, once.
    IdempotencyKey.objects.update(created=IdempotencyKey.objects.get().created
                                  - IDEMPOTENCY_ABANDONED - timedelta(seconds=1))
    assert keyed(librarian_api, "killed", title="Other").status_code == 409  # still another request
    taken = keyed(librarian_api, "killed")
    assert taken.status_code == 201 and "Idempotent-Replayed" not in taken
    again = keyed(librarian_api, "killed")
    assert again["Idempotent-Replayed"] == "true" and again.json()["ibi"] == taken.json()["ibi"]
    assert items_here() == 1 and len(stored(media)) == 1


def test_the_key_is_linked_in_the_items_own_transaction(librarian_api, monkeypatch):
    """Killed right after the item's commit, a deposit has already recorded its key: the
    retry replays it instead of depositing a duplicate."""
    from archive.models import IdempotencyKey

    real = services.item_deposit

    def killed_after_commit(**fields):
        real(**fields)
        raise Killed

    from django.db.models import QuerySet

    with monkeypatch.context() as dying:
        dying.setattr(services, "item_deposit", killed_after_commit)
        dying.setattr(QuerySet, "delete", lambda self: (0, {}))  # no clean-up runs either
        with pytest.raises(Killed):
            keyed(librarian_api, "late")
    assert IdempotencyKey.objects.get().item is not None
    again = keyed(librarian_api, "late")
    assert again.status_code == 201 and again["Idempotent-Replayed"] == "true"
    assert items_here() == 1


def test_a_first_request_whose_claim_was_taken_over_deposits_nothing(librarian_api, media,
                                                                     monkeypatch):
    """The first request outlived IDEMPOTENCY_ABANDONED and a retry took its claim over: the
    first may neither link its item (rolled back, 409) nor release the retry's claim."""
    from datetime import timedelta

    from archive.models import IdempotencyKey

    real = services.item_deposit

    def overtaken(**fields):
        # Meanwhile a retry took the claim over (it is the retry's timestamp now).
        IdempotencyKey.objects.update(created=IdempotencyKey.objects.get().created
                                      + timedelta(minutes=20))
        return real(**fields)

    with monkeypatch.context() as slow:
        slow.setattr(services, "item_deposit", overtaken)
        late = keyed(librarian_api, "slow")
    assert late.status_code == 409 and "took it over" in late.json()["detail"]
    assert items_here() == 0 and stored(media) == []
    claim = IdempotencyKey.objects.get()
    assert claim.item is None  # still the retry's


def test_a_bad_key_is_a_400(librarian_api):
    assert keyed(librarian_api, "x" * 256).status_code == 400
    assert items_here() == 0


def test_the_schema_documents_the_idempotency_key(anonymous_api):
    schema = json.loads(anonymous_api.get("/api/schema/", {"format": "json"}, secure=True).content)
    post = schema["paths"]["/api/items/"]["post"]
    header = [p for p in post["parameters"] if p["name"] == "Idempotency-Key"]
    assert header and header[0]["in"] == "header" and "409" in header[0]["description"]


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_requests_with_one_key_make_one_item(media):
    """The second request, while the first deposits, gets 409 "in progress"; one item only."""
    user = User.objects.create_user("ana")
    user.groups.add(services.ensure_librarians_group())
    token = Token.objects.create(user=user).key
    released = threading.Event()
    original = services.item_deposit
    answers: list = []

    def slow_deposit(**kwargs):
        assert released.wait(30)  # hold the first request mid-deposit
        return original(**kwargs)

    def client_request() -> None:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        try:
            response = keyed(client, "same")
            answers.append(response)
            if response.status_code == 409:
                released.set()
        finally:
            connection.close()

    with mock.patch.object(services, "item_deposit", slow_deposit):
        threads = [threading.Thread(target=client_request) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
    codes = sorted(r.status_code for r in answers)
    assert codes == [201, 409]
    busy = next(r for r in answers if r.status_code == 409)
    assert "in progress" in busy.json()["detail"]
    assert items_here() == 1 and len(stored(media)) == 1
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    replay = keyed(client, "same")  # the retry after the first finished: the same item
    assert replay.status_code == 201 and replay.json()["ibi"] == next(
        r for r in answers if r.status_code == 201).json()["ibi"]


# -- Idempotency-Key on every write, not only deposits -------------------------------------------

def test_files_added_again_with_their_key_are_replayed_not_refused(librarian_api, media):
    item = make.posted(librarian_api, ("report.pdf", PDF, "application/pdf"),
                       title="A report").json()
    url = f"{ITEMS}{item['ibi']}/files"

    def add(key: str, name: str = "annex.pdf"):
        return librarian_api.post(url, {"files": [make.uploaded((name, PDF))]},
                                  format="multipart", secure=True,
                                  headers={"Idempotency-Key": key})

    first, again = add("files-1"), add("files-1")  # the client lost the first answer
    assert first.status_code == again.status_code == 201
    assert again["Idempotent-Replayed"] == "true" and "Idempotent-Replayed" not in first
    assert [f["name"] for f in again.json()["files"]] == sorted(["annex.pdf", "report.pdf"])
    assert add("files-1", name="other.pdf").status_code == 409  # another request, same key
    assert add("files-2").status_code == 409  # a new key: a real second upload of that name


def test_a_method_a_route_lacks_is_405_whatever_its_key(librarian_api, media):
    item = make.posted(librarian_api, ("report.pdf", PDF, "application/pdf"),
                       title="A report", headers={"Idempotency-Key": "used"}).json()
    for url in (f"{ITEMS}{item['ibi']}/files", f"{ITEMS}{item['ibi']}/handover", ITEMS):
        answer = librarian_api.put(url, {}, format="json", secure=True,
                                   headers={"Idempotency-Key": "used"})
        assert answer.status_code == 405, (url, answer.json())
    again = make.posted(librarian_api, ("report.pdf", PDF, "application/pdf"),
                        title="A report", headers={"Idempotency-Key": "used"})
    assert again.status_code == 201 and again["Idempotent-Replayed"] == "true"


def test_a_patch_and_a_delete_with_their_keys_are_done_once(librarian_api):
    item = make.posted(librarian_api, ("report.pdf", PDF, "application/pdf"),
                       title="A report").json()
    url = f"{ITEMS}{item['ibi']}"

    def write(method, key: str, body: dict):
        return getattr(librarian_api, method)(url, body, format="json", secure=True,
                                              headers={"Idempotency-Key": key})

    assert write("patch", "p", {"title": "Renamed"}).status_code == 200
    again = write("patch", "p", {"title": "Renamed"})
    assert again.status_code == 200 and again["Idempotent-Replayed"] == "true"
    conflict = write("patch", "p", {"title": "Other"})
    assert conflict.status_code == 409 and "another request" in conflict.json()["detail"]
    assert write("delete", "p", {}).status_code == 409  # the key was a PATCH's
    gone, replayed = write("delete", "d", {"reason": "retracted"}), write(
        "delete", "d", {"reason": "retracted"})
    assert gone.status_code == replayed.status_code == 200
    assert replayed.json()["state"] == "Deleted" and replayed["Idempotent-Replayed"] == "true"
    assert Item.objects.get(ibi=item["ibi"]).title == "Renamed"


def test_a_failed_write_releases_its_key_for_the_corrected_request(librarian_api):
    item = make.posted(librarian_api, ("report.pdf", PDF, "application/pdf"),
                       title="A report").json()
    url = f"{ITEMS}{item['ibi']}"
    bad = librarian_api.patch(url, {"language": "portuguese"}, format="json", secure=True,
                              headers={"Idempotency-Key": "fix"})
    assert bad.status_code == 400
    from archive.models import IdempotencyKey

    assert not IdempotencyKey.objects.filter(key="fix").exists()
    fixed = librarian_api.patch(url, {"language": "pt-BR"}, format="json", secure=True,
                                headers={"Idempotency-Key": "fix"})
    assert fixed.status_code == 200 and fixed.json()["language"] == "pt-BR"
