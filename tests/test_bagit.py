"""BagIt export of the collection and `rebuild` of the database from the tree."""
from __future__ import annotations

import io
import json
from pathlib import Path

import bagit as loc_bagit
import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from archive.deposit import services, storage
from archive.identifiers import ibi
from archive.identifiers.minting import mint
from archive.models import DailyAccessCount, DcValue, Item, ItemFile
from archive.preservation import bagit
from tests import factories as make

pytestmark = pytest.mark.django_db


@pytest.fixture
def collection():
    first = make.item(("Relatório Final.pdf", b"%PDF final"), ("data.csv", b"1,2\n"),
                      ("empty.txt", b""), title="Relatório", language="pt-BR",
                      dc={"creator": ["Banon, G.", ("Banon, L.", "0000-0002-1825-0097")]},
                      target_file="Relatório Final.pdf")
    second = make.item(("r2.pdf", b"%PDF second"), title="Relatório, 2a ed.",
                       previous_edition=first)
    english = make.translation(second, "en", ("report.pdf", b"%PDF english"), title="Report")
    gone = services.item_delete(item=make.item(("w.txt", b"withdrawn"), title="Withdrawn"))
    copy = Item.objects.create(ibi="sid.inpe.br/mtc-m18@80/2009/02.16.17.46",
                               ibip="8JMKD3MGP8W/34PGRBS", title="A copy", state="Copy",
                               source_archive="http://b.example.org", copied_at=timezone.now(),
                               origin_timestamp=timezone.now().replace(microsecond=0))
    return [first, second, english, gone, copy]


def snapshot() -> dict:
    return {i.ibi: bagit.record_of(i) for i in Item.objects.order_by("pk")}


def export(tree: Path, *args) -> str:
    out = io.StringIO()
    call_command("exportbags", str(tree), *args, stdout=out)
    return out.getvalue()


def rebuild(tree: Path) -> tuple[str, CommandError | None]:
    out = io.StringIO()
    try:
        call_command("rebuild", str(tree), stdout=out)
    except CommandError as exc:
        return out.getvalue(), exc
    return out.getvalue(), None


def wipe(media: Path) -> None:
    """The database and the files lost: what a fresh `migrate` leaves (a new archive service)."""
    ItemFile.objects.all().delete()
    DcValue.objects.all().delete()
    DailyAccessCount.objects.all().delete()
    Item.objects.update(previous_edition=None, translation_of=None)
    Item.objects.all().delete()
    for path in sorted(media.rglob("*"), reverse=True):
        path.unlink() if path.is_file() else path.rmdir()
    services.ensure_archive_service()


def test_every_item_becomes_a_valid_bag_under_the_same_layout(collection, tmp_path):
    tree = tmp_path / "tree"
    out = export(tree)
    assert "6 bags written, 0 unchanged, 0 failed" in out  # with the archive service
    first = collection[0]
    folder = tree / "col" / first.ibi
    bag = loc_bagit.Bag(str(folder))
    bag.validate()
    assert bag.algorithms == ["sha256"]
    assert sorted(bag.payload_entries()) == [
        "data/doc/Relatório Final.pdf", "data/doc/data.csv", "data/doc/empty.txt",
        "data/ro-crate-metadata.json"]
    assert bag.payload_entries()["data/doc/data.csv"]["sha256"] == \
        first.files.get(name="data.csv").sha256
    assert bag.info["External-Identifier"] == [first.ibi, first.ibip]
    assert (folder / "data/doc/Relatório Final.pdf").read_bytes() == b"%PDF final"
    assert "ibi-item.json" in bag.tagfile_entries()
    record = json.loads((folder / "ibi-item.json").read_text())
    assert record["dc"] == {"creator": ["Banon, G.", "Banon, L."]}
    assert not list(tree.rglob(".bag-*"))


def test_each_bags_payload_is_an_ro_crate_1_1_as_the_rocrate_library_reads_it(
        collection, tmp_path):
    from rocrate.rocrate import ROCrate

    from tests import factories as make

    first = make.from_dspace(collection[0], handle="123456789/42")
    services.item_update(item=first, dc={"rights": [
        "https://creativecommons.org/licenses/by/4.0/"], "description": ["Resumo"]})
    tree = tmp_path / "tree"
    export(tree)
    crate = ROCrate(tree / "col" / first.ibi / "data")
    descriptor = crate.metadata.as_jsonld()
    assert descriptor["conformsTo"] == {"@id": "https://w3id.org/ro/crate/1.1"}
    root = crate.root_dataset
    assert root["name"] == "Relatório" and root["description"] == "Resumo"
    assert root["datePublished"] == first.created.date().isoformat()
    assert root["license"].id == "https://creativecommons.org/licenses/by/4.0/"
    named = {getattr(v, "id", v): v for v in root["identifier"]}
    assert named["https://hdl.handle.net/123456789/42"]["value"] == "123456789/42"
    assert named["#ibi"]["value"] == first.ibi and named["#ibip"]["value"] == first.ibip
    files = {entity.id: entity for entity in crate.data_entities}
    assert set(files) == {"doc/Relatório Final.pdf", "doc/data.csv", "doc/empty.txt"}
    assert files["doc/data.csv"]["sha256"] == first.files.get(name="data.csv").sha256
    assert files["doc/data.csv"]["contentSize"] == "4"
    authors = [a["name"] for a in root["author"]]
    assert authors == ["Banon, G.", "Banon, L."]
    assert root["author"][1].id == "https://orcid.org/0000-0002-1825-0097"


