"""`manage.py ocfl`: the collection as an OCFL 1.1 storage root, judged by ocfl-py's validator,
updated incrementally, and a fresh instance rebuilt from it answering the archive service
protocol as the original did."""
from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.core.management.color import no_style
from django.db import connection
from django.utils import timezone

from archive.db import append_only
from archive.deposit import services, storage
from archive.models import (
    AccessRights,
    DailyAccessCount,
    DcValue,
    Item,
    ItemFile,
    PremisEvent,
)
from archive.preservation import events, ocfl
from tests import factories as make

pytestmark = pytest.mark.django_db
CLIENT = "172.16.44.200 150.163.68.1"


@pytest.fixture
def collection():
    theses = make.collection("teses", make.community("pos"))
    first = make.item(("Relatório Final.pdf", b"%PDF final"), ("data.csv", b"1,2\n"),
                      ("empty.txt", b""), title="Relatório", language="pt-BR",
                      dc={"creator": ["Banon, G.", ("Banon, L.", "0000-0002-1825-0097")]},
                      target_file="Relatório Final.pdf", collection=theses)
    second = make.item(("r2.pdf", b"%PDF second"), ("data.csv", b"1,2\n"),
                       title="Relatório, 2a ed.", previous_edition=first)
    english = make.translation(second, "en", ("report.pdf", b"%PDF english"), title="Report")
    closed = make.item(("c.pdf", b"%PDF closed"), title="Embargoed")
    Item.objects.filter(pk=closed.pk).update(access_rights=AccessRights.EMBARGOED,
                                             embargo_until=timezone.localdate() + timedelta(30))
    events.record(events.Type.FIXITY_CHECK, ibi=first.ibi, file="data.csv",
                  agent=events.software(), detail="sha512 abc")
    return [first, second, english, Item.objects.get(pk=closed.pk)]


def command(*args) -> str:
    out = io.StringIO()
    call_command("ocfl", *args, stdout=out)
    return out.getvalue()


def ocfl_validate(root: Path) -> tuple[int, str]:
    """The reference validator's own command line, as a reader of the root would run it: its
    exit status (0: valid) and what it said (every error and warning). Given a root, it
    checks the root's structure and reports only that; so it is given every object too."""
    script = Path(sys.executable).with_name("ocfl-validate.py")
    objects = sorted({str(p.parent) for p in root.rglob("0=ocfl_object_1.1")}
                     | {str(p.parent) for p in root.rglob("v1")})
    done = subprocess.run([sys.executable, str(script), str(root), *objects],
                          capture_output=True, text=True, check=False)
    return done.returncode, done.stdout + done.stderr


def answers(client, items) -> dict:
    """The archive service's answers to a urlRequest for each item, by both IBI forms."""
    service = Item.objects.get(is_archive_service=True)
    found = {}
    for item in items:
        for ibi in (item.ibi, item.ibip):
            response = client.get(f"/{service.ibi}", {
                "servicesubject": "urlRequest", "clientinformation.ipaddress": CLIENT,
                "parsedibiurl.ibi": ibi})
            # The urlkey is made afresh for every answer (RTC-11 Table 7.1): left out.
            found[ibi] = (response.status_code, re.sub(rb"urlkey [0-9-]+", b"urlkey",
                                                       response.content))
    return found


def wipe(media: Path) -> None:
    """What a fresh `migrate` leaves: no items, files or events, a new archive service."""
    ItemFile.objects.all().delete()
    DcValue.objects.all().delete()
    DailyAccessCount.objects.all().delete()
    Item.objects.update(previous_edition=None, translation_of=None)
    Item.objects.all().delete()
    connection.check_constraints()  # the deferred checks of this test's events, done first
    with append_only.flushing(), connection.cursor() as cursor:  # as `flush` empties it
        for sql in connection.ops.sql_flush(no_style(), [PremisEvent._meta.db_table]):
            cursor.execute(sql)  # TRUNCATE on PostgreSQL, DELETE on SQLite
    for path in sorted(media.rglob("*"), reverse=True):
        path.unlink() if path.is_file() else path.rmdir()
    services.ensure_archive_service()


def test_the_root_is_valid_by_ocfl_py_with_no_error_and_no_warning(collection, tmp_path):
    root = tmp_path / "root"
    assert "4 objects written (5 new versions), 0 unchanged" in command("export", str(root))
    report = ocfl.validate(root)
    assert (report.objects, report.errors, report.warnings) == (4, [], [])  # chain: one
    status, out = ocfl_validate(root)
    assert status == 0 and "[W" not in out and "[E" not in out, out
    layout = json.loads((root / "ocfl_layout.json").read_text())
    assert layout["extension"] == "0003-hash-and-id-n-tuple-storage-layout"


