"""A DSpace 7 thesis collection (tests/data/dspace/theses, SAF as ItemExport writes it)
through `importsaf` and back out by `exportsaf` (issue 34): every
(schema, element, qualifier, language, value, authority) of every item comes back; authors,
in dc.contributor.author or (TEDE, BDTD) in dc.creator with a Lattes id, are creators
wherever simple Dublin Core is spoken; a field the registry lacks fails its item only."""
from __future__ import annotations

import csv
import io
import shutil
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from lxml import etree

from archive.deposit import links
from archive.dspace import saf
from archive.models import AlternateIdentifier, Item
from tests import factories as make

pytestmark = pytest.mark.django_db

THESES = Path(__file__).resolve().parent / "data" / "dspace" / "theses"
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


@pytest.fixture
def theses(tmp_path) -> Path:
    make.dspace_collections()
    copy = tmp_path / "theses"
    shutil.copytree(THESES, copy, ignore=shutil.ignore_patterns("README.md"))
    return copy


def test_a_thesis_collection_imported_and_exported_keeps_every_qualified_value(
        theses, tmp_path):
    out = io.StringIO()
    call_command("importsaf", str(theses), stdout=out)
    assert "3 imported, 0 updated, 0 skipped, 0 failed" in out.getvalue()
    export = tmp_path / "export"
    call_command("exportsaf", str(export), stdout=io.StringIO())
    exported = {handle_of(f): f for f in export.iterdir()}
    for source in sorted(theses.iterdir()):
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
    assert "2 imported, 0 updated, 0 skipped, 1 failed" in out.getvalue()
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
    assert "0 imported, 0 updated, 3 skipped, 0 failed" in out.getvalue()
