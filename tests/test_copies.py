"""Copies from another Archive: complete, verified, idempotent, resumable; refusals; refresh."""
from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from archive.deposit import services, storage
from archive.models import Item, ItemFile
from archive.preservation import copies
from archive.registry.names import Qualified
from archive.registry.selectors import rows_of
from tests import factories as make
from tests.conftest import subprocess_database_url
from tests.fake_archive import FakeArchive, forget, publish

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.django_db


@pytest.fixture
def source(settings):
    archive = FakeArchive()
    settings.IBI_PEER_ARCHIVES = (archive.base_url,)  # an explicitly configured Archive
    yield archive
    archive.close()


def copied_items():
    return Item.objects.filter(is_archive_service=False)


def the_copy() -> Item:
    return copied_items().get()


def stored(rep: str, name: str) -> bytes:
    with storage.open_file(rep, name) as fh:
        return fh.read()


def fsck_is_clean() -> bool:
    out = io.StringIO()
    try:
        call_command("fsck", stdout=out)
    except CommandError:
        return False
    return True


def test_a_copy_holds_every_file_both_ibi_forms_and_its_provenance(source):
    record = make.held_elsewhere(source)
    result = copies.copy_item(ibi=record["ibip"], source=source.base_url + "/")
    assert result.outcome == "created"
    item = the_copy()
    assert (item.ibi, item.ibip, item.state) == (record["ibi"], record["ibip"], "Copy")
    assert (item.title, item.language) == ("Report", "pt-BR")
    assert item.dc("subject") == ["IBI", "copies"] and item.dc("creator") == ["Banon, Gerald"]
    assert item.source_archive == source.base_url
    assert item.origin_timestamp.strftime("%Y-%m-%dT%H:%M:%SZ") == record["timestamp"]
    assert item.copied_at is not None
    for name, data in source.files.items():
        assert stored(record["ibi"], name[1]) == data
    assert {(f.name, f.size, f.sha256) for f in item.files.all()} == {
        (f["name"], f["size"], f["sha256"]) for f in record["files"]}
    assert fsck_is_clean()
    # Files are fetched from the download path with a range: a copy is not a reader.
    assert sorted(r for r in source.requests if r.startswith("GET /col/")) == [
        f"GET /col/{record['ibi']}/doc/data.csv", f"GET /col/{record['ibi']}/doc/report.pdf"]


def test_copying_again_changes_nothing_and_fetches_no_file(source):
    record = make.held_elsewhere(source)
    copies.copy_item(ibi=record["ibi"], source=source.base_url)
    before = copied_items().values().get()
    files_before = list(ItemFile.objects.values())
    source.requests.clear()
    result = copies.copy_item(ibi=record["ibi"], source=source.base_url)
    assert (result.outcome, result.fetched, result.kept) == ("unchanged", [], [])
    assert copied_items().values().get() == before
    assert list(ItemFile.objects.values()) == files_before
    assert source.requests == [f"GET /api/items/{record['ibi']}"]


def test_an_original_held_here_is_never_copied(source):
    item = make.item(("a.txt", b"ours"), title="Mine")
    with pytest.raises(copies.CopyRefused, match="held here as Original"):
        copies.copy_item(ibi=item.ibip, source=source.base_url)
    out = io.StringIO()
    with pytest.raises(CommandError, match="held here as Original"):
        call_command("copyitem", item.ibi, "--from", source.base_url, stdout=out)
    assert source.requests == []  # refused before asking anyone
    assert stored(item.ibi, "a.txt") == b"ours"


def test_a_deleted_original_held_here_is_not_copied_either(source):
    item = make.item(title="Mine", bare=True)
    services.item_delete(item=item)
    with pytest.raises(copies.CopyRefused, match="deleted Original"):
        copies.copy_item(ibi=item.ibi, source=source.base_url)


