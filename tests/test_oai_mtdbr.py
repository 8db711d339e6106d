"""OAI-PMH for BDTD and Oasisbr (issue 34, 5): a DSpace 7 thesis collection
(tests/data/dspace/theses) imported, then served in IBICT's `mtd3-br` (valid against IBICT's
own mtd3-br.xsd, tests/data/schemas/ibict/), `mtd2-br` (TEDE's, against our schema of it) and
DSpace's `dim`, each role in its element (advisor, co-advisor, committee with their Lattes
CVs, programme, CNPq area, degree); an item with no file open to all marked closed, restricted
or embargoed as BDTD reads dc.rights; and sickle, a real harvester, reading `dim` and
`mtd3-br` page by page. The DSpace-style `dim` harvest of this OAI-PMH into a second
instance: tests/test_harvest_live.py (its live origin)."""
from __future__ import annotations

import io
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.core.management import call_command
from lxml import etree
from sickle import Sickle

from archive.deposit import services
from archive.models import AlternateIdentifier, Item
from tests import factories as make
from tests import xml_schemas

pytestmark = pytest.mark.django_db

THESES = Path(__file__).resolve().parent / "data" / "dspace" / "theses"
OAI = "{http://www.openarchives.org/OAI/2.0/}"
MTD3 = "{http://200.130.0.199/mtd3-br/}"
MTD2 = "{http://oai.ibict.br/mtd2-br/}"
DIM = "{http://www.dspace.org/xmlns/dspace/dim}"
OPEN, CLOSED, RESTRICTED, EMBARGOED = (f"info:eu-repo/semantics/{word}Access" for word in (
    "open", "closed", "restricted", "embargoed"))
RECORD_SCHEMAS = {"mtd3-br": xml_schemas.mtd3br, "mtd2-br": xml_schemas.mtd2br,
                  "dim": xml_schemas.dim}


@pytest.fixture
def theses(tmp_path) -> dict[str, Item]:
    """The theses of the DSpace corpus, imported by `importsaf` into the collections their
    Handles name, by their Handle."""
    make.dspace_collections()
    copy = tmp_path / "theses"
    shutil.copytree(THESES, copy, ignore=shutil.ignore_patterns("README.md"))
    call_command("importsaf", str(copy), stdout=io.StringIO())
    return {row.value: row.item for row in AlternateIdentifier.objects.filter(scheme="handle")
            .select_related("item")}


def get_record(client, item: Item, prefix: str) -> etree._Element:
    """The item's record in `prefix`, after validating the whole answer (OAI-PMH.xsd with
    the format's schema) and the record (the format's schema alone)."""
    root = etree.fromstring(client.get("/oai", {
        "verb": "GetRecord", "metadataPrefix": prefix,
        "identifier": f"oai:testserver:{item.ibi}"}).content)
    xml_schemas.assert_valid(xml_schemas.oai_pmh(prefix), root)
    record = root.find(f".//{OAI}metadata")[0]
    xml_schemas.assert_valid(RECORD_SCHEMAS[prefix](), record)
    return record


def texts(record: etree._Element, tag: str) -> list[str]:
    return [e.text for e in record.iter(tag)]


def with_lang(record: etree._Element, tag: str) -> list[tuple[str, str | None]]:
    return [(e.text, e.get("lang")) for e in record.iter(tag)]


