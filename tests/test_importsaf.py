"""`manage.py importsaf`: DSpace's Simple Archive Format (tests/data/dspace/saf, shaped as
DSpace 6 and 7 write it), a folder or a zip, with a report; bad input fails its item only."""
from __future__ import annotations

import csv
import hashlib
import io
import os
import shutil
import signal
import subprocess
import sys
import zipfile
from datetime import timedelta
from pathlib import Path
from unittest import mock

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from archive.deposit import staging, storage
from archive.models import AlternateIdentifier, Item, ItemFile, StagedWrite
from tests import factories as make
from tests.conftest import subprocess_database_url

pytestmark = pytest.mark.django_db

SAF = Path(__file__).resolve().parent / "data" / "dspace" / "saf"
ROOT = Path(__file__).resolve().parent.parent


def run(source, *args) -> tuple[str, CommandError | None]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("importsaf", str(source), *args, stdout=out, stderr=err)
    except CommandError as exc:
        return out.getvalue(), exc
    return out.getvalue(), None


def rows(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as f:
        return list(csv.DictReader(f))


def by_handle(handle: str) -> Item:
    return AlternateIdentifier.objects.get(scheme="handle", value=handle).item


def stored_items() -> list[Item]:
    return list(Item.objects.filter(is_archive_service=False))


@pytest.fixture
def export(tmp_path) -> Path:
    """A writable copy of the recorded export, its collection here (by its Handle)."""
    make.dspace_collections()
    copy = tmp_path / "export"
    shutil.copytree(SAF, copy)
    return copy


def zipped(folder: Path, target: Path, top: str = "") -> Path:
    """The folder as ItemExport's --zip writes it: item folders at the top (or under `top`)."""
    with zipfile.ZipFile(target, "w") as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                archive.write(path, f"{top}{path.relative_to(folder).as_posix()}")
    return target


def test_it_imports_a_dspace_export_with_its_handles_files_and_editions(export):
    out, failed = run(export)
    report = {row["source"]: row for row in rows(export.with_name("export.report.csv"))}
    assert "5 imported, 0 updated, 0 skipped, 0 failed" in out
    assert failed is None
    thesis = by_handle("123456789/42")
    assert thesis.title == "Identificadores persistentes em repositórios institucionais"
    assert thesis.language == "pt-BR"
    assert thesis.dc("creator") == ["Silva, Ana Paula", "Souza, Marcos"]
    assert thesis.dc("contributor") == ["Banon, Gerald Jean Francis"]
    assert thesis.dc("date") == ["2013-09-04"]
    assert thesis.dc("description") == [
        "Este trabalho estuda identificadores persistentes & seus resolvedores.",
        "This work studies persistent identifiers and their resolvers."]
    # "Acesso aberto" is an access right, which the item's level says; the licence stays.
    assert thesis.dc("rights") == ["https://creativecommons.org/licenses/by/4.0/"]
    assert thesis.access_rights == "open"
    assert thesis.dc("subject") == ["Identificadores persistentes",
                                    "CNPQ::CIENCIAS EXATAS E DA TERRA::CIENCIA DA COMPUTACAO"]
    assert thesis.dc("identifier")[0].startswith("SILVA, A. P.; SOUZA, M.")
    assert thesis.dc("relation") == ["Programa de Pós-Graduação em Computação Aplicada"]
    assert thesis.dc("coverage") == ["São José dos Campos"]
    assert thesis.dc("publisher") == ["Instituto Nacional de Pesquisas Espaciais (INPE)"]
    # The ORIGINAL bundle only; the primary bitstream is the target file.
    assert {f.name: f.sha256 for f in thesis.files.all()} == {
        name: hashlib.sha256((export / "item_000" / name).read_bytes()).hexdigest()
        for name in ("tese.pdf", "anexo.csv")}
    assert thesis.target_file == "tese.pdf"
    assert storage.list_folder(thesis.ibi) == ["anexo.csv", "tese.pdf"]
    # Its TEXT, THUMBNAIL and LICENSE bundles kept as such, beside doc/, never as its files.
    assert {(f.bundle, f.name, f.sha256) for f in ItemFile.every_bundle.filter(
        item=thesis).exclude(bundle="ORIGINAL")} == {
        (bundle, name, hashlib.sha256((export / "item_000" / name).read_bytes()).hexdigest())
        for bundle, name in (("LICENSE", "license.txt"), ("TEXT", "tese.pdf.txt"),
                             ("THUMBNAIL", "tese.pdf.jpg"))}
    assert storage.list_folder(thesis.ibi, "TEXT") == ["tese.pdf.txt"]
    assert set(thesis.alternate_ids.values_list("scheme", "value")) == {
        ("handle", "123456789/42"), ("dspace-item", "3f2c1a9e-5b7d-4e8f-9a0b-1c2d3e4f5a6b")}
    assert "bundles not imported" not in out
    assert report["item_000"]["not_kept"] == (
        "dspace.entity.type")
    # DSpace 7's Handle in dc.identifier.uri; relation.isversionof: the next edition.
    second = by_handle("123456789/43")
    assert second.previous_edition == thesis and second.edition_number == 2
    assert second.dc("relation") == []
    # Defaults of ItemImport: no bundle is ORIGINAL, license.txt is LICENSE.
    data = by_handle("123456789/44")
    assert [f.name for f in data.files.all()] == ["chuva.csv"]
    assert data.language == "en" and data.dc("date") == ["2012-11-20"]
    # DSpace's access becomes the item's level here (#26), never open: a file readable by a
    # group only is a restricted file; an embargo date to come, an embargoed item.
    internal = by_handle("123456789/45")
    assert internal.access_rights == "open"
    assert list(internal.files.filter(restricted=True).values_list("name", flat=True)) == [
        "relatorio.pdf"]
    embargoed = by_handle("123456789/46")
    assert (embargoed.access_rights, embargoed.embargo_until.isoformat()) == (
        "embargoed", "2999-01-01")
    assert "2999-01-01" in embargoed.access_reason
    assert not embargoed.files.filter(restricted=True).exists()
    assert report["item_000"]["ibi"] == thesis.ibi
    assert report["item_000"]["identifier"] == "123456789/42"


def test_a_zip_as_itemexport_writes_it_imports_the_same(export, tmp_path):
    for top in ("", "saf-export/"):
        Item.objects.filter(is_archive_service=False).update(previous_edition=None)
        AlternateIdentifier.objects.all().delete()
        source = zipped(export, tmp_path / f"export{len(top)}.zip", top)
        out, _failed = run(source)
        assert "5 imported, 0 updated, 0 skipped, 0 failed" in out, out
        thesis = by_handle("123456789/42")
        assert {f.name for f in thesis.files.all()} == {"tese.pdf", "anexo.csv"}
        assert thesis.target_file == "tese.pdf"
        assert by_handle("123456789/43").previous_edition == thesis
    # Nothing was unpacked beside the zip, nothing left in the upload folder.
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "export", "export0.zip", "export0.zip.report.csv", "export11.zip",
        "export11.zip.report.csv", "media", "upload-tmp"]
    assert list((tmp_path / "upload-tmp").iterdir()) == []