def test_a_failure_midway_leaves_no_row_and_the_next_run_finishes(source, monkeypatch):
    record = make.held_elsewhere(source)
    real_store = storage.store
    calls = []

    def store_then_crash(rep, name, fileobj):
        calls.append(name)
        if len(calls) == 2:
            raise OSError("disk unplugged")
        return real_store(rep, name, fileobj)

    monkeypatch.setattr(storage, "store", store_then_crash)
    with pytest.raises(OSError):
        copies.copy_item(ibi=record["ibi"], source=source.base_url)
    assert not copied_items().exists()  # never a row pointing at missing files
    first = calls[0]
    assert default_storage.exists(storage.file_key(record["ibi"], first))
    monkeypatch.setattr(storage, "store", real_store)
    source.requests.clear()
    result = copies.copy_item(ibi=record["ibi"], source=source.base_url)
    assert result.outcome == "created" and result.kept == [first]
    assert f"GET /col/{record['ibi']}/doc/{first}" not in source.requests
    assert ItemFile.objects.count() == 3 and fsck_is_clean()


def test_a_partial_file_left_behind_is_replaced(source):
    record = make.held_elsewhere(source)
    default_storage.save(storage.file_key(record["ibi"], "report.pdf"), ContentFile(b"%PDF-1"))
    result = copies.copy_item(ibi=record["ibi"], source=source.base_url)
    assert "report.pdf" in result.fetched
    assert stored(record["ibi"], "report.pdf") == b"%PDF-1.7 report"


def test_wrong_bytes_from_the_source_are_never_stored(source):
    record = make.held_elsewhere(source)
    source.files[(record["ibi"], "data.csv")] = b"a,b\n1,3\n"
    with pytest.raises(copies.PeerFailed, match="data.csv: got 8 bytes with sha256"):
        copies.copy_item(ibi=record["ibi"], source=source.base_url)
    assert not default_storage.exists(storage.file_key(record["ibi"], "data.csv"))
    assert not copied_items().exists()


def test_a_longer_file_is_cut_off_at_its_announced_size(source):
    record = make.held_elsewhere(source)
    source.files[(record["ibi"], "data.csv")] += b"x" * 5_000_000
    with pytest.raises(copies.PeerFailed, match="longer than the 8 bytes"):
        copies.copy_item(ibi=record["ibi"], source=source.base_url)


@pytest.mark.parametrize("change, message", [
    ({"files": [{"name": "../../etc/passwd", "size": 1, "sha256": "0" * 64}]},
     "not a bare file name"),
    ({"ibi": "sid.inpe.br/mtc-m19/2013/09.04.12.27.57"}, "not of"),
    ({"state": "Lost"}, "state"),
    ({"timestamp": "yesterday"}, "ISO 8601"),
    ({"target_file": "other.pdf"}, "target file"),
    ({"title": "bell\x07"}, "title contains a control character"),
    ({"subject": ["ok", "nul\x00"]}, "subject contains a control character"),
    ({"metadata": [{"field": "dc.subject", "value": 1}]}, "metadata is not a list of values"),
    ({"metadata": {"dc.subject": "x"}}, "metadata is not a list of values"),
])
def test_a_strange_record_is_refused_with_a_clear_message(source, change, message):
    record = make.held_elsewhere(source)
    asked = record["ibi"]
    record.update(change)
    source.answer_every_item = record
    with pytest.raises(copies.PeerFailed, match=message):
        copies.copy_item(ibi=asked, source=source.base_url)
    assert not copied_items().exists()


def test_an_unknown_item_or_archive_gives_a_clear_error(source):
    with pytest.raises(copies.PeerFailed, match="404"):
        copies.copy_item(ibi="LK47B6W/362SFKH", source=source.base_url)
    with pytest.raises(services.ServiceError, match="not the base URL"):
        copies.copy_item(ibi="LK47B6W/362SFKH", source="ftp://example.org")
    with pytest.raises(services.ServiceError, match="not an IBI"):
        copies.copy_item(ibi="no/such", source=source.base_url)


def test_a_changed_original_is_refreshed_and_a_dropped_file_removed(
        source, django_capture_on_commit_callbacks):
    record = make.held_elsewhere(source)
    copies.copy_item(ibi=record["ibi"], source=source.base_url)
    copied_at = the_copy().copied_at
    record["title"] = "Report, revised"
    record["timestamp"] = "2031-01-02T03:04:05Z"
    record["files"] = [f for f in record["files"] if f["name"] != "data.csv"]
    record["files"].append({"name": "errata.txt", "size": 3, "sha256":
                            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
                            "content_type": "text/plain", "url": "ignored"})
    source.files[(record["ibi"], "errata.txt")] = b"abc"
    with django_capture_on_commit_callbacks(execute=True):
        results = copies.refresh_copies()
    assert results[record["ibi"]].outcome == "updated"
    assert results[record["ibi"]].fetched == ["errata.txt"]
    item = the_copy()
    assert item.title == "Report, revised" and item.copied_at > copied_at
    assert item.origin_timestamp.isoformat() == "2031-01-02T03:04:05+00:00"
    assert sorted(item.files.values_list("name", flat=True)) == [
        "empty.txt", "errata.txt", "report.pdf"]
    assert not default_storage.exists(storage.file_key(item.ibi, "data.csv"))
    assert fsck_is_clean()


