"""The librarian's admin through Django's test client, signed in as a member of Librarians."""
from __future__ import annotations

import hashlib
import re
from urllib.parse import urlencode

import pytest
from django.contrib.auth.models import User
from django.core.files.storage import default_storage
from django.test import Client

from archive.deposit import services, storage
from archive.models import Item, MintingState, PendingUpload
from archive.protocol.pairs import loads, to_dict
from tests import factories as make

ADD = "/admin/archive/item/add/"
# The add form as a librarian fills it in Portuguese (the files apart).
FORM = {"title": "Relatório técnico", "language": "pt-br", "transferable": "on"}
SILVA = {"creator": ["Silva, J."]}


def change_url(item: Item) -> str:
    return f"/admin/archive/item/{item.pk}/change/"


def stored_keys() -> set[str]:
    keys, stack = set(), ["col"]
    while stack:
        folder = stack.pop()
        try:
            dirs, files = default_storage.listdir(folder)
        except FileNotFoundError:
            continue
        keys |= {f"{folder}/{f}" for f in files}
        stack += [f"{folder}/{d}" for d in dirs]
    return keys


# -- Deposit ---------------------------------------------------------------------------------

def test_the_form_only_checks_and_the_write_is_save_deposit(librarian):
    """Valid or refused, a bound form writes nothing (Django's UserCreationForm's way); what
    only the services know (here: a collection that reviews its deposits) is its error;
    a restricted file that is none of the files, its field's. save_deposit, which
    ItemAdmin.save_model calls, writes."""
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.http import QueryDict
    from django.utils.datastructures import MultiValueDict

    from archive.admin.forms import ItemAdminForm

    form_class = type("Form", (ItemAdminForm,), {"user": librarian})

    def bound(**fields):
        data = QueryDict(mutable=True)
        data.update({"title": "Only checked", "transferable": "on", **fields})
        files = MultiValueDict({"upload": [SimpleUploadedFile("a.txt", b"a")]})
        return form_class(data, files)

    theses = make.collection("teses", make.community("ppg"))
    make.reviewed(theses)
    refused = bound(collection=str(theses.pk))
    assert not refused.is_valid()
    assert refused.non_field_errors()[0].startswith("this collection reviews what is deposited")
    unknown = bound(restricted_files="b.txt")
    assert not unknown.is_valid()
    assert unknown.errors["restricted_files"] == ["b.txt is not one of the files"]
    form = bound(restricted_files="a.txt")
    assert form.is_valid(), form.errors
    assert not Item.objects.filter(title="Only checked").exists() and stored_keys() == set()
    item = form.save_deposit()
    assert Item.objects.get(title="Only checked") == item and item.files.get().restricted
    assert stored_keys() == {storage.file_key(item.ibi, "a.txt")}


@pytest.mark.parametrize("failure", ["full", "taken"])
def test_a_write_refused_after_the_checks_draws_the_form_again_and_keeps_nothing(
        librarian_client, monkeypatch, failure):
    """What no check foresees, the write refuses (a full storage, a name taken meanwhile):
    the form again with the refusal as its error, a full storage a 507 keeping nothing (not
    even the file as a pending upload), a name taken a 200 keeping the file to send again."""
    from archive.models import PendingUpload

    def refused(rep, name, fileobj, *bundle):
        if failure == "full":
            raise storage.StorageFull
        raise storage.StorageConflict(storage.file_key(rep, name))

    monkeypatch.setattr(storage, "store", refused)
    response = make.admin_deposit(librarian_client, ("a.txt", b"a"), title="Refused late")
    page = response.content.decode()
    assert response.status_code == (507 if failure == "full" else 200)
    assert 'class="errornote"' in page and 'name="title"' in page
    assert ("the storage is full" if failure == "full" else "already exists") in page
    assert not Item.objects.filter(title="Refused late").exists() and stored_keys() == set()
    assert [u.name for u in PendingUpload.objects.all()] == ([] if failure == "full"
                                                           else ["a.txt"])


