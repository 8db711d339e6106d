"""OAI-PMH `dim` (issue 34): every value of an item under its field of the registry, with its
language, authority and confidence, valid against tests/data/schemas/dspace/dim.xsd (ours:
DSpace publishes no schema of dim) inside a valid OAI-PMH answer; read back by sickle, a real
harvester; and `oai_dc` drops the qualifiers (dc.contributor.advisor is a dc:contributor)."""
from __future__ import annotations

import pytest
from lxml import etree
from sickle import Sickle

from archive.deposit import links
from archive.models import Item
from archive.registry.names import Qualified
from tests import factories as make
from tests import xml_schemas

pytestmark = pytest.mark.django_db

OAI = "{http://www.openarchives.org/OAI/2.0/}"
DIM = "{http://www.dspace.org/xmlns/dspace/dim}"
DC = "{http://purl.org/dc/elements/1.1/}"


@pytest.fixture
def thesis():
    return make.item(("tese.pdf", b"%PDF-1.4 tese"), title="Modelagem hidrológica",
                     language="pt-BR", dc={
                         "dc.contributor.author": [Qualified("Oliveira, Mariana",
                                                             authority="0000-0002-1825-0097",
                                                             confidence=600)],
                         "dc.contributor.advisor": [Qualified("Pereira, João",
                                                              authority="4727357182510680",
                                                              confidence=600)],
                         "dc.contributor.referee": ["Santos, Carlos", "Lima, Fernanda"],
                         "dc.publisher.program": [Qualified("PPG em Engenharia Civil",
                                                            language="pt-BR")],
                         "dc.subject.cnpq": ["CNPQ::ENGENHARIAS::ENGENHARIA CIVIL"],
                         "dc.description.abstract": [Qualified("Resumo.", language="pt-BR"),
                                                     Qualified("Abstract.", language="en")],
                         "local.degree.level": ["doutorado"]})


def fields_of(dim: etree._Element) -> set[tuple]:
    return {(f.get("mdschema"), f.get("element"), f.get("qualifier"), f.get("lang"),
             f.text, f.get("authority"), f.get("confidence")) for f in dim.iter(f"{DIM}field")}


def test_get_record_in_dim_keeps_every_qualifier_language_and_authority(client, thesis):
    root = etree.fromstring(client.get("/oai", {
        "verb": "GetRecord", "metadataPrefix": "dim",
        "identifier": f"oai:testserver:{thesis.ibi}"}).content)
    xml_schemas.assert_valid(xml_schemas.oai_pmh("dim"), root)
    dim = root.find(f".//{OAI}metadata/{DIM}dim")
    xml_schemas.assert_valid(xml_schemas.dim(), dim)
    assert fields_of(dim) >= {
        ("dc", "title", None, None, "Modelagem hidrológica", None, None),
        ("dc", "contributor", "author", None, "Oliveira, Mariana", "0000-0002-1825-0097",
         "600"),
        ("dc", "contributor", "advisor", None, "Pereira, João", "4727357182510680", "600"),
        ("dc", "contributor", "referee", None, "Santos, Carlos", None, None),
        ("dc", "publisher", "program", "pt_BR", "PPG em Engenharia Civil", None, None),
        ("dc", "subject", "cnpq", None, "CNPQ::ENGENHARIAS::ENGENHARIA CIVIL", None, None),
        ("dc", "description", "abstract", "en", "Abstract.", None, None),
        ("dc", "language", "iso", None, "pt-BR", None, None),
        ("dc", "identifier", "uri", None, links.persistent_url(thesis.ibi, "http://testserver"),
         None, None),
        ("local", "degree", "level", None, "doutorado", None, None)}


def test_oai_dc_drops_the_qualifiers(client, thesis):
    root = etree.fromstring(client.get("/oai", {
        "verb": "GetRecord", "metadataPrefix": "oai_dc",
        "identifier": f"oai:testserver:{thesis.ibi}"}).content)
    xml_schemas.assert_valid(xml_schemas.oai_pmh("oai_dc"), root)
    # dc.contributor.advisor and .referee → dc:contributor; dc.contributor.author → dc:creator
    assert [e.text for e in root.iter(f"{DC}contributor")] == [
        "Pereira, João", "Santos, Carlos", "Lima, Fernanda"]
    assert [e.text for e in root.iter(f"{DC}creator")] == ["Oliveira, Mariana"]
    assert "PPG em Engenharia Civil" in [e.text for e in root.iter(f"{DC}publisher")]
    assert "CNPQ::ENGENHARIAS::ENGENHARIA CIVIL" in [e.text for e in root.iter(f"{DC}subject")]
    assert not any(e.text == "doutorado" for e in root.iter())  # local.*: no DC element


