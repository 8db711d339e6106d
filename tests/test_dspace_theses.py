"""A DSpace 7 thesis collection (tests/data/dspace/theses, SAF as ItemExport writes it)
through `importsaf` and back out by `exportsaf` (issue 34): every
(schema, element, qualifier, language, value, authority) of every item comes back; authors,
in dc.contributor.author or (TEDE, BDTD) in dc.creator with a Lattes id, are creators
wherever simple Dublin Core is spoken; a field the registry lacks fails its item only."""
from __future__ import annotations

import csv
import hashlib
import io
import shutil
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from lxml import etree

from archive.communities import services as tree
from archive.deposit import links, storage
from archive.dspace import saf
from archive.models import AlternateIdentifier, Collection, Item, ItemFile
from archive.preservation import fixity
from tests import factories as make

pytestmark = pytest.mark.django_db

THESES = Path(__file__).resolve().parent / "data" / "dspace" / "theses"
MAP = THESES.with_name("theses-collections.csv")
# What DSpace writes of its own copy, and writes again when its ItemImport installs an item:
# never the work's metadata, never kept (crosswalk.py), so never compared.
BOOKKEEPING = {("dc", "date", "accessioned"), ("dc", "date", "available"),
               ("dc", "description", "provenance"), ("dc", "format", "mimetype")}


def values_of(folder: Path) -> set[tuple[str, str, str, str, str, str]]:
    """(schema, element, qualifier, language, value, authority) of an item's SAF folder."""
    found = set()
    for path in folder.iterdir():
        if path.name == saf.DUBLIN_CORE or saf.METADATA_FILE.fullmatch(path.name):
            for v in saf.read_metadata(path.read_bytes(), path.name):
                if (v.schema, v.element, v.qualifier) not in BOOKKEEPING:
                    found.add((v.schema, v.element, v.qualifier, v.language, v.value,
                               v.authority))
    return found


def handle_of(folder: Path) -> str:
    return (folder / saf.HANDLE).read_text().strip()


def by_handle(handle: str) -> Item:
    return AlternateIdentifier.objects.get(scheme="handle", value=handle).item


def bundles_of(folder: Path) -> set[tuple[str, str, str]]:
    """(bundle, file name, SHA-256) of every file an item's `contents` names."""
    return {(line.bundle, line.name, hashlib.sha256((folder / line.name).read_bytes())
             .hexdigest()) for line in saf.read_contents((folder / saf.CONTENTS).read_text())}


def report_of(source: Path) -> dict[str, dict]:
    return {row["source"]: row for row in csv.DictReader(
        source.with_name(source.name + ".report.csv").open(encoding="utf-8"))}


def run(source: Path, *args: str) -> tuple[str, CommandError | None]:
    out = io.StringIO()
    try:
        call_command("importsaf", str(source), *args, stdout=out, stderr=io.StringIO())
    except CommandError as exc:
        return out.getvalue(), exc
    return out.getvalue(), None


@pytest.fixture
def corpus(tmp_path) -> Path:
    """A writable copy of the collection."""
    copy = tmp_path / "theses"
    shutil.copytree(THESES, copy, ignore=shutil.ignore_patterns("README.md"))
    return copy


@pytest.fixture
def theses(corpus) -> Path:
    """The collection, with the collections its `collections` files name already here."""
    make.dspace_collections()
    return corpus


@pytest.fixture
def ufc() -> dict[str, Collection]:
    """Where an operator puts the collection: collections with no Handle yet."""
    faculty = make.community("ufc")
    return {slug: make.collection(slug, faculty) for slug in ("teses", "dissertacoes", "bdtd")}