def test_a_librarian_deposits_two_files_with_a_chosen_target_and_dublin_core(librarian_client):
    response = make.admin_deposit(librarian_client, ("report.pdf", b"%PDF-1.4 report"),
                                  ("data.csv", b"a,b\n1,2\n"), target_file="data.csv",
                                  dc_creator="Silva, J.\nSouza, M.\n", dc_subject="remote sensing",
                                  title="Relatório técnico", language="pt-br")
    assert response.status_code == 302, response.content.decode()[:3000]
    item = Item.objects.get(title="Relatório técnico")
    assert item.ibi and item.ibip and item.state == Item.State.ORIGINAL
    assert item.language == "pt-BR"
    assert item.target_file == "data.csv"
    assert item.dc("creator") == ["Silva, J.", "Souza, M."]
    assert item.dc("subject") == ["remote sensing"]
    files = {f.name: f for f in item.files.all()}
    assert set(files) == {"report.pdf", "data.csv"}
    assert files["data.csv"].sha256 == hashlib.sha256(b"a,b\n1,2\n").hexdigest()
    assert files["report.pdf"].content_type == "application/pdf"
    with default_storage.open(storage.file_key(item.ibi, "report.pdf")) as stored:
        assert stored.read() == b"%PDF-1.4 report"


def test_the_target_file_defaults_to_the_first_file(librarian_client):
    make.admin_deposit(librarian_client, ("b.txt", b"b"), ("a.txt", b"a"),
                       title="Relatório técnico", language="pt-br")
    assert Item.objects.get(title="Relatório técnico").target_file == "b.txt"


def test_it_links_a_new_edition_and_a_translation(librarian_client):
    first = make.item(("a.txt", b"first"), title="First edition", dc=SILVA)
    original = make.item(("a.txt", b"first"), title="Original in Portuguese", dc=SILVA)
    response = make.admin_deposit(librarian_client, ("v2.txt", b"second"), title="Second edition",
                                  previous_edition=first.pk, language="pt-br")
    assert response.status_code == 302
    response = make.admin_deposit(librarian_client, ("en.txt", b"english"), title="In English",
                                  language="en", translation_of=original.pk)
    assert response.status_code == 302
    second = Item.objects.get(title="Second edition")
    assert second.previous_edition == first and second.edition_number == 2
    assert second.edition_family == first.ibi
    assert Item.objects.get(title="In English").translation_of == original


def test_a_second_new_edition_of_the_same_item_is_a_form_error(librarian_client):
    first = make.item(("a.txt", b"first"), title="First edition", dc=SILVA)
    make.admin_deposit(librarian_client, ("v2.txt", b"2"), title="Second",
                       previous_edition=first.pk, language="pt-br")
    response = make.admin_deposit(librarian_client, ("v2b.txt", b"2b"), title="Rival",
                                  previous_edition=first.pk, language="pt-br")
    assert response.status_code == 200
    assert not Item.objects.filter(title="Rival").exists()
    assert "errornote" in response.content.decode()


def test_the_archive_service_is_neither_edited_nor_translated_through_links(librarian_client):
    service = Item.objects.get(is_archive_service=True)
    response = make.admin_deposit(librarian_client, ("x.txt", b"x"), title="Bad link",
                                  translation_of=service.pk, language="pt-br")
    assert response.status_code == 200
    assert "archive service" in response.content.decode()
    assert not Item.objects.filter(title="Bad link").exists()


def test_linked_items_are_found_by_ibi_in_any_spelling_or_title(librarian_client):
    item = make.item(("a.txt", b"first"), title="Satellite images", dc=SILVA)
    other = make.item(("a.txt", b"first"), title="Something else", dc=SILVA)
    base = "/admin/autocomplete/?app_label=archive&model_name=item&field_name=translation_of"
    for term in (item.ibi.upper(), item.ibip.lower(), "satellite"):
        response = librarian_client.get(f"{base}&term={term}", secure=True)
        assert response.status_code == 200
        ids = [r["id"] for r in response.json()["results"]]
        assert ids == [str(item.pk)], term
    response = librarian_client.get(f"{base}&term=archive service", secure=True)
    assert response.json()["results"] == []
    assert other.pk  # present in the database, not matched above