def test_a_dspace_thesis_in_mtd3br_names_every_role_as_bdtd_reads_it(client, theses):
    thesis = theses["123456789/1001"]
    record = get_record(client, thesis, "mtd3-br")
    assert texts(record, f"{MTD3}contributorAuthor") == ["Oliveira, Mariana Costa"]
    assert texts(record, f"{MTD3}contributorAuthorID") == [
        "https://orcid.org/0000-0002-1825-0097"]
    assert texts(record, f"{MTD3}contributorAdvisor") == ["Pereira, João Henrique"]
    assert texts(record, f"{MTD3}contributorAdvisorLattes") == [
        "http://lattes.cnpq.br/4727357182510680"]
    assert texts(record, f"{MTD3}contributorAdvisor-co1") == ["Almeida, Beatriz Souza"]
    assert texts(record, f"{MTD3}contributorAdvisor-co1Lattes") == [
        "http://lattes.cnpq.br/1234567890123452"]
    # The committee, one member a slot, with the Lattes CV of the one who has it.
    assert [(texts(record, f"{MTD3}contributorReferees{n}"),
             texts(record, f"{MTD3}contributorReferees{n}Lattes")) for n in (1, 2, 3, 4)] == [
        (["Pereira, João Henrique"], ["http://lattes.cnpq.br/4727357182510680"]),
        (["Santos, Carlos Eduardo"], []), (["Lima, Fernanda Rocha"], []), ([], [])]
    assert texts(record, f"{MTD3}dateIssued") == ["2023-02-28"]
    assert texts(record, f"{MTD3}identifierCitation")[0].startswith("OLIVEIRA, Mariana Costa.")
    assert with_lang(record, f"{MTD3}descriptionResumo") == [(
        "Esta tese propõe um modelo hidrológico para bacias do semiárido & avalia-o em três "
        "reservatórios.", "por")]
    assert with_lang(record, f"{MTD3}descriptionAbstract") == [(
        "This thesis proposes a hydrological model for semi-arid basins and assesses it in "
        "three reservoirs.", "eng")]
    assert texts(record, f"{MTD3}publisher") == ["Universidade Federal do Ceará"]
    assert texts(record, f"{MTD3}publisherProgram") == [
        "Programa de Pós-Graduação em Engenharia Civil: Recursos Hídricos"]
    assert texts(record, f"{MTD3}publisherDepartament") == ["Centro de Tecnologia"]
    assert texts(record, f"{MTD3}publisherInitials") == ["UFC"]
    assert texts(record, f"{MTD3}publisherCountry") == ["Brasil"]
    assert texts(record, f"{MTD3}type") == ["doctoralThesis"]
    assert texts(record, f"{MTD3}title") == ["Modelagem hidrológica de bacias do semiárido"]
    assert with_lang(record, f"{MTD3}titleAlternative") == [
        ("Hydrological modelling of semi-arid basins", "eng")]
    assert texts(record, f"{MTD3}language") == ["por"]
    assert texts(record, f"{MTD3}rights") == [OPEN]
    assert texts(record, f"{MTD3}rightsUri") == ["https://creativecommons.org/licenses/by/4.0/"]
    assert with_lang(record, f"{MTD3}subject") == [
        ("Hidrologia", "por"), ("Semiárido", "por"), ("Hydrology", "eng"), ("Semi-arid", "eng")]
    assert texts(record, f"{MTD3}subjectCnpq") == [
        "CNPQ::ENGENHARIAS::ENGENHARIA CIVIL::RECURSOS HIDRICOS"]
    assert texts(record, f"{MTD3}format") == ["application/pdf"]

    # The same thesis in TEDE's MTD-BR 2: nested, the roles as Papel.
    record = get_record(client, thesis, "mtd2-br")
    roles = [(c.get("Papel"), c.findtext(f"{MTD2}Nome"), c.findtext(f"{MTD2}Lattes"))
             for c in record.iter(f"{MTD2}Contribuidor")]
    assert roles == [
        ("Orientador", "Pereira, João Henrique", "http://lattes.cnpq.br/4727357182510680"),
        ("Co-orientador", "Almeida, Beatriz Souza", "http://lattes.cnpq.br/1234567890123452"),
        ("Membro da banca", "Pereira, João Henrique", "http://lattes.cnpq.br/4727357182510680"),
        ("Membro da banca", "Santos, Carlos Eduardo", None),
        ("Membro da banca", "Lima, Fernanda Rocha", None)]
    assert (record.findtext(f"{MTD2}Grau"), record.findtext(f"{MTD2}Titulacao"),
            record.findtext(f"{MTD2}Idioma")) == ("Doutor", "Doutor em Engenharia Civil", "pt")
    assert [(a.get("Esquema"), a.text) for a in record.iter(f"{MTD2}Assunto")][-1] == (
        "Tabela CNPQ", "CNPQ::ENGENHARIAS::ENGENHARIA CIVIL::RECURSOS HIDRICOS")
    assert record.findtext(f"{MTD2}InstituicaoDefesa/{MTD2}Programa/{MTD2}Nome") == (
        "Programa de Pós-Graduação em Engenharia Civil: Recursos Hídricos")
    assert [(a.find(f"{MTD2}URL").get("Formato"), a.findtext(f"{MTD2}NivelAcesso"))
            for a in record.iter(f"{MTD2}Arquivo")] == [("application/pdf", "Publico")]

    # Every thesis of the corpus, in each format, valid: two authors (the first is the
    # author MTD-BR 3 has room for), a dissertation, Spanish keywords, a sponsor.
    for item in theses.values():
        for prefix in RECORD_SCHEMAS:
            get_record(client, item, prefix)
    second = get_record(client, theses["123456789/1003"], "mtd3-br")
    assert texts(second, f"{MTD3}contributorAuthor") == ["Rocha, Helena Martins"]
    assert texts(second, f"{MTD3}descriptionSponsorship") == [
        "Coordenação de Aperfeiçoamento de Pessoal de Nível Superior (CAPES)"]