def test_sickle_harvests_dim_with_its_qualifiers(live_server, thesis, settings):
    settings.IBI_OAI_PAGE_SIZE = 1
    other = make.item(title="Segunda", dc={"dc.contributor.advisor": ["Almeida, Beatriz"]})
    sickle = Sickle(f"{live_server.url}/oai")
    formats = {f.metadataPrefix: f.metadataNamespace for f in sickle.ListMetadataFormats()}
    assert formats["dim"] == "http://www.dspace.org/xmlns/dspace/dim"
    records = {r.header.identifier.rsplit(":", 1)[-1]: r
               for r in sickle.ListRecords(metadataPrefix="dim")}
    assert {thesis.ibi, other.ibi} <= set(records)
    for record in (records[thesis.ibi], records[other.ibi]):
        xml_schemas.assert_valid(xml_schemas.dim(), record.xml.find(f".//{DIM}dim"))
    mine = fields_of(records[thesis.ibi].xml)
    assert ("dc", "contributor", "advisor", None, "Pereira, João", "4727357182510680",
            "600") in mine
    assert ("dc", "contributor", "advisor", None, "Almeida, Beatriz", None, None) in fields_of(
        records[other.ibi].xml)


MTD3 = "{http://200.130.0.199/mtd3-br/}"


@pytest.mark.parametrize("prefix", ["dim", "mtd3-br"])
def test_markup_quotes_line_ends_and_forbidden_characters_survive_the_text_writers(client,
                                                                                  prefix):
    # dim and mtd3-br records are written as text (metadata/xmltext.py): what a value holds
    # is escaped, a carriage return kept, a character XML cannot carry dropped, in text and
    # in attributes alike; the answer stays valid.
    item = make.item(("tese.pdf", b"%PDF-1.4 tese"), title="placeholder", dc={
        "dc.contributor.advisor": [Qualified("placeholder", authority="4727357182510680",
                                             confidence=600)],
        "dc.subject": ["placeholder"]})
    Item.objects.filter(pk=item.pk).update(title='<b>"T"</b> & \x07sino')
    item.dc_values.filter(field__element="subject").update(value="a\r\nb <i>&amp;</i>\x1b")
    item.dc_values.filter(field__qualifier="advisor").update(
        value="Pereira, João > \x0bJ.", authority='4727357182510680"&\x01')
    response = client.get("/oai", {"verb": "ListRecords", "metadataPrefix": prefix})
    xml_schemas.assert_valid(xml_schemas.oai_pmh(prefix), response.content)
    metadata = etree.fromstring(response.content).find(f".//{OAI}metadata")
    if prefix == "dim":
        fields = {(f.get("element"), f.get("qualifier")): f for f in metadata.iter(f"{DIM}field")}
        assert fields[("title", None)].text == '<b>"T"</b> & sino'
        assert fields[("subject", None)].text == "a\r\nb <i>&amp;</i>"
        assert fields[("contributor", "advisor")].text == "Pereira, João > J."
        assert fields[("contributor", "advisor")].get("authority") == '4727357182510680"&'
    else:
        assert metadata.findtext(f".//{MTD3}title") == '<b>"T"</b> & sino'
        assert metadata.findtext(f".//{MTD3}subject") == "a\r\nb <i>&amp;</i>"
        assert metadata.findtext(f".//{MTD3}contributorAdvisor") == "Pereira, João > J."


def test_a_list_in_dim_names_each_previous_edition_and_its_sets_in_fixed_queries(
        client, thesis, django_assert_max_num_queries):
    """ListRecords in dim reads no Record per item (bench/README.md, thesis_scale.py): an
    edition still says which it is a version of (dc.relation.isversionof, the previous
    edition's persistent URL), its dc:type still names its set, and the queries do not grow
    with the items."""
    second = make.item(title="Modelagem hidrológica", language="pt-BR", previous_edition=thesis,
                       dc={"type": ["Tese"], "description": ["Resumo revisto."]})
    for n in range(5):
        make.item(title=f"Outra {n}", dc={"type": ["Tese"]})
    with django_assert_max_num_queries(12):
        root = etree.fromstring(client.get("/oai", {"verb": "ListRecords",
                                                    "metadataPrefix": "dim"}).content)
    xml_schemas.assert_valid(xml_schemas.oai_pmh("dim"), root)
    records = {r.find(f"{OAI}header/{OAI}identifier").text.rsplit(":", 1)[1]: r
               for r in root.iter(f"{OAI}record")}
    assert len(records) == 7
    mine = records[second.ibi]
    fields = fields_of(mine.find(f".//{DIM}dim"))
    assert ("dc", "relation", "isversionof", None,
            links.persistent_url(thesis.ibi, "http://testserver"), None, None) in fields
    assert ("dc", "description", None, None, "Resumo revisto.", None, None) in fields
    assert "type:thesis" in [s.text for s in mine.iter(f"{OAI}setSpec")]
    assert not any(f[2] == "isversionof" for f in fields_of(
        records[thesis.ibi].find(f".//{DIM}dim")))


def test_dim_drops_only_what_xml_cannot_carry():
    from archive.metadata import dim

    text = "a\x00b\x0bc\td\ne\r\U0001f600\ud7ff\ufffe"
    element = dim.dim_element({"dc": [("description", "", "", text, "", -1)]})
    assert element[0].text == "abc\td\ne\r\U0001f600\ud7ff"
