"""Every channel speaks a thesis's qualifiers (issue 34, 4): a doctoral thesis and a master's
dissertation described as MTD-BR describes them (tests/factories.py THESIS) read through the
landing page (the registry's labels in pt-BR and en, ORCID and Lattes links), the citations
(CSL-JSON valid against CSL's schema with ABNT's genre, BibTeX read by bibtexparser, RIS by
rispy), oai_dc (qualifiers dropped as DCMI says), DataCite and OpenAIRE (valid against their
XSDs: the advisor a Supervisor with its ORCID iD), schema.org (a Thesis with its
sourceOrganization, as extruct reads it) and the search's facets and filters (programme,
advisor, CNPq area, degree level). The Nu checker and axe read the same thesis in the showcase
(tests/test_page_checks.py)."""
from __future__ import annotations

import json
from urllib.parse import urlencode

import bibtexparser
import extruct
import jsonschema
import lxml.html
import pytest
import rispy
from bibtexparser.middlewares import LatexDecodingMiddleware
from django.db import connection, transaction
from django.urls import reverse
from lxml import etree

from archive.deposit import links
from archive.deposit.selectors import listed_items
from archive.search import selectors as searching
from tests import factories as make
from tests import xml_schemas
from tests.test_citations import CSL_SCHEMA

pytestmark = pytest.mark.django_db

PT = {"HTTP_ACCEPT_LANGUAGE": "pt-BR,pt;q=0.9"}
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
OAI = "{http://www.openarchives.org/OAI/2.0/}"
DC = "{http://purl.org/dc/elements/1.1/}"
DATACITE = {"d": "http://datacite.org/schema/kernel-4"}
OPENAIRE = {"oaire": "http://namespace.openaire.eu/schema/oaire/",
            "datacite": "http://datacite.org/schema/kernel-4"}
INSTITUTION = "Universidade Federal do Rio Grande do Sul"
PROGRAMME = "Programa de Pós-Graduação em Física"
ADVISOR, ADVISOR_ORCID = "Pereira, João Henrique", "0000-0002-1694-233X"
CO_ADVISOR, CO_ADVISOR_LATTES = "Almeida, Beatriz Souza", "1234567890123452"
CNPQ = "CNPQ::CIENCIAS EXATAS E DA TERRA::FISICA"
DISSERTATION = {
    "creator": ["Souza, Pedro"], "dc.contributor.advisor": [ADVISOR],
    "publisher": [INSTITUTION], "dc.publisher.program": ["Programa de Pós-Graduação em Química"],
    "dc.subject.cnpq": ["CNPQ::CIENCIAS EXATAS E DA TERRA::QUIMICA"],
    "local.degree.level": ["mestrado"], "type": ["Dissertação"], "date": ["2023"],
}


@pytest.fixture(scope="module")
def theses(django_db_setup, django_db_blocker):
    """A doctoral thesis (make.THESIS) and a master's dissertation of the same advisor, made
    once for the module in a transaction rolled back at its end (each test's own is a
    savepoint inside it)."""
    with django_db_blocker.unblock(), transaction.atomic():
        found = {
            "doctoral": make.item(title="Supercondutividade em filmes finos", language="pt-BR",
                                  dc=make.THESIS, bare=True),
            "masters": make.item(title="Catálise em zeólitas", language="pt-BR",
                                 dc=DISSERTATION, bare=True),
        }
        yield found
        transaction.set_rollback(True)


def metadata(client, item, fmt: str) -> str:
    return client.get(links.metadata_url(item.ibi, None, fmt)).content.decode()


def oai_record(client, item, prefix: str) -> etree._Element:
    return etree.fromstring(client.get("/oai", {
        "verb": "GetRecord", "metadataPrefix": prefix,
        "identifier": f"oai:testserver:{item.ibi}"}).content)


def thesis_rows(html: str) -> dict[str, list[str]]:
    """The landing page's thesis section: label → the values' text (with their links)."""
    page = lxml.html.document_fromstring(html)
    (section,) = page.xpath("//section[@aria-labelledby='thesis-h']")
    return {row.findtext("dt"): [" ".join(value.text_content().split())
                                 for value in row.xpath("dd/span[@class='value']")]
            for row in section.xpath(".//dl/div")}


# -- The landing page --------------------------------------------------------------------------

