"""`manage.py importsaf`: DSpace's Simple Archive Format (tests/data/dspace/saf, shaped as
DSpace 6 and 7 write it), a folder or a zip, with a report; bad input fails its item only."""
from __future__ import annotations

import csv
import hashlib
import io
import os
import shutil
import zipfile
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from archive.deposit import storage
from archive.models import AlternateIdentifier, Item

pytestmark = pytest.mark.django_db

SAF = Path(__file__).resolve().parent / "data" / "dspace" / "saf"


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
    """A writable copy of the recorded export."""
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
    assert "3 imported, 0 updated, 0 skipped, 2 failed" in out
    assert failed is not None  # two restricted items: exit status 1
    thesis = by_handle("123456789/42")
    assert thesis.title == "Identificadores persistentes em repositórios institucionais"
    assert thesis.language == "pt-BR"
    assert thesis.dc("creator") == ["Silva, Ana Paula", "Souza, Marcos"]
    assert thesis.dc("contributor") == ["Banon, Gerald Jean Francis"]
    assert thesis.dc("date") == ["2013-09-04"]
    assert thesis.dc("description") == [
        "Este trabalho estuda identificadores persistentes & seus resolvedores.",
        "This work studies persistent identifiers and their resolvers."]
    assert thesis.dc("rights") == ["Acesso aberto", "https://creativecommons.org/licenses/by/4.0/"]
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
    assert set(thesis.alternate_ids.values_list("scheme", "value")) == {
        ("handle", "123456789/42"), ("dspace-item", "3f2c1a9e-5b7d-4e8f-9a0b-1c2d3e4f5a6b")}
    assert "bundles not imported: LICENSE 3, TEXT 1, THUMBNAIL 1" in out
    assert report["item_000"]["not_kept"] == (
        "dc.title.alternative dspace.entity.type local.grau")
    # DSpace 7's Handle in dc.identifier.uri; relation.isversionof: the next edition.
    second = by_handle("123456789/43")
    assert second.previous_edition == thesis and second.edition_number == 2
    assert second.dc("relation") == []
    # Defaults of ItemImport: no bundle is ORIGINAL, license.txt is LICENSE.
    data = by_handle("123456789/44")
    assert [f.name for f in data.files.all()] == ["chuva.csv"]
    assert data.language == "en" and data.dc("date") == ["2012-11-20"]
    # Restricted and embargoed items are refused, never imported open.
    for handle, source, why in (("123456789/45", "item_003", "Comunidade INPE"),
                                ("123456789/46", "item_004", "2999-01-01")):
        assert not AlternateIdentifier.objects.filter(value=handle).exists()
        assert report[source]["status"] == "failed" and why in report[source]["reason"]
        assert "never made open" in report[source]["reason"]
    assert report["item_000"]["ibi"] == thesis.ibi
    assert report["item_000"]["identifier"] == "123456789/42"