@pytest.mark.parametrize(("sent", "stored"), [
    ("../../x.txt", "x.txt"),
    ("..\\..\\x.txt", "x.txt"),
    ("/etc/x.txt", "x.txt"),
    ("C:\\x.txt", "x.txt"),
    ("relatório final.txt", "relatório final.txt"),
    ("bell\x07.txt", "bell.txt"),
])
def test_hostile_file_names_are_reduced_to_a_bare_name_inside_doc(librarian_client, sent, stored):
    response = make.posted_raw(librarian_client, ADD, [(sent, b"data")],
                               {"title": "Hostile", "language": "en"}, field="upload")
    assert response.status_code == 302, response.content.decode()[:3000]
    item = Item.objects.get(title="Hostile")
    assert list(item.files.values_list("name", flat=True)) == [stored]
    assert stored_keys() == {storage.file_key(item.ibi, stored)}


@pytest.mark.parametrize("sent", ["a" * 300 + ".txt", "é" * 200 + ".txt"])
def test_a_name_over_255_bytes_is_refused_with_400_and_nothing_is_stored(librarian_client, sent):
    response = make.posted_raw(librarian_client, ADD, [(sent, b"data")],
                               {"title": "Long", "language": "en"}, field="upload")
    assert response.status_code == 400
    assert not Item.objects.filter(title="Long").exists()
    assert stored_keys() == set()


def test_two_files_with_one_name_are_a_form_error(librarian_client):
    response = make.posted_raw(librarian_client, ADD, [("a/x.txt", b"1"), ("b/x.txt", b"2")],
                               {"title": "Twins", "language": "en"}, field="upload")
    assert response.status_code == 200
    assert "two files would be named" in response.content.decode()
    assert stored_keys() == set()


def test_too_many_or_too_large_files_are_refused_before_anything_is_stored(librarian_client,
                                                                           settings):
    settings.IBI_MAX_FILES, settings.IBI_MAX_FILE_SIZE = 1, 3
    response = make.admin_deposit(librarian_client, ("a.txt", b"a"), ("b.txt", b"b"),
                                  title="Relatório técnico", language="pt-br")
    assert response.status_code == 400
    assert response.content.decode().startswith("Upload refused: ")
    response = make.admin_deposit(librarian_client, ("big.txt", b"1234"), title="Relatório técnico",
                                  language="pt-br")
    assert response.status_code == 413
    assert response.content.decode().startswith("Upload refused: ")
    assert not Item.objects.filter(title="Relatório técnico").exists()
    assert stored_keys() == set()


def test_a_target_file_that_is_not_among_the_files_is_a_form_error(librarian_client):
    response = make.admin_deposit(librarian_client, ("a.txt", b"a"), ("b.txt", b"b"),
                                  target_file="c.txt", title="Relatório técnico", language="pt-br")
    assert response.status_code == 200
    assert "is not one of the files" in response.content.decode()
    assert not Item.objects.filter(title="Relatório técnico").exists()
    assert stored_keys() == set()


@pytest.mark.parametrize("target", ["a\x01.txt", "evil\u202etxt.exe"])
def test_a_control_or_bidi_character_in_target_file_is_a_form_error(librarian_client, target):
    response = make.admin_deposit(librarian_client, ("a.txt", b"a"), target_file=target,
                                  title="Relatório técnico", language="pt-br")
    assert response.status_code == 200
    assert "must not contain control or bidirectional" in response.content.decode()
    assert not Item.objects.filter(title="Relatório técnico").exists()
    assert stored_keys() == set()


def test_a_deposit_without_files_or_title_is_a_form_error(librarian_client):
    response = librarian_client.post(ADD, {**FORM, "title": ""}, secure=True)
    assert response.status_code == 200
    assert response.context["adminform"].form.errors.keys() == {"title", "upload"}


# -- Change form -----------------------------------------------------------------------------