def test_a_thesis_collection_imported_and_exported_is_the_same_collection(
        corpus, ufc, tmp_path):
    """importsaf → exportsaf: per item, the same (schema, element, qualifier, language,
    value, authority), the same bundles with the same bytes, the same collections."""
    out, failed = run(corpus, "--map-collections", str(MAP))
    assert failed is None, out
    assert "4 imported, 0 updated, 0 skipped, 0 failed" in out
    assert "bundles not imported" not in out
    export = tmp_path / "export"
    call_command("exportsaf", str(export), stdout=io.StringIO())
    exported = {handle_of(f): f for f in export.iterdir()}
    assert len(exported) == 4
    for source in sorted(corpus.iterdir()):
        handle = handle_of(source)
        item = by_handle(handle)
        ours, theirs = values_of(source), values_of(exported[handle])
        assert ours - theirs == set(), (handle, ours - theirs)
        # The one value an export adds: the item's persistent URL here (its IBI), by which
        # an import of it knows the item again (ibis.py).
        assert theirs - ours == {("dc", "identifier", "uri", "",
                                  links.persistent_url(item.ibi), "")}
        # The confidence comes back with the authority.
        for path in (source / saf.DUBLIN_CORE, exported[handle] / saf.DUBLIN_CORE):
            assert {(v.value, v.authority, v.confidence) for v in saf.read_metadata(
                path.read_bytes()) if v.authority} == {
                (v.value, v.authority, v.confidence) for v in saf.read_metadata(
                    (source / saf.DUBLIN_CORE).read_bytes()) if v.authority}
        assert (exported[handle] / "metadata_local.xml").is_file()
        # Every bundle back where DSpace expects it, with the same bytes.
        assert bundles_of(source) ^ bundles_of(exported[handle]) == set(), handle
        assert {b for b, _n, _s in bundles_of(source)} == {"ORIGINAL", "TEXT", "THUMBNAIL",
                                                           "LICENSE"}
        # The same collections, the owning one first: their Handles, kept from the map.
        assert (exported[handle] / saf.COLLECTIONS).read_text().split() == (
            source / saf.COLLECTIONS).read_text().split()
    thesis = by_handle("123456789/1001")
    assert thesis.collection == ufc["teses"]
    assert list(thesis.mapped_collections.all()) == [ufc["bdtd"]]
    assert by_handle("123456789/1004").collection == ufc["dissertacoes"]
    assert {c.slug: c.handle for c in Collection.objects.filter(community__slug="ufc")} == {
        "teses": "123456789/1000", "dissertacoes": "123456789/1010", "bdtd": "123456789/1020"}


def test_the_other_bundles_are_kept_but_never_the_works_files(theses, client, media,
                                                               settings):
    settings.IBI_MAX_FILES = 2  # the work's files: a thumbnail or a text is none of them
    call_command("importsaf", str(theses), stdout=io.StringIO())
    thesis = by_handle("123456789/1003")
    assert [f.name for f in thesis.files.all()] == ["questionario.pdf", "tese.pdf"]
    assert sorted((f.bundle, f.name) for f in ItemFile.every_bundle.filter(item=thesis)) == [
        ("LICENSE", "license.txt"), ("ORIGINAL", "questionario.pdf"), ("ORIGINAL", "tese.pdf"),
        ("TEXT", "questionario.pdf.txt"), ("TEXT", "tese.pdf.txt"),
        ("THUMBNAIL", "tese.pdf.jpg")]
    # The layout: the work's files in doc/, and only they; the others beside it.
    stored = {p.relative_to(media / storage.item_folder(thesis.ibi)).as_posix()
              for p in (media / storage.item_folder(thesis.ibi)).rglob("*") if p.is_file()}
    assert stored == {"doc/questionario.pdf", "doc/tese.pdf", "bundles/license/license.txt",
                      "bundles/text/questionario.pdf.txt", "bundles/text/tese.pdf.txt",
                      "bundles/thumbnail/tese.pdf.jpg"}
    api = client.get(f"/api/items/{thesis.ibi}", secure=True).json()
    assert sorted(f["name"] for f in api["files"]) == ["questionario.pdf", "tese.pdf"]
    page = client.get(links.landing_url(thesis.ibi, "https://testserver"), secure=True,
                      follow=True).content.decode()
    assert "tese.pdf.txt" not in page and "license.txt" not in page
    for path in ("doc/tese.pdf.txt", "doc/license.txt", "bundles/text/tese.pdf.txt"):
        assert client.get(f"/{storage.item_folder(thesis.ibi)}/{path}",
                          secure=True).status_code == 404, path
    assert client.get(f"/{storage.file_key(thesis.ibi, 'tese.pdf')}",
                      secure=True).status_code == 200
    # fsck knows them: no orphan.
    fsck = io.StringIO()
    call_command("fsck", stdout=fsck, stderr=io.StringIO())
    assert "0 problems" in fsck.getvalue(), fsck.getvalue()
    # Fixity checks them too.
    text = media / storage.file_key(thesis.ibi, "tese.pdf.txt", "TEXT")
    text.write_bytes(b"changed")
    assert [f.problem.split(":")[0] for f in fixity.check() if f.key.endswith(
        "/bundles/text/tese.pdf.txt") and f.key.startswith(f"col/{thesis.ibi}/")] == ["changed"]