def test_a_second_run_skips_what_is_unchanged_and_updates_what_changed(export):
    run(export)
    thesis = by_handle("123456789/42")
    path = export / "item_002" / "dublin_core.xml"
    path.write_text(path.read_text().replace("Rainfall over the Amazon",
                                             "Rainfall over the Amazon basin"))
    (export / "item_002" / "mapa.csv").write_text("x\n")
    (export / "item_002" / "contents").write_text(
        "chuva.csv\tpermissions:-r 'Anonymous'\nmapa.csv\tbundle:ORIGINAL\n")
    out, _failed = run(export, "--same-repository")
    assert "0 imported, 1 updated, 4 skipped, 0 failed" in out
    data = by_handle("123456789/44")
    assert data.title == "Rainfall over the Amazon basin"
    assert [f.name for f in data.files.all()] == ["chuva.csv", "mapa.csv"]
    assert by_handle("123456789/42").pk == thesis.pk
    assert len(stored_items()) == 5


def test_another_repositorys_export_never_overwrites_an_item_by_a_default_prefix_handle(
        export, tmp_path):
    """123456789 is DSpace's default Handle prefix, which many repositories keep: an item here
    by such a Handle is the same only if nothing changed (an export imported again), else that
    item fails with the reason and nothing changes, unless --same-repository says so."""
    run(export)
    thesis = by_handle("123456789/44")
    other = tmp_path / "other"
    shutil.copytree(export, other)
    path = other / "item_002" / "dublin_core.xml"
    path.write_text(path.read_text().replace("Rainfall over the Amazon", "Algo bem diferente"))

    out, failed = run(other)

    assert failed is not None and "0 imported, 0 updated, 4 skipped, 1 failed" in out
    assert ("the Handle 123456789/44 is held here by " f"{thesis.ibi}, which differs from "
            "this record") in out
    assert by_handle("123456789/44").title == "Rainfall over the Amazon" == thesis.title
    assert run(export)[0].startswith("0 imported, 0 updated, 5 skipped")  # the same again