def test_the_change_form_shows_both_ibi_forms_the_persistent_url_and_the_files(librarian_client):
    make.admin_deposit(librarian_client, ("report.pdf", b"%PDF report"), ("data.csv", b"1,2"),
                       title="Relatório técnico", language="pt-br")
    item = Item.objects.get(title="Relatório técnico")
    response = librarian_client.get(change_url(item), secure=True)
    page = response.content.decode()
    assert response.status_code == 200
    assert item.ibi in page and item.ibip in page
    # This deployment is its own resolver: the persistent URL is on the request's host.
    assert re.search(rf'href="https?://testserver/{re.escape(item.ibi)}"', page)
    for f in item.files.all():
        # The name may wrap after its dot, never mid-word.
        stem, _dot, extension = f.name.rpartition(".")
        assert f'href="/col/{item.ibi}/doc/{f.name}">{stem}.<wbr>{extension}</a>' in page
        assert f.sha256 in page and f'<td class="bytes">{f.size}</td>' in page
    form = response.context["adminform"].form
    assert "ibi" not in form.fields and "ibip" not in form.fields
    assert "previous_edition" not in form.fields  # linked at deposit only


def test_the_change_form_adds_files_and_changes_metadata_but_never_the_ibi(librarian_client):
    item = make.item(("a.txt", b"first"), title="Old title", dc=SILVA)
    ibi, ibip = item.ibi, item.ibip
    form = librarian_client.get(change_url(item), secure=True).context["adminform"].form
    assert form["dc_creator"].value() == "Silva, J."
    response = make.posted_raw(librarian_client, change_url(item), [("b.txt", b"second file")], {
        "title": "New title", "language": "en", "target_file": "b.txt", "transferable": "on",
        "dc_creator": "Lima, A.", "ibi": "hacked/ibi", "ibip": "hacked"}, field="upload")
    assert response.status_code == 302, response.content.decode()[:3000]
    item.refresh_from_db()
    assert (item.ibi, item.ibip) == (ibi, ibip)
    assert item.title == "New title" and item.target_file == "b.txt"
    assert item.dc("creator") == ["Lima, A."]
    assert sorted(item.files.values_list("name", flat=True)) == ["a.txt", "b.txt"]


def test_adding_a_file_with_an_existing_name_is_a_form_error(librarian_client):
    item = make.item(("a.txt", b"first"), title="First edition", dc=SILVA)
    response = make.posted_raw(librarian_client, change_url(item), [("a.txt", b"overwrite?")],
                               {"title": "First edition", "language": ""}, field="upload")
    assert response.status_code == 200
    assert "two files would be named" in response.content.decode()
    with storage.open_file(item.ibi, "a.txt") as stored:
        assert stored.read() == b"first"


# -- Delete is a tombstone -------------------------------------------------------------------

def test_delete_makes_a_tombstone_and_the_record_stays(librarian_client):
    item = make.item(("a.txt", b"first"), title="First edition", dc=SILVA)
    confirm = librarian_client.get(f"/admin/archive/item/{item.pk}/delete/", secure=True)
    assert "tombstone" in confirm.content.decode()
    response = librarian_client.post(f"/admin/archive/item/{item.pk}/delete/", {"post": "yes"},
                                     secure=True)
    assert response.status_code == 302
    item.refresh_from_db()
    assert item.state == Item.State.DELETED and item.deleted_at is not None
    assert item.files.count() == 1 and storage.list_folder(item.ibi) == ["a.txt"]
    # A tombstone is read-only, still shows what it was, and cannot be deleted again.
    page = librarian_client.get(change_url(item), secure=True)
    assert page.status_code == 200
    assert page.context["has_change_permission"] is False
    html = page.content.decode()
    assert item.ibi in html and "a.txt" in html and "creator: Silva, J." in html
    again = librarian_client.get(f"/admin/archive/item/{item.pk}/delete/", secure=True)
    assert again.status_code == 403


def test_a_deletion_at_the_creators_request_says_so_and_its_tombstone_cites_without_them(
        librarian_client, reader):
    item = make.item(("a.txt", b"first"), title="Retirado", dc=SILVA)
    confirm = librarian_client.get(f"/admin/archive/item/{item.pk}/delete/", secure=True,
                                   headers={"Accept-Language": "pt-BR"}).content.decode()
    assert 'name="at_creators_request"' in confirm and 'name="reason"' in confirm
    response = librarian_client.post(f"/admin/archive/item/{item.pk}/delete/", {
        "post": "yes", "reason": "Retirado a pedido dos autores", "at_creators_request": "on"},
        secure=True)
    assert response.status_code == 302
    item.refresh_from_db()
    assert (item.state, item.deletion_reason, item.creators_withdrawn) == (
        Item.State.DELETED, "Retirado a pedido dos autores", True)
    tombstone = reader.get(f"/items/{item.ibi}").content.decode()
    assert "Retirado a pedido dos autores" in tombstone and "Silva" not in tombstone