def test_exporting_again_writes_only_what_changed(collection, tmp_path):
    tree = tmp_path / "tree"
    export(tree)
    assert "0 bags written, 6 unchanged" in export(tree)
    services.item_update(item=collection[2], title="Report (revised)")
    out = export(tree)
    assert f"exported  col/{collection[2].ibi}" in out and "1 bags written, 5 unchanged" in out
    assert "6 bags written" in export(tree, "--force")


def test_one_item_by_ibi(collection, tmp_path):
    out = export(tmp_path, collection[1].ibip)
    assert "1 bags written" in out and (tmp_path / "col" / collection[1].ibi).is_dir()
    with pytest.raises(CommandError, match="no item"):
        export(tmp_path, "LK47B6W/362SFKH")


def test_the_tree_rebuilds_the_database(collection, tmp_path, media):
    tree = tmp_path / "tree"
    export(tree)
    before = snapshot()
    files_before = {(r.item.ibi, r.name): storage.open_file(r.item.ibi, r.name).read()
                    for r in ItemFile.objects.select_related("item")}
    wipe(media)
    assert Item.objects.get().ibi not in before  # a fresh archive service, another IBI
    out, failed = rebuild(tree)
    assert failed is None, out
    assert "6 items rebuilt (6 files stored, 0 already stored), 0 already here, 0 failed" in out
    assert snapshot() == before
    assert before[collection[0].ibi]["creator_orcids"] == ["", "0000-0002-1825-0097"]
    for (rep, name), data in files_before.items():
        with storage.open_file(rep, name) as fh:
            assert fh.read() == data
    second = Item.objects.get(ibi=collection[1].ibi)
    assert second.previous_edition.ibi == collection[0].ibi and second.edition_number == 2
    assert Item.objects.get(ibi=collection[2].ibi).translation_of == second
    call_command("fsck", stdout=io.StringIO())  # consistent: raises otherwise
    again, failed = rebuild(tree)
    assert failed is None and "0 items rebuilt" in again and "6 already here" in again


def test_minting_goes_on_after_the_newest_restored_ibi(collection, tmp_path, media):
    tree = tmp_path / "tree"
    export(tree)
    newest = max(ibi.parse(i.ibi).date for i in collection[:4])
    wipe(media)
    Item.objects.all().delete()  # not even an archive service
    rebuild(tree)
    assert mint().date > newest


def test_a_damaged_bag_is_named_and_the_others_rebuilt(collection, tmp_path, media):
    tree = tmp_path / "tree"
    export(tree)
    damaged = tree / "col" / collection[2].ibi / "data" / "doc" / "report.pdf"
    damaged.write_bytes(b"%PDF englisH")
    tampered = tree / "col" / collection[3].ibi / "ibi-item.json"
    tampered.write_text(tampered.read_text().replace('"Deleted"', '"Original"'))
    wipe(media)
    out, failed = rebuild(tree)
    assert failed is not None and "2 bags could not be rebuilt" in str(failed)
    assert f"failed    col/{collection[2].ibi}: not a valid bag" in out
    assert f"failed    col/{collection[3].ibi}: not a valid bag" in out
    assert "4 items rebuilt" in out
    assert not Item.objects.filter(ibi__in=[collection[2].ibi, collection[3].ibi]).exists()


def test_rebuild_wants_a_tree(tmp_path):
    _out, failed = rebuild(tmp_path)
    assert failed is not None and "no col/ folder" in str(failed)


def test_a_live_archive_keeps_its_own_archive_service(collection, tmp_path):
    tree = tmp_path / "tree"
    export(tree)
    own = Item.objects.get(is_archive_service=True)
    Item.objects.filter(pk=own.pk).update(ibi="a.b.c/d/2020/01.01.00.00", ibip="23W/2")
    out, failed = rebuild(tree)
    assert failed is None and f"the tree's, {own.ibi}, is taken over only" in out
    assert Item.objects.get(is_archive_service=True).ibi == "a.b.c/d/2020/01.01.00.00"