def broken(export: Path, case: str) -> str:
    """item_002 broken one way; the reason the report must give."""
    item = export / "item_002"
    if case == "malformed":
        (item / "dublin_core.xml").write_text("<dublin_core>\n<dcvalue element='title'>x\n")
        return "malformed XML"
    if case == "missing":
        (item / "contents").write_text("chuva.csv\nsumido.pdf\tbundle:ORIGINAL\n")
        return "'sumido.pdf' is not in the package"
    if case == "symlink":
        (item / "chuva.csv").unlink()
        os.symlink("/etc/passwd", item / "chuva.csv")
        return "symbolic link"
    if case == "oversize":
        (item / "chuva.csv").write_bytes(b"x" * 2048)
        return "larger than 1024 bytes"
    if case == "outside":
        (item / "contents").write_text("../item_000/tese.pdf\tbundle:ORIGINAL\n")
        return "leaves the item's folder"
    if case == "twice":
        (item / "handle").write_text("123456789/42\n")
        return "the Handle 123456789/42 is also in item_000"
    raise AssertionError(case)


@pytest.mark.parametrize("case", ["malformed", "missing", "symlink", "oversize", "outside",
                                  "twice"])
def test_a_bad_item_fails_with_its_reason_and_the_rest_imports(export, settings, media, case):
    settings.IBI_MAX_FILE_SIZE = 1024
    reason = broken(export, case)
    out, failed = run(export)
    assert failed is not None
    assert "4 imported, 0 updated, 0 skipped, 1 failed" in out, out
    report = {row["source"]: row for row in rows(export.with_name("export.report.csv"))}
    assert report["item_002"]["status"] == "failed"
    assert reason in report["item_002"]["reason"], report["item_002"]
    assert report["item_002"]["line"].startswith("item_002")
    assert report["item_000"]["status"] == report["item_001"]["status"] == "imported"
    # Nothing half-made: no item of it, no stray file in the storage.
    assert not AlternateIdentifier.objects.filter(value="123456789/44").exists()
    stored = {p.relative_to(media).as_posix() for p in media.rglob("*") if p.is_file()}
    assert stored == {storage.file_key(i.ibi, f.name, f.bundle) for i in stored_items()
                      for f in ItemFile.every_bundle.filter(item=i)}


def test_the_failing_line_is_named(export):
    (export / "item_002" / "contents").write_text("chuva.csv\n\nsumido.pdf\n")
    run(export)
    report = {row["source"]: row for row in rows(export.with_name("export.report.csv"))}
    assert report["item_002"]["line"] == "item_002/contents:3"
    (export / "item_002" / "dublin_core.xml").write_text(
        "<?xml version='1.0'?>\n<dublin_core>\n<dcvalue element='title'>x</dcvalue>\n<oops>\n")
    run(export)
    report = {row["source"]: row for row in rows(export.with_name("export.report.csv"))}
    assert report["item_002"]["line"].startswith("item_002/dublin_core.xml:")


