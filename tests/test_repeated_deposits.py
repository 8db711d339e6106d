"""A deposit sent again without an Idempotency-Key (issue #30, 1): a client that lost its
answer, a librarian who pressed Save twice. The same depositor, the same fields and the same
files (checksums) within IBI_DEPOSIT_REPEAT_WINDOW is the same deposit: answered with the
first item, never a second, permanent IBI. The connection dropped after the commit is
tests/test_dropped_connections.py's; two identical deposits at once, tests/test_faults.py's."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import User
from django.utils import timezone

from archive.deposit import pending, services
from archive.models import Item
from tests import factories as make

pytestmark = pytest.mark.django_db

FIELDS = {"creator": ["Banon, Gerald"], "language": "pt-BR"}


def made() -> list[str]:
    return list(Item.objects.filter(is_archive_service=False).values_list("ibi", flat=True))


def test_the_same_deposit_again_is_answered_with_the_first_item(librarian_api):
    first = make.posted(librarian_api, ("paper.pdf", b"%PDF v1"), title="Sent twice", **FIELDS)
    again = make.posted(librarian_api, ("paper.pdf", b"%PDF v1"), title="Sent twice", **FIELDS)
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json() == first.json() | {"timestamp": again.json()["timestamp"]}
    assert again["Location"] == first["Location"]
    assert again["Idempotent-Replayed"] == "true" and "Idempotent-Replayed" not in first
    assert made() == [first.json()["ibi"]]


@pytest.mark.parametrize("change", [
    {"title": "Another title"}, {"files": ("paper.pdf", b"%PDF v2")},
    {"creator": ["Silva, Ana"]}, {"language": "en"}])
def test_a_deposit_that_differs_in_anything_is_another_item(librarian_api, change):
    fields = {"title": "Sent twice", **FIELDS}
    make.posted(librarian_api, ("paper.pdf", b"%PDF v1"), **fields)
    changed = {**fields, **{k: v for k, v in change.items() if k != "files"}}
    other = make.posted(librarian_api, change.get("files", ("paper.pdf", b"%PDF v1")),
                        **changed)
    assert other.status_code == 201 and "Idempotent-Replayed" not in other
    assert len(made()) == 2


def test_two_keys_make_two_items_and_another_librarian_makes_another(librarian_api):
    """A client that means the same content twice says so with a key for each."""
    for key in ("first", "second"):
        assert make.posted(librarian_api, title="Meant twice",
                           headers={"Idempotency-Key": key}).status_code == 201
    colleague = User.objects.create_user("colleague", is_staff=True)
    colleague.groups.add(services.ensure_librarians_group())
    assert make.posted(make.token_client(colleague), title="Meant twice").status_code == 201
    assert len(made()) == 3


def test_past_the_window_or_after_a_deletion_the_same_deposit_makes_an_item(
        librarian_api, settings, monkeypatch):
    first = make.posted(librarian_api, title="Later again").json()
    later = timezone.now() + timedelta(seconds=settings.IBI_DEPOSIT_REPEAT_WINDOW + 1)
    monkeypatch.setattr(timezone, "now", lambda: later)
    second = make.posted(librarian_api, title="Later again").json()
    assert second["ibi"] != first["ibi"]
    librarian_api.delete(f"/api/items/{second['ibi']}", secure=True)
    third = make.posted(librarian_api, title="Later again")
    assert third.status_code == 201 and "Idempotent-Replayed" not in third
    assert len(made()) == 3


def test_a_window_of_zero_recognises_nothing(librarian_api, settings):
    settings.IBI_DEPOSIT_REPEAT_WINDOW = 0
    make.posted(librarian_api, title="Twice on purpose")
    make.posted(librarian_api, title="Twice on purpose")
    assert len(made()) == 2


def test_the_admins_form_saved_twice_lands_on_the_first_item(librarian_client):
    first = make.admin_deposit(librarian_client, ("paper.pdf", b"%PDF form"), title="Saved twice")
    again = make.admin_deposit(librarian_client, ("paper.pdf", b"%PDF form"), title="Saved twice")
    (ibi,) = made()
    item = Item.objects.get(ibi=ibi)
    assert first.status_code == again.status_code == 302
    assert first["Location"] == again["Location"] == f"/admin/archive/item/{item.pk}/change/"
    page = librarian_client.get(again["Location"], secure=True)
    assert (f"“Saved twice” was deposited already, a moment ago, as {ibi}: this is that item, "
            "not a new one.") in page.content.decode()
    assert LogEntry.objects.filter(object_id=str(item.pk)).count() == 1


@pytest.mark.django_db(transaction=True)  # committed: what is known after the commit
def test_an_admin_deposit_whose_database_fails_after_its_commit_names_its_item(
        librarian_client, monkeypatch):
    """The connection lost after the admin deposit's commit, while its answer is made (#30,
    1): a 303 to the item made, never "send it again"; before the commit, nothing was made
    and the 503 says so."""
    from django.db import InterfaceError

    from archive.admin.items import ItemAdmin

    made = ItemAdmin.changeform_view  # its transaction committed when it returns

    def made_then_lost(self, request, *args, **kwargs):
        made(self, request, *args, **kwargs)
        raise InterfaceError("connection already closed")

    monkeypatch.setattr(ItemAdmin, "changeform_view", made_then_lost)
    response = make.admin_deposit(librarian_client, ("paper.pdf", b"%PDF-1.4"),
                                  title="Committed then lost")

    item = Item.objects.get(title="Committed then lost")
    assert response.status_code == 303
    assert response["Location"] == f"/admin/archive/item/{item.pk}/change/"


def _saved_again_two_minutes_later(save, monkeypatch):
    """`save` twice, the second two minutes after the first: each time the files are sent as
    new uploads (new ids), of the same bytes."""
    first = save()
    later = timezone.now() + timedelta(minutes=2)
    monkeypatch.setattr(timezone, "now", lambda: later)
    return first, save()


def test_the_admins_form_saved_again_with_new_uploads_of_the_same_files_is_the_first_item(
        librarian_client, librarian, monkeypatch):
    """(#42, 3) The uploader sends each file again as a new pending upload, with a new id: the
    same bytes (SHA-256) and fields are the same deposit, never a second permanent IBI."""
    def save():
        uploads = [pending.keep(owner=librarian, file=make.uploaded(spec))
                   for spec in (("paper.pdf", b"%PDF same"), ("data.csv", b"a,b\n"))]
        return librarian_client.post("/admin/archive/item/add/", {
            "title": "Saved again", "transferable": "on",
            "pending": [str(u.id) for u in uploads]}, secure=True)

    first, again = _saved_again_two_minutes_later(save, monkeypatch)
    (ibi,) = made()
    assert first.status_code == again.status_code == 302
    assert first["Location"] == again["Location"]
    assert "was deposited already" in librarian_client.get(again["Location"],
                                                           secure=True).content.decode()


def test_the_apis_deposit_of_new_uploads_of_the_same_files_is_the_first_item(
        librarian_api, librarian, monkeypatch):
    def save():
        upload = pending.keep(owner=librarian, file=make.uploaded(("paper.pdf", b"%PDF same")))
        return librarian_api.post("/api/items/", {"title": "Sent again",
                                                  "uploads": [str(upload.id)]},
                                  format="multipart", secure=True)

    first, again = _saved_again_two_minutes_later(save, monkeypatch)
    assert (first.status_code, again.status_code) == (201, 201)
    assert again["Idempotent-Replayed"] == "true"
    assert made() == [first.json()["ibi"]]


def test_the_same_bytes_under_another_name_or_a_file_more_is_another_deposit(
        librarian_client, librarian):
    def save(*specs):
        uploads = [pending.keep(owner=librarian, file=make.uploaded(spec)) for spec in specs]
        return librarian_client.post("/admin/archive/item/add/", {
            "title": "Not the same", "transferable": "on",
            "pending": [str(u.id) for u in uploads]}, secure=True)

    save(("paper.pdf", b"%PDF same"))
    save(("other.pdf", b"%PDF same"))
    save(("paper.pdf", b"%PDF same"), ("data.csv", b"a,b\n"))
    save(("paper.pdf", b"%PDF other"))
    assert len(made()) == 4