def test_bulk_delete_makes_tombstones_but_never_touches_the_archive_service(admin_client):
    """A superuser sees the archive service record, and still cannot delete it."""
    a, b = make.item(("a.txt", b"first"), title="A",
                     dc=SILVA), make.item(("a.txt", b"first"), title="B", dc=SILVA)
    service = Item.objects.get(is_archive_service=True)
    data = {"action": "delete_selected", "_selected_action": [a.pk, b.pk, service.pk]}
    refused = admin_client.post("/admin/archive/item/", {**data, "post": "yes", "reason": "x"},
                                secure=True)
    assert "archive service cannot be deleted" in refused.content.decode()
    assert Item.objects.filter(state=Item.State.DELETED).count() == 0
    data["_selected_action"] = [a.pk, b.pk]
    confirm = admin_client.post("/admin/archive/item/", data, secure=True)
    assert "tombstones" in confirm.content.decode()
    admin_client.post("/admin/archive/item/", {**data, "post": "yes", "reason": "Duplicados"},
                      secure=True)
    assert set(Item.objects.filter(state=Item.State.DELETED)) == {a, b}


def test_a_librarian_selecting_the_archive_service_deletes_nothing_of_it(librarian_client):
    a = make.item(("a.txt", b"first"), title="A", dc=SILVA)
    service = Item.objects.get(is_archive_service=True)
    librarian_client.post("/admin/archive/item/",
                          {"action": "delete_selected", "post": "yes", "reason": "Duplicado",
                           "_selected_action": [a.pk, service.pk]}, secure=True)
    service.refresh_from_db()
    assert service.state == Item.State.ORIGINAL
    assert Item.objects.get(pk=a.pk).state == Item.State.DELETED


def test_the_archive_service_cannot_be_deleted(librarian_client, admin_client):
    service = Item.objects.get(is_archive_service=True)
    url = f"/admin/archive/item/{service.pk}/delete/"
    assert admin_client.get(url, secure=True).status_code == 403
    assert admin_client.post(url, {"post": "yes"}, secure=True).status_code == 403
    assert librarian_client.post(url, {"post": "yes"}, secure=True).status_code == 302  # not found
    service.refresh_from_db()
    assert service.state == Item.State.ORIGINAL


# -- The Librarians group --------------------------------------------------------------------

def test_the_changelist_lists_filters_and_searches(librarian_client):
    make.item(("a.txt", b"first"), title="Satellite images", dc=SILVA)
    page = librarian_client.get("/admin/archive/item/?q=satellite&state__exact=Original",
                                secure=True)
    assert page.status_code == 200
    assert page.context["cl"].result_count == 1


@pytest.mark.parametrize("url", [
    "/admin/auth/user/", "/admin/auth/user/add/", "/admin/auth/group/",
    "/admin/archive/mintingstate/",
])
def test_a_librarian_cannot_reach_anything_else(librarian_client, url):
    assert librarian_client.get(url, secure=True).status_code == 403


def test_a_librarian_sees_only_items_and_their_access_on_the_admin_index(librarian_client):
    """Items, and what their access needs (requests for a copy, secret links, the audit
    trail), the tree they are in (communities and collections, #34) and its submission
    profiles and their vocabularies and terms (#34, 3), the roles and workflows of the review
    and, read only, its submissions (#35), and, read-only, the copy jobs they ask for (how
    far each is: #30, 12), and, read only, how each file's text extraction went, the
    flagged ones theirs to look at (#37), and, read only, every fixity check (#38), the
    usage dashboards and the COUNTER API's customers and their keys (#39); not the users,
    the minting state or the registered Archives."""
    page = librarian_client.get("/admin/", secure=True).content.decode()
    models = set(re.findall(r'href="/admin/(\w+/\w+)/"', page))
    assert models == {"archive/item", "archive/accessrequest", "archive/accesslink",
                      "archive/accessread", "archive/copyjob", "archive/community",
                      "archive/collection", "archive/submissionprofile",
                      "archive/vocabulary", "archive/vocabularyterm",
                      "archive/collectionrole", "archive/workflow", "archive/submission",
                      "archive/fileextraction", "archive/account", "archive/identity",
                      "archive/fixitycheck", "archive/usagemonth", "archive/countercustomer",
                      "archive/counterapikey"}