def test_a_zip_slip_or_a_link_in_a_zip_fails_its_item_and_writes_nothing_outside(
        export, tmp_path):
    source = zipped(export, tmp_path / "evil.zip")
    with zipfile.ZipFile(source, "a") as archive:
        archive.writestr("item_002/../../../escaped.txt", b"zip slip")
        link = zipfile.ZipInfo("item_001/link.pdf")
        link.external_attr = 0o120777 << 16  # a symbolic link, as Info-ZIP stores one
        archive.writestr(link, "/etc/passwd")
        archive.writestr("/absolute.txt", b"absolute")
    out, failed = run(source)
    assert failed is not None
    report = {row["source"]: row for row in rows(source.with_name("evil.zip.report.csv"))}
    assert "3 imported" in out, out
    assert report["item_002"]["status"] == "failed"
    assert "leaves the item's folder" in report["item_002"]["reason"]
    assert "symbolic link" in report["item_001"]["reason"]
    assert "absolute path" in report["/absolute.txt"]["reason"]
    assert report["item_000"]["status"] == "imported"
    assert not (tmp_path.parent / "escaped.txt").exists()
    assert not list(tmp_path.rglob("escaped.txt"))


def test_what_is_neither_a_folder_nor_a_zip_is_refused(tmp_path):
    source = tmp_path / "export.tar"
    source.write_bytes(b"not a zip")
    _out, failed = run(source)
    assert failed is not None and "neither a folder nor a zip" in str(failed)


def test_contents_that_are_not_utf8_fail_their_item(export):
    (export / "item_002" / "contents").write_bytes(b"chuva\xff.csv\n")
    out, _failed = run(export)
    report = {row["source"]: row for row in rows(export.with_name("export.report.csv"))}
    assert report["item_002"]["status"] == "failed" and "utf-8" in report["item_002"]["reason"]
    assert "4 imported" in out


def item_metadata(export: Path, item: str, *values: tuple[str, str, str, str]) -> None:
    """`item`'s dublin_core.xml with (schema, element, qualifier, value) added: a
    metadata_<schema>.xml for a schema other than dc, as ItemExport writes it."""
    for schema in {v[0] for v in values}:
        name = "dublin_core.xml" if schema == "dc" else f"metadata_{schema}.xml"
        path = export / item / name
        text = path.read_text() if path.exists() else (
            f'<?xml version="1.0"?>\n<dublin_core schema="{schema}">\n</dublin_core>\n')
        added = "".join(f'<dcvalue element="{e}" qualifier="{q or "none"}">{v}</dcvalue>\n'
                        for s, e, q, v in values if s == schema)
        path.write_text(text.replace("</dublin_core>", added + "</dublin_core>"))


@pytest.mark.parametrize("values,level", [
    ([("dc", "rights", "uri", "http://purl.org/coar/access_right/c_16ec")], "restricted"),
    ([("dc", "rights", "", "http://purl.org/coar/access_right/c_14cb")], "metadata-only"),
    ([("dc", "rights", "", "metadata only access")], "metadata-only"),
    ([("dc", "rights", "", "Acesso Restrito")], "restricted"),
    ([("dc", "rights", "", "Acceso restringido")], "restricted"),
    ([("dcterms", "accessRights", "", "Acesso aberto")], "open"),
    ([("dc", "rights", "", "info:eu-repo/semantics/openAccess"),
      ("dc", "rights", "accessRights", "Acesso restrito")], "restricted"),
])
def test_access_in_any_rights_field_and_language_is_the_items_level(export, values, level):
    """DSpace writes who may read an item in many forms and fields (#42): COAR's URIs and
    labels, OpenAIRE's terms, Portuguese and Spanish words, in dc.rights, dc.rights.uri,
    dcterms.accessRights. Each is the item's level; none is ever read as open by mistake."""
    item_metadata(export, "item_002", *values)
    out, failed = run(export)
    assert failed is None, out
    item = by_handle("123456789/44")
    assert item.access_rights == level
    assert item.dc("rights") == []