def test_the_landing_page_shows_the_thesis_under_the_registrys_labels_in_both_languages(
        client, theses):
    url = links.landing_url(theses["doctoral"].ibi, None)
    pt = client.get(url, **PT).content.decode()
    rows = thesis_rows(pt)
    assert list(rows) == ["Orientador", "Coorientador", "Membro da banca", "Nível do grau",
                          "Grau", "Programa de pós-graduação", "Departamento",
                          "Área do conhecimento CNPq"]
    assert rows["Orientador"] == [ADVISOR]  # its ORCID link is an image
    assert rows["Coorientador"] == [f"{CO_ADVISOR} Lattes (Currículo de {CO_ADVISOR})"]
    assert rows["Membro da banca"] == ["Santos, Carlos Eduardo", "Rocha, Fernanda"]
    assert rows["Nível do grau"] == ["Doutorado"]
    assert rows["Programa de pós-graduação"] == [PROGRAMME]
    assert rows["Área do conhecimento CNPq"] == ["CIENCIAS EXATAS E DA TERRA › FISICA"]
    en = thesis_rows(client.get(url, **EN).content.decode())
    assert list(en)[:4] == ["Advisor", "Co-advisor", "Examining committee member",
                            "Degree level"]
    assert en["Degree level"] == ["Doctorate"]
    assert en["Co-advisor"] == [f"{CO_ADVISOR} Lattes (CV of {CO_ADVISOR})"]

    page = lxml.html.document_fromstring(pt)
    hrefs = {a.get("href") for a in page.iter("a")}
    assert f"https://orcid.org/{ADVISOR_ORCID}" in hrefs
    assert "https://orcid.org/0000-0001-5109-3700" in hrefs  # a committee member's
    assert f"http://lattes.cnpq.br/{CO_ADVISOR_LATTES}" in hrefs
    assert "http://lattes.cnpq.br/8765432109876543" in hrefs  # the author's, in the header
    # Each facet's value leads to the search narrowed by it.
    for name, value in (("advisor", ADVISOR), ("programme", PROGRAMME), ("cnpq", CNPQ),
                        ("degree", "doutorado")):
        assert "/search?" + urlencode({name: value}) in hrefs, name


def test_a_page_without_thesis_fields_has_no_thesis_section(client, theses):
    report = make.item(title="Relatório", dc={"creator": ["Banon, Gerald"]}, bare=True)
    page = client.get(links.landing_url(report.ibi, None), **PT).content.decode()
    assert 'aria-labelledby="thesis-h"' not in page


# -- Citations ---------------------------------------------------------------------------------

def test_csl_json_names_degree_and_area_in_the_genre_the_institution_and_the_advisors(
        client, theses):
    items = json.loads(metadata(client, theses["doctoral"], "csljson"))
    jsonschema.validate(items, CSL_SCHEMA)
    (thesis,) = items
    assert (thesis["type"], thesis["genre"], thesis["publisher"]) == (
        "thesis", "Tese (Doutorado em Física)", INSTITUTION)
    assert thesis["contributor"] == [{"family": "Pereira", "given": "João Henrique"},
                                     {"family": "Almeida", "given": "Beatriz Souza"}]
    assert thesis["author"] == [{"family": "Lima", "given": "Ana"}]
    (dissertation,) = json.loads(metadata(client, theses["masters"], "csljson"))
    assert dissertation["genre"] == "Dissertação (Mestrado em Química)"  # from the programme


def test_abnt_cites_a_thesis_as_nbr_6023_does(client, theses):
    page = client.get(links.landing_url(theses["doctoral"].ibi, None) + "?style=abnt",
                      follow=True, **PT).content.decode()
    citation = " ".join(lxml.html.document_fromstring(page).xpath(
        "string(//*[@id='cite-text'])").split())
    assert "LIMA, A." in citation
    assert "Tese (Doutorado em Física)" in citation and INSTITUTION in citation
    assert ADVISOR not in citation  # NBR 6023 names no advisor


def test_bibtex_and_ris_say_the_same_school_degree_and_advisors(client, theses):
    library = bibtexparser.parse_string(metadata(client, theses["doctoral"], "bibtex"),
                                        append_middleware=[LatexDecodingMiddleware()])
    (entry,) = library.entries
    assert entry.entry_type == "phdthesis"
    assert entry.fields_dict["school"].value == INSTITUTION
    assert entry.fields_dict["type"].value == "Tese (Doutorado em Física)"
    note = entry.fields_dict["note"].value
    assert f"Advisor: {ADVISOR}" in note and f"Co-advisor: {CO_ADVISOR}" in note
    (record,) = rispy.loads(metadata(client, theses["doctoral"], "ris"))
    assert record["type_of_reference"] == "THES"
    assert record["publisher"] == INSTITUTION
    assert record["tertiary_authors"] == [ADVISOR, CO_ADVISOR]  # A3
    assert record["secondary_authors"] == [  # A2: the committee and the other contributors
        "Santos, Carlos Eduardo", "Rocha, Fernanda", "Costa, Revisão Técnica"]


# -- oai_dc, DataCite, OpenAIRE ----------------------------------------------------------------