def test_an_item_with_no_open_file_is_marked_as_bdtd_expects(client):
    def thesis(title: str, *files, **access) -> Item:
        item = make.item(*files, title=title, language="pt-BR", bare=not files, dc={
            "type": ["Tese"], "dc.contributor.advisor": ["Pereira, João"]})
        if access:
            services.item_set_access(item=item, **access)
        return item

    pdf = ("tese.pdf", b"%PDF-1.4", "application/pdf")
    items = {
        OPEN: thesis("Aberta", pdf),
        EMBARGOED: thesis("Embargada", pdf, rights="embargoed",
                          embargo_until=datetime.now(UTC).date() + timedelta(days=90)),
        RESTRICTED: thesis("Com arquivo restrito", pdf, restricted_files=["tese.pdf"]),
        CLOSED: thesis("Só metadados", pdf, rights="metadata-only"),
    }
    items["no file"] = thesis("Sem arquivo")
    expected = {OPEN: OPEN, EMBARGOED: EMBARGOED, RESTRICTED: RESTRICTED, CLOSED: CLOSED,
                "no file": CLOSED}
    for key, item in items.items():
        said = expected[key]
        dim = get_record(client, item, "dim")
        rights = [f.text for f in dim.iter(f"{DIM}field") if f.get("element") == "rights"]
        assert rights == [said], key
        mtd3 = get_record(client, item, "mtd3-br")
        assert texts(mtd3, f"{MTD3}rights") == [said], key
        assert texts(mtd3, f"{MTD3}format") == (["application/pdf"] if said == OPEN else []), key
        mtd2 = get_record(client, item, "mtd2-br")
        levels = [a.findtext(f"{MTD2}NivelAcesso") for a in mtd2.iter(f"{MTD2}Arquivo")]
        assert levels == (["Publico"] if said == OPEN else ["Restrito"]), key
        assert texts(mtd2, f"{MTD2}Direitos") == [said], key
    embargoed = get_record(client, items[EMBARGOED], "mtd3-br")
    assert texts(embargoed, f"{MTD3}dateAvailable") == [
        items[EMBARGOED].embargo_until.isoformat()]
    # A withheld file is never named: the landing page stands in for it.
    mtd2 = get_record(client, items[RESTRICTED], "mtd2-br")
    assert "tese.pdf" not in etree.tostring(mtd2, encoding="unicode")


def test_sickle_harvests_dim_and_mtd3br_page_by_page(live_server, theses, settings):
    settings.IBI_OAI_PAGE_SIZE = 1  # every record after the first behind a resumption token
    harvester = Sickle(f"{live_server.url}/oai")
    formats = {f.metadataPrefix: f.metadataNamespace for f in harvester.ListMetadataFormats()}
    assert formats["mtd3-br"] == "http://200.130.0.199/mtd3-br/"
    assert formats["mtd2-br"] == "http://oai.ibict.br/mtd2-br/"
    ours = {item.ibi: handle for handle, item in theses.items()}
    harvested = {}
    for prefix in ("mtd3-br", "dim"):
        records = {r.header.identifier.rsplit(":", 1)[-1]: r
                   for r in harvester.ListRecords(metadataPrefix=prefix)}
        assert set(records) == set(ours), prefix
        for record in records.values():
            xml_schemas.assert_valid(RECORD_SCHEMAS[prefix](),
                                     record.xml.find(f".//{OAI}metadata")[0])
        harvested[prefix] = {ours[ibi]: record.metadata for ibi, record in records.items()}
    # sickle's own reading of each: element → its values
    mtd3 = harvested["mtd3-br"]
    assert mtd3["123456789/1001"]["contributorAdvisor"] == ["Pereira, João Henrique"]
    assert mtd3["123456789/1001"]["subjectCnpq"] == [
        "CNPQ::ENGENHARIAS::ENGENHARIA CIVIL::RECURSOS HIDRICOS"]
    assert mtd3["123456789/1003"]["rights"] == [OPEN]
    assert "Pereira, João Henrique" in harvested["dim"]["123456789/1001"]["field"]