def test_each_edition_is_a_version_of_its_chains_object(collection, tmp_path):
    root = tmp_path / "root"
    command("export", str(root))
    first, second = collection[:2]
    store = ocfl.ocfl_py.StorageRoot(root=str(root))
    folder = root / store.object_path(ocfl.object_id(first.ibi))
    inventory = json.loads((folder / "inventory.json").read_text())
    assert inventory["id"] == f"http://urlib.net/{first.ibi}"
    assert inventory["digestAlgorithm"] == "sha512"
    assert list(inventory["versions"]) == ["v1", "v2"]
    v1 = {p for ps in inventory["versions"]["v1"]["state"].values() for p in ps}
    v2 = {p for ps in inventory["versions"]["v2"]["state"].values() for p in ps}
    assert v1 == {"1/item.json", "1/doc/Relatório Final.pdf", "1/doc/data.csv",
                  "1/doc/empty.txt"}
    assert v2 == v1 | {"2/item.json", "2/doc/r2.pdf", "2/doc/data.csv"}
    assert not (folder / "v2/content/2/doc/data.csv").exists()  # the same bytes: kept once
    record = json.loads((folder / "v2/content/2/item.json").read_text())
    assert record["ibi"] == second.ibi and record["previous_edition"] == first.ibi
    first_record = json.loads((folder / "v1/content/1/item.json").read_text())
    assert first_record["collection"]["slug"] == "teses"
    assert [e["type"] for e in first_record["events"]] == list(
        PremisEvent.objects.filter(ibi=first.ibi).values_list("type", flat=True))
    assert "fixity check" in [e["type"] for e in first_record["events"]]
    assert first_record["metadata"]  # every value, with its authority


def test_exporting_again_adds_versions_only_for_what_changed(collection, tmp_path):
    root = tmp_path / "root"
    command("export", str(root))
    assert "0 objects written (0 new versions), 4 unchanged" in command("export", str(root))
    third = make.item(("r3.pdf", b"%PDF third"), title="3a ed.", previous_edition=collection[1])
    services.item_update(item=collection[2], title="Report (revised)")
    assert "2 objects written (2 new versions), 2 unchanged" in command("export", str(root))
    store = ocfl.ocfl_py.StorageRoot(root=str(root))
    folder = root / store.object_path(ocfl.object_id(collection[0].ibi))
    inventory = json.loads((folder / "inventory.json").read_text())
    assert inventory["head"] == "v3" and inventory["versions"]["v3"]["message"] == "edition 3"
    assert json.loads((folder / "v3/content/3/item.json").read_text())["ibi"] == third.ibi
    assert ocfl.validate(root).errors == [] and ocfl.validate(root).warnings == []


def test_a_folder_that_is_not_a_root_is_refused(tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    with pytest.raises(CommandError, match="not empty and not an OCFL storage root"):
        command("export", str(folder))
    assert [p.name for p in folder.iterdir()] == ["notes.txt"]


def test_a_fresh_instance_rebuilt_from_the_root_answers_as_the_original(
        collection, tmp_path, media, client):
    root = tmp_path / "root"
    command("export", str(root))
    items = list(Item.objects.order_by("pk"))
    before = answers(client, items)
    records = {i.ibi: ocfl.record_of(i) for i in items}
    files = {(r.item.ibi, r.name): storage.open_file(r.item.ibi, r.name).read()
             for r in ItemFile.objects.select_related("item")}
    digests = {(ibi, name): sha for ibi, name, sha in ItemFile.objects.values_list(
        "item__ibi", "name", "sha512")}
    kept = PremisEvent.objects.filter(ibi__in=[i.ibi for i in items]).count()
    wipe(media)
    out = command("rebuild", str(root))
    assert f"5 items rebuilt (7 files stored, {kept} events), 0 already here" in out
    assert answers(client, items) == before
    rebuilt = {i.ibi: ocfl.record_of(i) for i in Item.objects.order_by("pk")}
    # Each item's events as they were, and the rebuild's own (an ingestion by this software).
    for ibi, record in rebuilt.items():
        new = [e for e in record["events"] if e not in records[ibi]["events"]]
        assert [(e["type"], e["detail"][:30], e["agent"]["kind"]) for e in new] == (
            [] if Item.objects.get(ibi=ibi).is_archive_service else  # a fresh instance's own
            [("ingestion", "rebuilt from its OCFL object: ", "software")])
        record["events"] = [e for e in record["events"] if e not in new]
    assert rebuilt == records
    assert {(ibi, name): sha for ibi, name, sha in ItemFile.objects.values_list(
        "item__ibi", "name", "sha512")} == digests  # the second digest too, from the root
    for (rep, name), data in files.items():
        with storage.open_file(rep, name) as fh:
            assert fh.read() == data
    closed = Item.objects.get(ibi=collection[3].ibi)
    assert closed.access_rights == AccessRights.EMBARGOED and closed.embargo_until
    assert Item.objects.get(ibi=collection[0].ibi).collection.slug == "teses"


def damage_digest(root: Path, ibi: str) -> str:
    store = ocfl.ocfl_py.StorageRoot(root=str(root))
    path = root / store.object_path(ocfl.object_id(ibi)) / "v1/content/1/doc/data.csv"
    path.write_bytes(b"1,3\n")
    return store.object_path(ocfl.object_id(ibi))


def lose_inventory(root: Path, ibi: str) -> str:
    store = ocfl.ocfl_py.StorageRoot(root=str(root))
    (root / store.object_path(ocfl.object_id(ibi)) / "inventory.json").unlink()
    return store.object_path(ocfl.object_id(ibi))


@pytest.mark.parametrize("damage", [damage_digest, lose_inventory])
def test_a_damaged_root_names_the_object_and_writes_nothing(collection, tmp_path, media, damage):
    root = tmp_path / "root"
    command("export", str(root))
    named = damage(root, collection[0].ibi)
    status, out = ocfl_validate(root)
    assert status == 1 and "[E" in out  # the reference validator sees it too
    wipe(media)
    service = Item.objects.get()
    with pytest.raises(CommandError, match=f"object {named}"):
        command("rebuild", str(root))
    assert list(Item.objects.all()) == [service]
    assert not [p for p in media.rglob("*") if p.is_file()]