def test_an_unknown_access_value_imports_the_item_closed_and_the_report_says_so(export):
    item_metadata(export, "item_002", ("dc", "rights", "accessRights", "Acesso sob consulta"),
                  ("dc", "rights", "", "Todos os direitos reservados"),
                  ("dcterms", "accessRights", "", "http://creativecommons.org/licenses/by/4.0/"))
    out, failed = run(export)
    assert failed is None, out
    item = by_handle("123456789/44")
    assert item.access_rights == "metadata-only"
    # A licence in an access field is a licence; a rights statement stays one.
    assert item.dc("rights") == ["Todos os direitos reservados",
                                 "https://creativecommons.org/licenses/by/4.0/"]
    report = {row["source"]: row for row in rows(export.with_name("export.report.csv"))}
    assert report["item_002"]["status"] == "imported"
    assert ("unknown access value 'Acesso sob consulta' in dc.rights.accessRights: imported "
            "closed") in report["item_002"]["reason"]
    assert report["item_000"]["reason"] == ""


def test_openaire_types_and_cc_br_licences_keep_their_meaning(export, client):
    """Brazilian DSpaces write OpenAIRE's types and Creative Commons' Brazilian ports (#42):
    each is stored as the type or licence it names, and named for people."""
    item_metadata(export, "item_002", ("dc", "type", "", "info:eu-repo/semantics/masterThesis"),
                  ("dc", "rights", "uri", "http://creativecommons.org/licenses/by-nc-nd/3.0/br/"),
                  ("dc", "rights", "", "info:eu-repo/semantics/openAccess"))
    run(export)
    item = by_handle("123456789/44")
    assert item.dc("type")[-1] == "http://purl.org/coar/resource_type/c_bdcc"
    assert item.dc("rights") == ["https://creativecommons.org/licenses/by-nc-nd/3.0/br/"]
    page = client.get(f"/items/{item.ibi}", secure=True).content.decode()
    assert "Master thesis" in page and "CC BY-NC-ND 3.0 BR" in page


@pytest.fixture
def batch(tmp_path) -> Path:
    """A package as DSpace's batch ingest takes it, without `handle` files: an item with a
    file, and one of metadata only."""
    source = tmp_path / "lote"
    for folder, title, files in (("item_a", "Relatório de campo", {"campo.pdf": b"%PDF-1.4 a"}),
                                 ("item_b", "Ata da reunião", {})):
        (source / folder).mkdir(parents=True)
        (source / folder / "dublin_core.xml").write_text(
            f'<dublin_core><dcvalue element="title" qualifier="none">{title}</dcvalue>'
            '<dcvalue element="contributor" qualifier="author">Lima, Ana</dcvalue>'
            '</dublin_core>', encoding="utf-8")
        (source / folder / "contents").write_text("".join(f"{n}\n" for n in files))
        for name, data in files.items():
            (source / folder / name).write_bytes(data)
    return source


def test_a_package_without_handles_imported_again_makes_no_item_twice(batch, media):
    """DSpace's batch-ingest SAF has no handles (#42): a second run knows each item again
    by its title and files' SHA-256 (metadata-only items by their metadata), so no item and
    no permanent IBI is made twice; what changed is updated."""
    out, failed = run(batch)
    assert failed is None and "2 imported, 0 updated, 0 skipped, 0 failed" in out, out
    ibis = sorted(i.ibi for i in stored_items())
    out, _failed = run(batch)
    assert "0 imported, 0 updated, 2 skipped, 0 failed" in out, out
    item_metadata(batch, "item_a", ("dc", "description", "abstract", "Resumo novo"))
    out, _failed = run(batch)
    assert "0 imported, 1 updated, 1 skipped, 0 failed" in out, out
    assert sorted(i.ibi for i in stored_items()) == ibis
    assert Item.objects.get(title="Relatório de campo").dc("description") == ["Resumo novo"]
    # Other bytes under the same title are another work: a new item.
    (batch / "item_a" / "campo.pdf").write_bytes(b"%PDF-1.4 b")
    out, _failed = run(batch)
    assert "1 imported, 0 updated, 1 skipped, 0 failed" in out, out
    assert len(stored_items()) == 3


