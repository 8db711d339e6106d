"""Issue #41, 6: editions and translations only from the Original. A Copy held here is never the
previous edition or the item translated of a new deposit, whatever the channel (deposit
service, REST API, admin, importitems, importsaf): the refusal names its Original's Archive."""
from __future__ import annotations

import csv
import io

import pytest
from django.core.management import CommandError, call_command

from archive.deposit import services
from archive.models import Item, RegisteredArchive
from tests import factories as make

pytestmark = pytest.mark.django_db

SOURCE = "http://archive-b.example:8080"
SERVICE = "archive-b.example/svc/2020/01.01.00.00"


@pytest.fixture
def copy() -> Item:
    """An item held here as a Copy of the Original at SOURCE, a registered Archive."""
    RegisteredArchive.objects.create(archive_service_ibi=SERVICE, key_hash="x" * 64,
                                     address="archive-b.example:8080")
    return make.as_copy(make.item(("a.txt", b"copied"), title="Copied report"), source=SOURCE)


def refused_for(copy: Item, message: str) -> bool:
    return copy.ibi in message and SOURCE in message and SERVICE in message


@pytest.mark.parametrize("field", ["previous_edition", "translation_of"])
def test_the_deposit_service_refuses_a_copy_as_a_link(copy, field):
    before = Item.objects.count()
    with pytest.raises(services.ServiceError) as refused:
        make.item(("b.txt", b"next"), title="Next", language="en", **{field: copy})
    assert refused.value.status == 400 and refused_for(copy, str(refused.value))
    assert Item.objects.count() == before


def test_a_copys_tombstone_is_refused_too_and_an_original_is_not(copy):
    Item.objects.filter(pk=copy.pk).update(state=Item.State.DELETED)
    copy.refresh_from_db()
    with pytest.raises(services.ServiceError):
        make.item(title="Next", previous_edition=copy)
    original = make.item(title="Original")
    assert make.item(title="Next", previous_edition=original).previous_edition == original
    assert make.translation(original, "en").translation_of == original


@pytest.mark.parametrize("field", ["previous_edition", "translation_of"])
def test_the_api_answers_400_naming_the_originals_archive(copy, librarian_api, field):
    response = make.posted(librarian_api, title="Next", language="en",
                           **{field: copy.ibi})
    assert response.status_code == 400
    assert refused_for(copy, response.json()["detail"])
    assert not Item.objects.filter(title="Next").exists()


def test_the_api_refuses_a_copy_as_what_an_item_becomes_a_translation_of(copy, librarian_api):
    item = make.item(title="Mine", language="en")
    response = librarian_api.patch(f"{make.ITEMS}{item.ibi}", {"translation_of": copy.ibi},
                                   format="json", secure=True)
    assert response.status_code == 400 and refused_for(copy, response.json()["detail"])
    item.refresh_from_db()
    assert item.translation_of is None


def test_an_item_already_linked_to_a_copy_is_still_edited(copy):
    """Copies link among themselves (preservation/copies.py), and a migrated Original keeps its
    links: an edit that leaves the link alone is no new link."""
    translated = make.as_copy(make.item(title="Copied translation", language="en"),
                              source=SOURCE)
    Item.objects.filter(pk=translated.pk).update(translation_of=copy, state=Item.State.ORIGINAL,
                                                 source_archive="")
    translated.refresh_from_db()
    services.item_update(item=translated, title="Renamed", translation_of=copy)
    translated.refresh_from_db()
    assert (translated.title, translated.translation_of) == ("Renamed", copy)


@pytest.mark.parametrize("field", ["previous_edition", "translation_of"])
def test_the_admin_shows_a_form_error(copy, librarian_client, field):
    response = make.admin_deposit(librarian_client, ("v2.txt", b"2"), title="Next",
                                  language="en", **{field: copy.pk})
    assert response.status_code == 200
    assert refused_for(copy, response.content.decode())
    assert not Item.objects.filter(title="Next").exists()


@pytest.mark.parametrize("field", ["previous_edition", "translation_of"])
def test_importitems_fails_the_row_with_the_reason(copy, tmp_path, field):
    (tmp_path / "next.txt").write_bytes(b"next")
    source = tmp_path / "items.csv"
    with source.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=["id", "title", "files", "language",
                                               "previous_edition", "translation_of"])
        writer.writeheader()
        writer.writerow({"id": "N-1", "title": "Next", "files": "next.txt", "language": "en",
                         "previous_edition": "", "translation_of": "", field: copy.ibi})
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("importitems", str(source), stdout=out, stderr=io.StringIO())
    assert "0 imported, 0 skipped, 1 failed" in out.getvalue()
    assert refused_for(copy, out.getvalue())
    assert not Item.objects.filter(title="Next").exists()


def test_importsaf_fails_the_item_naming_a_copy_as_its_previous_edition(copy, tmp_path):
    make.from_dspace(copy, handle="123456789/7")
    folder = tmp_path / "export" / "item_000"
    folder.mkdir(parents=True)
    (folder / "dublin_core.xml").write_text(
        '<dublin_core schema="dc"><dcvalue element="title" qualifier="none">Next</dcvalue>'
        '<dcvalue element="relation" qualifier="isversionof">'
        "http://hdl.handle.net/123456789/7</dcvalue></dublin_core>", "utf-8")
    (folder / "contents").write_text("next.txt\tbundle:ORIGINAL\n", "utf-8")
    (folder / "next.txt").write_bytes(b"next")
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("importsaf", str(tmp_path / "export"), stdout=out, stderr=io.StringIO())
    assert "0 imported, 0 updated, 0 skipped, 1 failed" in out.getvalue()
    with (tmp_path / "export.report.csv").open(encoding="utf-8") as f:
        row = next(csv.DictReader(f))
    assert row["status"] == "failed" and refused_for(copy, row["reason"])
    assert not Item.objects.filter(title="Next").exists()