def test_a_copy_whose_bytes_rotted_is_repaired_by_the_next_copy(source, media):
    record = make.held_elsewhere(source)
    copies.copy_item(ibi=record["ibi"], source=source.base_url)
    (media / storage.file_key(record["ibi"], "report.pdf")).write_bytes(b"%PDF-1.7 rEport")
    with pytest.raises(CommandError):
        call_command("fixity", stdout=io.StringIO())
    result = copies.copy_item(ibi=record["ibi"], source=source.base_url)
    assert result.fetched == ["report.pdf"]
    assert stored(record["ibi"], "report.pdf") == b"%PDF-1.7 report"
    assert not ItemFile.objects.exclude(fixity_problem="").exists()


def test_deleted_at_the_source_the_copy_becomes_a_tombstone(source):
    record = make.held_elsewhere(source)
    copies.copy_item(ibi=record["ibi"], source=source.base_url)
    record.update(state="Deleted", deleted_at="2030-05-06T07:08:09Z",
                  timestamp="2030-05-06T07:08:09Z")
    assert copies.copy_item(ibi=record["ibi"], source=source.base_url).outcome == "deleted"
    item = the_copy()
    assert item.state == "Deleted" and item.deleted_at.year == 2030
    assert item.files.count() == 3  # files kept, as for any tombstone
    assert copies.copy_item(ibi=record["ibi"], source=source.base_url).outcome == "unchanged"
    other = make.held_elsewhere(source, title="Gone")
    other["state"] = "Deleted"
    with pytest.raises(copies.CopyRefused, match="nothing to copy"):
        copies.copy_item(ibi=other["ibi"], source=source.base_url)


def test_editions_and_translations_link_whichever_arrives_first(source):
    first = make.item(title="First", bare=True)
    second = make.item(title="Second", bare=True, previous_edition=first)
    third = make.item(title="Third", bare=True, previous_edition=second)
    english = make.item(title="Third (en)", bare=True, translation_of=third, language="en")
    records = [publish(APIClient(), i)[0] for i in (first, second, third, english)]
    for item in (english, third, second, first):
        forget(item)
    for record in records:
        source.add(record, {})
    for record in (records[2], records[3], records[0], records[1]):
        copies.copy_item(ibi=record["ibi"], source=source.base_url)
    got = {i.title: i for i in Item.objects.filter(state="Copy")}
    assert got["Second"].previous_edition == got["First"]
    assert got["Third"].previous_edition == got["Second"]
    assert [(got[t].edition_family, got[t].edition_number) for t in ("First", "Second", "Third")
            ] == [(records[0]["ibi"], 1), (records[0]["ibi"], 2), (records[0]["ibi"], 3)]
    assert got["Third (en)"].translation_of == got["Third"]
    for record in records:  # and all of it is stable
        assert copies.copy_item(ibi=record["ibi"], source=source.base_url).outcome \
            == "unchanged"


def test_a_copy_keeps_its_originals_relations_and_refreshes_them(source):
    first = make.item(title="First", bare=True, language="en")
    second = make.item(title="Second", bare=True, previous_edition=first)
    pt = make.item(title="Primeira", bare=True, translation_of=first, language="pt-br")
    records = [publish(APIClient(), i)[0] for i in (first, second, pt)]
    for item in (pt, second, first):
        forget(item)
    for record in records:
        source.add(record, {})

    copies.copy_item(ibi=records[0]["ibi"], source=source.base_url)
    copies.copy_item(ibi=records[2]["ibi"], source=source.base_url)

    got = {i.title: i for i in Item.objects.filter(state="Copy")}
    assert got["First"].origin_relations == {".nextedition": records[1]["ibi"],
                                             ".translation(pt-BR)": records[2]["ibi"]}
    assert got["Primeira"].origin_relations == {".translation(en)": records[0]["ibi"],
                                                ".translationof": records[0]["ibi"]}
    # The Original's relations change: the refresh brings them along.
    records[0]["next_edition"], records[0]["translations"] = None, []
    assert copies.copy_item(ibi=records[0]["ibi"], source=source.base_url).outcome == "updated"
    assert Item.objects.get(title="First").origin_relations == {}