def test_an_unknown_collection_fails_its_item_naming_its_handle(theses):
    path = theses / "item_002" / saf.COLLECTIONS
    path.write_text("123456789/1000\n123456789/9999\n")
    out, failed = run(theses)
    assert failed is not None
    assert "3 imported, 0 updated, 0 skipped, 1 failed" in out
    row = report_of(theses)["item_002"]
    assert (row["status"], row["line"], row["identifier"]) == (
        "failed", "item_002/collections", "123456789/1003")
    assert row["reason"] == ("the collection 123456789/9999 is not a collection here: map it "
                             "to one (--map-collections)")
    assert not AlternateIdentifier.objects.filter(value="123456789/1003").exists()
    assert not ItemFile.every_bundle.filter(name="questionario.pdf.txt").exists()


def test_collection_options_place_items_and_bad_ones_stop_the_run(corpus, ufc, tmp_path):
    (corpus / "item_003" / saf.COLLECTIONS).unlink()  # no collections file: --collection
    for folder in ("item_000", "item_001", "item_002"):
        shutil.rmtree(corpus / folder)
    out, failed = run(corpus, "--collection", "dissertacoes")
    assert failed is None, out
    assert by_handle("123456789/1004").collection == ufc["dissertacoes"]
    # Moved here since, and imported again: it stays where the librarian put it.
    tree.item_move(item=by_handle("123456789/1004"), collection=ufc["teses"])
    out, failed = run(corpus, "--collection", "dissertacoes")
    assert failed is None and "0 imported, 0 updated, 1 skipped" in out, out
    assert by_handle("123456789/1004").collection == ufc["teses"]
    with pytest.raises(CommandError, match="--collection: no collection here has the slug "
                                           "'nenhuma'"):
        call_command("importsaf", str(corpus), "--collection", "nenhuma", stdout=io.StringIO())
    bad = tmp_path / "map.csv"
    for text, message in (("123456789/1000,teses,x\n", "line 1: two columns expected"),
                          ("handle,slug\nteses ufc,teses\n",
                           "line 2: 'teses ufc' is neither a Handle nor a collection's slug"),
                          ("123456789/1000,nenhuma\n",
                           "123456789/1000: no collection here has the slug 'nenhuma'")):
        bad.write_text(text)
        with pytest.raises(CommandError, match=message):
            call_command("importsaf", str(corpus), "--map-collections", str(bad),
                         stdout=io.StringIO())
    assert ufc["teses"].handle == ""  # nothing kept of a run that stopped


def test_an_item_moved_in_dspace_moves_here_on_the_next_import(theses):
    call_command("importsaf", str(theses), stdout=io.StringIO())
    (theses / "item_003" / saf.COLLECTIONS).write_text("123456789/1000\n123456789/1010\n")
    out, failed = run(theses, "--same-repository")
    assert failed is None and "0 imported, 1 updated, 3 skipped, 0 failed" in out, out
    moved = by_handle("123456789/1004")
    assert moved.collection.handle == "123456789/1000"
    assert [c.handle for c in moved.mapped_collections.all()] == ["123456789/1010"]