def test_oai_dc_drops_the_qualifiers_as_dcmi_says(client, theses):
    root = oai_record(client, theses["doctoral"], "oai_dc")
    xml_schemas.assert_valid(xml_schemas.oai_pmh("oai_dc"), root)
    contributors = [e.text for e in root.iter(f"{DC}contributor")]
    assert sorted(contributors) == sorted([ADVISOR, CO_ADVISOR, "Santos, Carlos Eduardo",
                                           "Rocha, Fernanda", "Costa, Revisão Técnica"])
    assert set(e.text for e in root.iter(f"{DC}publisher")) >= {
        INSTITUTION, PROGRAMME, "Instituto de Física", "UFRGS"}
    assert CNPQ in [e.text for e in root.iter(f"{DC}subject")]
    assert not any(e.text in ("doutorado", "Doutor em Física") for e in root.iter())
    assert not any("advisor" in e.tag or "program" in e.tag for e in root.iter())


def contributors_of(root: etree._Element, prefix: str, ns: dict) -> list[tuple]:
    return [(c.get("contributorType"), c.findtext(f"{prefix}:contributorName", namespaces=ns),
             [(i.get("nameIdentifierScheme"), i.text)
              for i in c.findall(f"{prefix}:nameIdentifier", ns)])
            for c in root.findall(f"{prefix}:contributors/{prefix}:contributor", ns)]


def test_datacite_names_the_advisors_supervisors_with_their_ids(client, theses):
    root = etree.fromstring(metadata(client, theses["doctoral"], "datacite").encode())
    xml_schemas.assert_valid(xml_schemas.datacite(), root)
    assert root.find("d:resourceType", DATACITE).get("resourceTypeGeneral") == "Dissertation"
    assert contributors_of(root, "d", DATACITE) == [
        ("Supervisor", ADVISOR, [("ORCID", f"https://orcid.org/{ADVISOR_ORCID}")]),
        ("Supervisor", CO_ADVISOR, [("Lattes", f"http://lattes.cnpq.br/{CO_ADVISOR_LATTES}")]),
        ("Other", "Santos, Carlos Eduardo", []),
        ("Other", "Rocha, Fernanda", [("ORCID", "https://orcid.org/0000-0001-5109-3700")]),
        ("Other", "Costa, Revisão Técnica", [])]
    creator = root.find("d:creators/d:creator/d:nameIdentifier", DATACITE)
    assert (creator.get("nameIdentifierScheme"), creator.text) == (
        "Lattes", "http://lattes.cnpq.br/8765432109876543")
    area = root.xpath("d:subjects/d:subject[.=$v]", namespaces=DATACITE, v=CNPQ)[0]
    assert area.get("subjectScheme") == "CNPq: Tabela de Áreas do Conhecimento"
    # The same through OAI-PMH, valid in the protocol's envelope.
    xml_schemas.assert_valid(xml_schemas.oai_pmh("datacite"),
                             oai_record(client, theses["doctoral"], "oai_datacite"))


def test_openaire_says_supervisor_and_the_coar_type_of_the_degree(client, theses):
    for key, uri, label in (("doctoral", "c_db06", "doctoral thesis"),
                            ("masters", "c_bdcc", "master thesis")):
        response = oai_record(client, theses[key], "oai_openaire")
        xml_schemas.assert_valid(xml_schemas.oai_pmh("oai_openaire"), response)
        root = response.find(f".//{OAI}metadata/{{{OPENAIRE['oaire']}}}resource")
        xml_schemas.assert_valid(xml_schemas.openaire(), root)
        resource_type = root.find("oaire:resourceType", OPENAIRE)
        assert (resource_type.get("uri"), resource_type.text) == (
            f"http://purl.org/coar/resource_type/{uri}", label)
    found = contributors_of(root, "datacite", OPENAIRE)  # the master's dissertation
    assert found == [("Supervisor", ADVISOR, [])]
    doctoral = oai_record(client, theses["doctoral"], "oai_openaire").find(
        f".//{OAI}metadata/{{{OPENAIRE['oaire']}}}resource")
    assert contributors_of(doctoral, "datacite", OPENAIRE)[:2] == [
        ("Supervisor", ADVISOR, [("ORCID", ADVISOR_ORCID)]),  # bare, as the guidelines write
        ("Supervisor", CO_ADVISOR, [("Lattes", f"http://lattes.cnpq.br/{CO_ADVISOR_LATTES}")])]


# -- schema.org --------------------------------------------------------------------------------