def test_copyitem_reports_what_it_did(source):
    record = make.held_elsewhere(source)
    out = io.StringIO()
    call_command("copyitem", record["ibi"], "--from", source.base_url, stdout=out)
    assert f"{record['ibi']}: created, 3 files fetched" in out.getvalue()
    out = io.StringIO()
    call_command("copyitem", "--refresh", stdout=out)
    assert f"{record['ibi']}: unchanged" in out.getvalue()


@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_in_the_middle_of_a_copy_is_finished_by_the_next_run(source, media,
                                                                             tmp_path):
    record = make.held_elsewhere(source, ("a.bin", b"A" * 70_000), ("b.bin", b"B" * 90_000),
                                 ("c.bin", b"C" * 10))
    gate = source.gate("b.bin")
    # TMPDIR: the killed process leaves its half-fetched temporary file there, not in /tmp.
    env = {**os.environ, "DATABASE_URL": subprocess_database_url(), "MEDIA_ROOT": str(media),
           "TMPDIR": str(tmp_path), "IBI_PEER_ARCHIVES": source.base_url}
    worker = subprocess.Popen(
        [sys.executable, "manage.py", "copyitem", record["ibi"], "--from", source.base_url],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert gate.arrived.wait(60), "the copy never asked for the second file"
        worker.send_signal(signal.SIGKILL)  # no chance to clean up
        worker.wait(30)
    finally:
        gate.release.set()
        if worker.poll() is None:
            worker.kill()
    assert worker.returncode == -signal.SIGKILL
    assert not copied_items().exists()
    assert stored(record["ibi"], "a.bin") == b"A" * 70_000
    result = copies.copy_item(ibi=record["ibi"], source=source.base_url)
    assert (result.outcome, result.kept, sorted(result.fetched)) == (
        "created", ["a.bin"], ["b.bin", "c.bin"])
    assert sorted(ItemFile.objects.values_list("name", flat=True)) == ["a.bin", "b.bin", "c.bin"]
    assert fsck_is_clean()
    assert copies.copy_item(ibi=record["ibi"], source=source.base_url).outcome == "unchanged"


def test_refresh_reports_a_failing_source_and_goes_on(source):
    record = make.held_elsewhere(source)
    copies.copy_item(ibi=record["ibi"], source=source.base_url)
    copied_items().update(copied_at=the_copy().copied_at - timedelta(days=1))
    source.records.clear()
    results = copies.refresh_copies()
    assert isinstance(results[record["ibi"]], copies.PeerFailed)
    assert the_copy().state == "Copy"


def test_the_admin_copies_by_ibi_and_refreshes_selected_copies(source, librarian_client,
                                                               eager_tasks):
    record = make.held_elsewhere(source)
    changelist = librarian_client.get("/admin/archive/item/", secure=True).content.decode()
    assert 'href="/admin/archive/item/copy/"' in changelist
    response = librarian_client.post("/admin/archive/item/copy/", {
        "ibi": record["ibip"], "source": source.base_url}, secure=True, follow=True)
    assert f"Copy of {record['ibip']}: created" in response.content.decode()
    item = the_copy()
    record["title"] = "Retitled"
    record["timestamp"] = "2032-01-01T00:00:00Z"
    response = librarian_client.post("/admin/archive/item/", {
        "action": "refresh_copies", "_selected_action": [item.pk]}, secure=True, follow=True)
    assert f"Copy of {item.ibi}: updated" in response.content.decode()
    assert the_copy().title == "Retitled"


def test_the_admin_copy_form_refuses_an_original_and_nonsense(source, librarian_client):
    mine = make.item(title="Mine", bare=True)
    response = librarian_client.post("/admin/archive/item/copy/", {
        "ibi": mine.ibi, "source": "gopher://x"}, secure=True)
    form = response.context["form"]
    assert "is held here as Original" in form.errors["ibi"][0]
    assert "not the base URL" in form.errors["source"][0]
    assert source.requests == []


def test_a_copy_keeps_the_creators_orcid_ids_and_refuses_a_wrong_one(source):
    record = make.held_elsewhere(source, dc={"creator": ["Banon, Gerald", (
        "Carberry, Josiah", "0000-0002-1825-0097")]})
    copies.copy_item(ibi=record["ibi"], source=source.base_url)
    assert [(v.value, v.orcid) for v in the_copy().dc_values.filter(element="creator")] == [
        ("Banon, Gerald", ""), ("Carberry, Josiah", "0000-0002-1825-0097")]
    assert copies.copy_item(ibi=record["ibi"], source=source.base_url).outcome == "unchanged"
    record["creators"][1]["orcid"] = "0000-0002-1825-0098"
    source.answer_every_item = record
    with pytest.raises(copies.PeerFailed, match="check digit"):
        copies.copy_item(ibi=record["ibi"], source=source.base_url)


def test_a_copy_keeps_every_qualified_value_and_refuses_a_field_unknown_here(source):
    """Issue 34: a thesis copied from another Archive keeps each value under its field with
    its language, authority and confidence (the API's `metadata`), not simple Dublin Core."""
    record = make.held_elsewhere(source, dc={
        "dc.contributor.author": [Qualified("Oliveira, Mariana", authority="0000-0002-1825-0097",
                                            confidence=600)],
        "dc.contributor.advisor": [Qualified("Pereira, João", authority="4727357182510680",
                                             confidence=500)],
        "dc.publisher.program": [Qualified("PPG em Engenharia Civil", language="pt-BR")],
        "dc.subject.cnpq": ["CNPQ::ENGENHARIAS"], "local.degree.level": ["doutorado"]})
    copies.copy_item(ibi=record["ibi"], source=source.base_url)
    item = the_copy()
    assert set(rows_of([item.pk])[item.pk]) == {
        ("dc", "contributor", "author", "", "Oliveira, Mariana", "0000-0002-1825-0097", 600),
        ("dc", "contributor", "advisor", "", "Pereira, João", "4727357182510680", 500),
        ("dc", "publisher", "program", "pt-BR", "PPG em Engenharia Civil", "", -1),
        ("dc", "subject", "cnpq", "", "CNPQ::ENGENHARIAS", "", -1),
        ("local", "degree", "level", "", "doutorado", "", -1)}
    assert copies.copy_item(ibi=record["ibi"], source=source.base_url).outcome == "unchanged"
    record["metadata"].append({"field": "dc.contributor.orientador", "value": "X"})
    source.answer_every_item = record
    with pytest.raises(copies.CopyRefused, match="dc.contributor.orientador"):
        copies.copy_item(ibi=record["ibi"], source=source.base_url)
    assert len(rows_of([item.pk])[item.pk]) == 5  # nothing written


def test_the_source_is_told_of_each_copy_made_or_changed_with_the_account_there(
        source, settings, caplog):
    """Copying with an account at the source (IBI_PEER_TOKENS), a run that made or changed
    the Copy tells the source (its replication event, issue 38); one that changed nothing
    does not; a source refusing the notice leaves the copy standing."""
    from archive.deposit import selectors

    settings.IBI_PEER_TOKENS = {source.base_url: "right-token"}
    service = selectors.archive_service().ibi
    record = make.held_elsewhere(source)
    assert copies.copy_item(ibi=record["ibi"], source=source.base_url).outcome == "created"
    copies.copy_item(ibi=record["ibi"], source=source.base_url)  # unchanged: nothing told
    record["title"] = "Told, again"
    source.notice_status = 500
    assert copies.copy_item(ibi=record["ibi"], source=source.base_url).outcome == "updated"
    assert source.told == [(record["ibi"], {"archive": service, "refreshed": False}),
                           (record["ibi"], {"archive": service, "refreshed": True})]
    assert the_copy().title == "Told, again"
    assert "telling" in caplog.text and "answered 500" in caplog.text


def test_without_an_account_at_the_source_nothing_is_told(source):
    record = make.held_elsewhere(source)
    assert copies.copy_item(ibi=record["ibi"], source=source.base_url).outcome == "created"
    assert source.told == [] and not any(r.startswith("POST") for r in source.requests)
