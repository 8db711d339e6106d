"""Issue #41, 5: one item, one IBI, for ever. `importsaf` and `harvest` recognise an item that
already carries an IBI and never mint it a second one (archive/dspace/ibis.py); here in
process, between two live Archives in tests/test_two_archives_ibis.py."""
from __future__ import annotations

import csv
import io
import shutil

import pytest
from django.core.management import CommandError, call_command

from archive.deposit import links
from archive.dspace import ibis
from archive.identifiers import ibi as ibilib
from archive.models import Item, ItemFile, MintingState
from tests import factories as make

pytestmark = pytest.mark.django_db

FOREIGN = "ibi.test/z/2020/01.02.03.04"  # minted by an Archive registered nowhere here


def run(command: str, *args) -> tuple[str, CommandError | None]:
    out = io.StringIO()
    try:
        call_command(command, *map(str, args), stdout=out, stderr=io.StringIO())
    except CommandError as exc:
        return out.getvalue(), exc
    return out.getvalue(), None


def rows(path) -> list[dict]:
    with path.open(encoding="utf-8") as f:
        return list(csv.DictReader(f))


def ibis_here() -> set[str]:
    return set(Item.objects.values_list("ibi", flat=True))


def minting_state() -> str:
    state = MintingState.objects.filter(name="default").first()
    return state.last_date_for_suffix if state else ""


@pytest.mark.parametrize(("values", "oai", "found"), [
    (["http://urlib.net/8JMKD3MGP8W/34PGRBS"], "", ["8JMKD3MGP8W/34PGRBS"]),
    (["https://resolver.example:8080/sid.inpe.br/mtc-m18/2009/02.16.17.46"], "",
     ["sid.inpe.br/mtc-m18/2009/02.16.17.46"]),
    (["sid.inpe.br/mtc-m18@80/2009/02.16.17.46", "8jmkd3mgp8w/34pgrbs"], "",
     ["sid.inpe.br/mtc-m18/2009/02.16.17.46", "8JMKD3MGP8W/34PGRBS"]),
    ([], "oai:127.0.0.1:8000:sid.inpe.br/mtc-m18/2009/02.16.17.46",
     ["sid.inpe.br/mtc-m18/2009/02.16.17.46"]),
    # The same IBI twice is one; what names no IBI is left as it is.
    (["http://a.example/8JMKD3MGP8W/34PGRBS", "8JMKD3MGP8W/34PGRBS",
      "http://hdl.handle.net/123456789/42", "https://doi.org/10.1234/abc",
      "http://a.example/items/sid.inpe.br/mtc-m18/2009/02.16.17.46",
      "http://a.example/8JMKD3MGP8W/34PGRBS:", "http://a.example/8JMKD3MGP8W/34PGRBS/a.pdf",
      "INPE-17123-RPQ/123", "sid.inpe.br/mtc-m18/2009/13.16.17.46"],
     "oai:dspace.example:123456789/42", ["8JMKD3MGP8W/34PGRBS"]),
])
def test_it_finds_the_ibis_a_record_carries(values, oai, found):
    carried, rest = ibis.carried(values, oai)
    assert carried == [ibilib.parse(f) for f in found]
    assert rest == [v for v in values if ibis._named(v) is None]


def saf_item(folder, title: str, identifier: str) -> None:
    folder.mkdir(parents=True)
    (folder / "dublin_core.xml").write_text(
        f'<dublin_core schema="dc"><dcvalue element="title" qualifier="none">{title}</dcvalue>'
        f'<dcvalue element="identifier" qualifier="uri">{identifier}</dcvalue></dublin_core>',
        "utf-8")
    (folder / "contents").write_text("a.txt\tbundle:ORIGINAL\n", "utf-8")
    (folder / "a.txt").write_bytes(b"a")


def test_an_ibi_of_an_archive_registered_nowhere_fails_its_record_and_mints_nothing(tmp_path):
    saf_item(tmp_path / "export" / "item_000", "Theirs", f"http://resolver.example/{FOREIGN}")
    saf_item(tmp_path / "export" / "item_001", "Plain DSpace item", "https://example.org/x")
    before, state = ibis_here(), minting_state()
    out, failed = run("importsaf", tmp_path / "export")
    assert failed is not None and "1 imported, 0 updated, 0 skipped, 1 failed" in out
    report = {row["source"]: row for row in rows(tmp_path / "export.report.csv")}
    assert report["item_000"]["status"] == "failed"
    assert FOREIGN in report["item_000"]["reason"]
    assert "not registered" in report["item_000"]["reason"]
    assert "--migrate" in report["item_000"]["reason"]
    new = ibis_here() - before
    assert [Item.objects.get(ibi=i).title for i in new] == ["Plain DSpace item"]
    assert minting_state() != state  # the plain item alone was minted an IBI