def test_nobody_changes_the_minting_state_through_the_admin(db):
    boss = User.objects.create_superuser("boss", password="x")
    client = Client()
    client.force_login(boss)
    state, _ = MintingState.objects.get_or_create(name="default")
    url = f"/admin/archive/mintingstate/{state.pk}/change/"
    assert client.get("/admin/archive/mintingstate/", secure=True).status_code == 200
    response = client.post(url, {"name": "x", "last_date_for_suffix": "1"}, secure=True)
    assert response.status_code == 403
    assert client.get("/admin/archive/mintingstate/add/", secure=True).status_code == 403
    state.refresh_from_db()
    assert state.name == "default"


def test_an_ibi_typed_as_the_previous_edition_is_found_or_named_unknown(librarian_client):
    make.admin_deposit(librarian_client, ("v1.txt", b"1"), title="Relatório técnico",
                       language="pt-br")
    first = Item.objects.get(title="Relatório técnico")
    response = librarian_client.post(ADD, {
        **FORM, "title": "Second", "previous_edition": first.ibip.lower(),
        "upload": [make.uploaded(("v2.txt", b"2"))]}, secure=True)
    assert response.status_code == 302
    assert Item.objects.get(title="Second").previous_edition == first
    response = librarian_client.post(ADD, {
        **FORM, "title": "Third", "previous_edition": "sid.inpe.br/x/2009/02.16.17.46",
        "upload": [make.uploaded(("v3.txt", b"3"))]}, secure=True)
    assert response.status_code == 200
    assert "no item here has the IBI" in response.content.decode()


# -- The librarian's day ------------------------------------------------------------------------

def test_after_a_plain_save_the_librarian_lands_on_the_new_item_with_its_ibis(librarian_client):
    response = make.admin_deposit(librarian_client, ("a.txt", b"a"), title="Relatório técnico",
                                  language="pt-br")
    item = Item.objects.get(title="Relatório técnico")
    assert response.status_code == 302
    assert response["Location"] == change_url(item)
    page = librarian_client.get(response["Location"], secure=True).content.decode()
    assert item.ibi in page and item.ibip in page
    assert f"/{item.ibi}" in page  # the persistent URL


def test_save_and_add_another_still_goes_to_a_blank_form(librarian_client):
    response = librarian_client.post(ADD, {**FORM, "upload": [make.uploaded(("a.txt", b"a"))],
                                           "_addanother": "1"}, secure=True)
    assert response["Location"] == ADD


def test_pickers_rank_the_typed_title_then_older_editions_first(librarian_client):
    first = make.item(("a.txt", b"first"), title="Satellite images", dc=SILVA)
    second = make.item(("b.txt", b"2"), title="Satellite images", previous_edition=first)
    other = make.item(("a.txt", b"first"), title="Atlas of satellite images", dc=SILVA)
    base = "/admin/autocomplete/?app_label=archive&model_name=item&field_name=translation_of"
    response = librarian_client.get(f"{base}&term=satellite images", secure=True)
    ids = [r["id"] for r in response.json()["results"]]
    assert ids == [str(first.pk), str(second.pk), str(other.pk)]


def test_the_archive_service_record_is_not_among_the_librarians_items(librarian_client):
    service = Item.objects.get(is_archive_service=True)
    page = librarian_client.get("/admin/archive/item/", secure=True).content.decode()
    assert service.ibi not in page
    assert librarian_client.get(change_url(service),
                                secure=True).status_code == 302  # not found here