def test_a_dry_run_says_what_would_be_done_and_changes_nothing(export, media):
    out, failed = run(export, "--dry-run")
    assert failed is None, out
    assert ("dry run, nothing changed: 5 would be imported, 0 updated, 0 skipped, 0 would "
            "fail") in out
    assert stored_items() == [] and not AlternateIdentifier.objects.exists()
    assert not [p for p in media.rglob("*") if p.is_file()]
    report = rows(export.with_name("export.report.csv"))
    assert {r["status"] for r in report} == {"imported"} and {r["ibi"] for r in report} == {""}
    run(export)
    path = export / "item_002" / "dublin_core.xml"
    path.write_text(path.read_text().replace("Rainfall over the Amazon", "Rainfall, Amazon"))
    before = {i.pk: (i.title, i.updated) for i in stored_items()}
    out, _failed = run(export, "--dry-run", "--same-repository")
    assert "dry run, nothing changed: 0 would be imported, 1 updated, 4 skipped" in out, out
    assert {i.pk: (i.title, i.updated) for i in stored_items()} == before


# importsaf held once its first file is stored under col/, before its item commits.
HELD_AFTER_THE_FIRST_FILE = """
import signal, sys
import django
django.setup()
from archive.deposit import storage
original = storage.store
def store(rep, name, fileobj, *bundle):
    stored = original(rep, name, fileobj, *bundle)
    print("held", flush=True)
    signal.pause()
storage.store = store
from django.core.management import call_command
call_command("importsaf", sys.argv[1])
"""


def fsck() -> tuple[str, CommandError | None]:
    out = io.StringIO()
    try:
        call_command("fsck", stdout=out, stderr=io.StringIO())
    except CommandError as exc:
        return out.getvalue(), exc
    return out.getvalue(), None


@pytest.mark.django_db(transaction=True)
def test_an_import_killed_between_its_files_and_its_rows_leaves_nothing_after_fsck(
        export, media, tmp_path):
    """SIGKILL after an item's first file is stored under col/ and before its rows commit
    (#42): the write was journaled, so fsck knows those bytes are no deposit at work once the
    lease has passed, and removes them, with no --fix-orphans and whatever their age."""
    env = {**os.environ, "DATABASE_URL": subprocess_database_url(), "MEDIA_ROOT": str(media),
           "TMPDIR": str(tmp_path), "DJANGO_SETTINGS_MODULE": "ibirepo.settings"}
    worker = subprocess.Popen([sys.executable, "-c", HELD_AFTER_THE_FIRST_FILE, str(export)],
                              cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert worker.stdout.readline() == b"held\n", worker.stderr.read()
        worker.send_signal(signal.SIGKILL)  # no chance to clean up
        worker.wait(30)
    finally:
        if worker.poll() is None:
            worker.kill()
    assert worker.returncode == -signal.SIGKILL
    left = [p for p in (media / "col").rglob("*") if p.is_file()]
    assert len(left) == 1 and stored_items() == []
    # While its lease lasts, a write may be at work: its file is no orphan, nothing is removed.
    out, failed = fsck()
    assert failed is None and "writing  col/" in out, out
    assert left[0].exists()
    with mock.patch("django.utils.timezone.now",
                    return_value=timezone.now() + staging.LEASE + timedelta(seconds=1)):
        out, failed = fsck()
    assert failed is None, out
    assert "(an import stopped before its item committed)" in out
    assert not [p for p in (media / "col").rglob("*") if p.is_file()]
    assert not StagedWrite.objects.exists()
    # The import run again makes every item, and fsck finds nothing amiss.
    out, failed = run(export)
    assert "5 imported, 0 updated, 0 skipped, 0 failed" in out, out
    assert fsck()[1] is None