def test_a_record_carrying_the_archive_services_ibi_fails_and_changes_nothing(tmp_path):
    """The archive service is no item a package may update: a record that names its IBI (a
    fresh database that minted it in the same instant as the exported item, say) fails."""
    from archive.deposit import selectors

    service = selectors.archive_service()
    before = (service.title, service.dc("identifier"), service.updated)
    saf_item(tmp_path / "export" / "item_000", "A thesis", f"http://127.0.0.1/{service.ibi}")
    out, failed = run("importsaf", tmp_path / "export")
    assert failed is not None and "0 imported, 0 updated, 0 skipped, 1 failed" in out
    (row,) = rows(tmp_path / "export.report.csv")
    assert row["status"] == "failed" and "archive service" in row["reason"]
    service.refresh_from_db()
    assert (service.title, service.dc("identifier"), service.updated) == before
    assert not service.files.exists()


def test_migrate_needs_a_token(tmp_path):
    saf_item(tmp_path / "export" / "item_000", "Theirs", FOREIGN)
    _out, failed = run("importsaf", tmp_path / "export", "--migrate", "http://a.example")
    assert failed is not None and "--token" in str(failed)
    assert not Item.objects.filter(title="Theirs").exists()


@pytest.fixture
def exported(tmp_path):
    """Two editions and a translation deposited here, exported with `exportsaf`."""
    first = make.item(("a.pdf", b"%PDF first"), title="First", language="pt-BR",
                      dc={"identifier": ["INPE-1/2"]})
    make.item(("b.pdf", b"%PDF second"), title="Second", previous_edition=first)
    make.translation(first, "en", ("c.pdf", b"%PDF english"))
    call_command("exportsaf", str(tmp_path / "export"))
    return tmp_path / "export"


def test_our_export_imported_again_here_changes_nothing_and_mints_nothing(exported, tmp_path):
    before, state = ibis_here(), minting_state()
    out, failed = run("importsaf", exported)
    assert failed is None and "0 imported, 0 updated, 3 skipped, 0 failed" in out, out
    assert ibis_here() == before and minting_state() == state


def test_our_export_into_a_fresh_database_keeps_every_ibi_in_both_forms(exported, media):
    items = {i.ibi: (i.ibip, i.title, i.dc("identifier"))
             for i in Item.objects.filter(is_archive_service=False)}
    Item.objects.filter(is_archive_service=False).update(previous_edition=None,
                                                         translation_of=None)
    ItemFile.objects.all().delete()
    Item.objects.filter(is_archive_service=False).delete()
    MintingState.objects.all().delete()
    shutil.rmtree(media / "col")
    out, failed = run("importsaf", exported)
    assert failed is None and "3 imported" in out, out
    again = {i.ibi: (i.ibip, i.title, i.dc("identifier"))
             for i in Item.objects.filter(is_archive_service=False)}
    assert again == items  # and its persistent URL is no identifier of its own
    second = Item.objects.get(title="Second")
    assert second.previous_edition.title == "First"
    # The dates kept are never minted again.
    newest = max(ibilib.parse(i).date for i in items)
    assert ibilib.parse(make.item(title="New").ibi).date > newest
    assert links.persistent_url(second.ibi) not in second.dc("identifier")


def test_harvesting_our_own_oai_pmh_finds_every_item_by_its_ibi(live_site, tmp_path):
    first = make.item(("a.pdf", b"%PDF first"), title="First", language="pt-BR")
    make.item(("b.pdf", b"%PDF second"), title="Second", previous_edition=first)
    before, state = ibis_here(), minting_state()
    for run_ in ("a", "b"):
        out, failed = run("harvest", f"{live_site.url}/oai", "--full",
                          "--report", tmp_path / f"{run_}.csv")
        assert failed is None and "0 imported" in out and "0 failed" in out, out
    assert "2 skipped" in out  # the second time, nothing differs
    assert ibis_here() == before and minting_state() == state
    assert {row["ibi"] for row in rows(tmp_path / "b.csv")} == before - {
        Item.objects.get(is_archive_service=True).ibi}