def test_the_admin_names_the_repository_not_django(librarian_client, settings):
    page = librarian_client.get("/admin/", secure=True).content.decode()
    assert "Django administration" not in page
    assert "<title>Collection and deposits | IBI repository</title>" in page
    page = librarian_client.get("/admin/", secure=True,
                                headers={"Accept-Language": "pt-BR"}).content.decode()
    assert '<a href="/admin/">Repositório IBI</a>' in page
    assert "IBI repository" not in page
    settings.IBI_REPOSITORY_NAME = "Biblioteca do INPE"
    page = librarian_client.get("/admin/", secure=True,
                                headers={"Accept-Language": "pt-BR"}).content.decode()
    assert '<a href="/admin/">Biblioteca do INPE</a>' in page


# -- A record with no file, restricted files chosen (issue 43) ---------------------------------

def test_a_metadata_only_record_is_deposited_without_a_file_and_answers_everywhere(
        librarian_client, reader):
    """A library catalogues a print-only thesis: metadata only, no file. Any other level still
    needs a file. The record's persistent URL opens its landing page (no file to open), and
    its OAI-PMH record and API record are there."""
    refused = librarian_client.post(ADD, {**FORM, "title": "Sem arquivo"}, secure=True)
    assert refused.status_code == 200 and "Choose one or more files." in refused.content.decode()
    made = librarian_client.post(ADD, {**FORM, "title": "Tese impressa",
                                       "access_rights": "metadata-only",
                                       "dc_creator": "Silva, J."}, secure=True)
    assert made.status_code == 302, made.content.decode()[:3000]
    item = Item.objects.get(title="Tese impressa")
    assert (item.access_rights, item.target_file, item.files.count()) == ("metadata-only", "", 0)
    for url in (f"/{item.ibi}", f"/{item.ibip}"):
        opened = reader.get(url)
        assert (opened.status_code, opened.headers["Location"]) == (
            302, f"http://testserver/items/{item.ibi}")
    # RTC-11: the archive service's urlRequest answers the landing page, the item's only URL.
    service = services.ensure_archive_service()
    answer = to_dict(loads(reader.get(f"/{service.ibi}?" + urlencode({
        "servicesubject": "urlRequest", "parsedibiurl.ibi": item.ibi,
        "clientinformation.ipaddress": "192.0.2.1"})).content.decode("ascii"), strict=True))
    assert (answer["url"], answer["state"]) == (f"http://testserver/items/{item.ibi}",
                                                "Original")
    landing = reader.get(f"/items/{item.ibi}", HTTP_ACCEPT_LANGUAGE="pt-BR")
    assert landing.status_code == 200
    assert "Tese impressa" in landing.content.decode() and "Silva, J." in landing.content.decode()
    oai = reader.get("/oai", {"verb": "GetRecord", "metadataPrefix": "oai_dc",
                              "identifier": f"oai:testserver:{item.ibi}"})
    assert oai.status_code == 200 and "<dc:title>Tese impressa</dc:title>" in oai.content.decode()
    record = reader.get(f"/api/items/{item.ibi}", secure=True).json()
    assert (record["title"], record["files"], record["target_file"]) == ("Tese impressa", [], "")


def test_the_add_form_offers_the_waiting_files_as_restricted_and_refuses_another_name(
        librarian_client):
    sent_back = make.admin_deposit(librarian_client, "artigo.pdf", "dados.csv",
                                   title="Artigo", dc_date="ontem")
    waiting = [str(u.id) for u in PendingUpload.objects.order_by("created")]
    boxes = re.findall(r'name="restricted_files" value="([^"]*)"', sent_back.content.decode())
    assert boxes == ["artigo.pdf", "dados.csv"]
    refused = librarian_client.post(ADD, {**FORM, "title": "Artigo", "pending": waiting,
                                          "restricted_files": ["outro.csv"]}, secure=True)
    assert refused.status_code == 200
    assert "outro.csv is not one of the files" in refused.content.decode()
    made = librarian_client.post(ADD, {**FORM, "title": "Artigo", "pending": waiting,
                                       "restricted_files": ["dados.csv"]}, secure=True)
    assert made.status_code == 302
    item = Item.objects.get(title="Artigo")
    assert {f.name: f.restricted for f in item.files.all()} == {"artigo.pdf": False,
                                                               "dados.csv": True}