def test_schema_org_is_a_thesis_from_its_programme_with_its_advisor(client, theses):
    url = links.landing_url(theses["doctoral"].ibi, None)
    html = client.get(url, **PT).content.decode()
    (thesis,) = extruct.extract(html, base_url=f"http://testserver{url}", uniform=True,
                                syntaxes=["json-ld"])["json-ld"]
    assert thesis["@type"] == "Thesis"
    assert thesis["sourceOrganization"] == {
        "@type": "Organization", "name": PROGRAMME,
        "parentOrganization": {
            "@type": "Organization", "name": "Instituto de Física",
            "parentOrganization": {"@type": "CollegeOrUniversity", "name": INSTITUTION,
                                   "alternateName": "UFRGS"}}}
    advisor, co_advisor = thesis["contributor"][:2]
    assert (advisor["name"], advisor["@id"]) == (ADVISOR, f"https://orcid.org/{ADVISOR_ORCID}")
    assert co_advisor["sameAs"] == f"http://lattes.cnpq.br/{CO_ADVISOR_LATTES}"
    assert thesis["inSupportOf"] == "Doutor em Física"
    assert thesis["about"][0]["name"] == CNPQ
    assert thesis["publisher"]["name"] == INSTITUTION


# -- Search facets -----------------------------------------------------------------------------

def test_the_facets_count_programmes_advisors_areas_and_degrees(theses):
    ids = [theses["doctoral"].pk, theses["masters"].pk]
    found = searching.facets(ids)
    assert found["advisor"] == [(ADVISOR, 2)]
    assert found["programme"] == [("Programa de Pós-Graduação em Física", 1),
                                  ("Programa de Pós-Graduação em Química", 1)]
    assert found["degree"] == [("doutorado", 1), ("mestrado", 1)]
    assert [value for value, _ in found["cnpq"]] == [
        CNPQ, "CNPQ::CIENCIAS EXATAS E DA TERRA::QUIMICA"]
    # A CNPq area is counted as such, not again among the subjects.
    assert found["subject"] == [("Supercondutividade", 1)]
    assert (CO_ADVISOR, 1) not in found["advisor"]  # a co-advisor is no advisor


def test_search_shows_the_thesis_facets_and_narrows_by_each(client, theses):
    page = client.get("/search", **PT).content.decode()
    facets = lxml.html.document_fromstring(page).xpath("//section[@class='facets']")[0]
    headings = [h.text for h in facets.iter("h3")]
    assert {"Nível do grau", "Programa de pós-graduação", "Orientador",
            "Área do conhecimento CNPq"} <= set(headings)
    assert "Doutorado" in facets.text_content() and "Mestrado" in facets.text_content()
    for criteria, expected in (
            ({"advisor": ADVISOR}, {"doctoral", "masters"}),
            ({"advisor": CO_ADVISOR}, set()),
            ({"programme": PROGRAMME}, {"doctoral"}),
            ({"cnpq": CNPQ}, {"doctoral"}),
            ({"degree": "mestrado"}, {"masters"}),
            ({"degree": "mestrado", "advisor": ADVISOR, "q": "zeólitas"}, {"masters"})):
        response = client.get("/search?" + urlencode(criteria), **PT)
        assert response.status_code == 200
        listed = {key for key, item in theses.items()
                  if f'href="{reverse("archive:item", args=[item.ibi])}"'
                  in response.content.decode()}
        assert listed == expected, criteria


def test_an_advisor_or_a_programme_is_looked_for_where_an_index_holds_it(theses):
    """On SQLite the filter names the field's simple element too: migration 0034's partial
    index (contributors' and publishers' values) then finds an advisor's items, rather than
    every value of the field. On PostgreSQL it names the field, the value and the bound on
    the value's bytes and nothing else: migration 0060's btree answers it alone, an
    index-only scan (bench/README.md)."""
    sql = str(searching.filtered(listed_items(), advisor=ADVISOR, programme=PROGRAMME)
              .values("pk").query).replace("'", "")
    if connection.vendor == "postgresql":
        assert sql.count('octet_length(U0."value") <= 2000') == 2, sql
        assert "element" not in sql, sql
    else:
        assert "U0.\"element\" = contributor" in sql and "U0.\"element\" = publisher" in sql, sql

def test_a_programme_longer_than_the_index_holds_is_still_found(theses):
    """A value past migration 0060's bound on PostgreSQL (2 000 bytes: a btree's entry has a
    limit) is read from the hash index of such values: found all the same, and a shorter
    one of the same start is not."""
    long = "Programa de Pós-Graduação em" + " Ciências" * 230  # ~2 100 bytes in UTF-8
    assert len(long.encode()) > searching.THESIS_INDEXED_BYTES
    item = make.item(title="Uma tese de nome longo", dc={**DISSERTATION,
                                                         "dc.publisher.program": [long]},
                     bare=True)
    assert list(searching.filtered(listed_items(), programme=long)
                .values_list("pk", flat=True)) == [item.pk]
    assert not searching.filtered(listed_items(), programme=long[:1990]).exists()
    assert set(searching.filtered(listed_items(), advisor=ADVISOR)
               .values_list("pk", flat=True)) == {item.pk, theses["doctoral"].pk,
                                                  theses["masters"].pk}