def test_a_thesis_keeps_its_advisors_committee_programme_and_cnpq_area(theses, client):
    call_command("importsaf", str(theses), stdout=io.StringIO())
    thesis = by_handle("123456789/1001")
    fields = {(v.field.name, v.value, v.language, v.authority, v.confidence)
              for v in thesis.dc_values.select_related("field__schema")}
    assert ("dc.contributor.advisor", "Pereira, João Henrique", "", "4727357182510680",
            600) in fields
    assert ("dc.contributor.advisor-co", "Almeida, Beatriz Souza", "", "1234567890123452",
            500) in fields
    assert {v for f, v, *_ in fields if f == "dc.contributor.referee"} == {
        "Pereira, João Henrique", "Santos, Carlos Eduardo", "Lima, Fernanda Rocha"}
    assert ("dc.publisher.program", "Programa de Pós-Graduação em Engenharia Civil: Recursos "
            "Hídricos", "pt-BR", "", -1) in fields
    assert ("dc.subject.cnpq", "CNPQ::ENGENHARIAS::ENGENHARIA CIVIL::RECURSOS HIDRICOS", "",
            "", -1) in fields
    assert ("local.degree.level", "doutorado", "pt-BR", "", -1) in fields
    assert ("dc.title.alternative", "Hydrological modelling of semi-arid basins", "en", "",
            -1) in fields
    # Simple Dublin Core, as DSpace's oai_dc crosswalk: qualifiers dropped.
    assert thesis.title == "Modelagem hidrológica de bacias do semiárido"
    assert thesis.dc("creator") == ["Oliveira, Mariana Costa"]
    assert thesis.dc("date") == ["2023-02-28"]
    assert "Pereira, João Henrique" in thesis.dc("contributor")
    assert "Programa de Pós-Graduação em Engenharia Civil: Recursos Hídricos" in thesis.dc(
        "publisher")
    assert thesis.dc("rights") == ["https://creativecommons.org/licenses/by/4.0/"]


@pytest.mark.parametrize("handle,author,authority", [
    ("123456789/1001", "Oliveira, Mariana Costa", "0000-0002-1825-0097"),  # contributor.author
    ("123456789/1002", "Ferreira, Lucas Andrade", "8765432109876543"),  # TEDE: dc.creator
])
def test_a_dspace_thesis_shows_its_authors_as_creators_everywhere(theses, client, handle,
                                                                  author, authority):
    call_command("importsaf", str(theses), stdout=io.StringIO())
    item = by_handle(handle)
    api = client.get(f"/api/items/{item.ibi}", secure=True).json()
    assert api["creator"] == [author]
    assert [c["name"] for c in api["creators"]] == [author]
    assert {(m["field"], m["value"], m["authority"]) for m in api["metadata"]} >= {
        ("dc.contributor.author" if handle.endswith("1001") else "dc.creator", author,
         authority)}
    page = client.get(links.landing_url(item.ibi, "https://testserver"), secure=True,
                      follow=True).content.decode()
    assert author in page
    # Citations: CSL-JSON's author, as every citation style reads it.
    csl = client.get(f"/items/{item.ibi}/metadata/csljson", secure=True).json()
    assert [(a["family"], a["given"]) for a in csl[0]["author"]] == [
        tuple(part.strip() for part in author.split(","))]
    oai = client.get("/oai", {"verb": "GetRecord", "metadataPrefix": "oai_dc",
                              "identifier": f"oai:testserver:{item.ibi}"})
    root = etree.fromstring(oai.content)
    creators = root.findall(".//{http://purl.org/dc/elements/1.1/}creator")
    assert [c.text for c in creators] == [author]
    contributors = [c.text for c in root.findall(
        ".//{http://purl.org/dc/elements/1.1/}contributor")]
    assert "Almeida, Beatriz Souza" in contributors  # the advisor: a dc:contributor


def test_a_field_the_registry_lacks_fails_its_item_and_the_rest_come_in(theses):
    path = theses / "item_001" / "metadata_local.xml"
    path.write_text(path.read_text().replace(
        "</dublin_core>",
        '  <dcvalue element="grau" qualifier="none">Mestrado</dcvalue>\n</dublin_core>'))
    out = io.StringIO()
    with pytest.raises(CommandError, match="1 item or entry failed"):
        call_command("importsaf", str(theses), stdout=out)
    assert "3 imported, 0 updated, 0 skipped, 1 failed" in out.getvalue()
    report = {row["source"]: row for row in csv.DictReader(
        theses.with_name("theses.report.csv").open(encoding="utf-8"))}
    assert report["item_001"]["status"] == "failed"
    assert report["item_001"]["reason"] == "local.grau is not a field of the metadata registry"
    assert report["item_001"]["line"] == "item_001/metadata_local.xml"
    assert not AlternateIdentifier.objects.filter(value="123456789/1002").exists()


def test_importing_the_collection_again_changes_nothing(theses):
    call_command("importsaf", str(theses), stdout=io.StringIO())
    out = io.StringIO()
    call_command("importsaf", str(theses), stdout=out)
    assert "0 imported, 0 updated, 4 skipped, 0 failed" in out.getvalue()
