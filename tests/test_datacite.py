"""DataCite kernel 4 XML of a Record, validated by DataCite's own XSD with lxml."""
from __future__ import annotations

import doctest
from datetime import UTC, datetime

import pytest
from lxml import etree

from archive.metadata import datacite, vocabularies
from archive.metadata.record import Creator, FileRef, Record
from tests import xml_schemas

NS = {"d": "http://datacite.org/schema/kernel-4"}
WHEN = datetime(2013, 9, 4, 12, 27, 57, tzinfo=UTC)

FULL = Record(
    ibi="sid.inpe.br/mtc-m19/2013/09.04.12.27.57", ibip="8JMKD3MGP7W/3EPGUE5",
    title="Relatório de atividades", persistent_url="http://urlib.net/8JMKD3MGP7W/3EPGUE5",
    landing_url="http://archive.example/items/sid.inpe.br/mtc-m19/2013/09.04.12.27.57",
    creators=(Creator("Banon, Gerald J. F.", orcid="0000-0002-1825-0097"),
              Creator("Instituto Nacional de Pesquisas Espaciais")),
    contributors=("Souza, Maria",), subjects=("IBI", "persistent identifiers"),
    descriptions=("An abstract.\nOn two lines.",), publisher="INPE", date="2013-09-04",
    language="pt-BR", types=("Relatório técnico",), rights=(
        "https://creativecommons.org/licenses/by/4.0/", "All rights reserved"),
    identifiers=("INPE-1234-RPQ/567", "10.1234/abc", "https://example.org/x"),
    formats=("application/pdf",),
    files=(FileRef("report.pdf", "http://archive.example/col/x/doc/report.pdf", 1024,
                   "application/pdf"),),
    created=WHEN, updated=WHEN, edition_number=2,
    previous_edition="http://urlib.net/8JMKD3MGP7W/3EPGUE4",
    next_edition="http://urlib.net/8JMKD3MGP7W/3EPGUE6",
    translation_of="http://urlib.net/8JMKD3MGP7W/3EPGUE3")
MINIMAL = Record(ibi="x.example/a/2020/01.02.03.04", ibip="", title="",
                 persistent_url="http://x.example/x.example/a/2020/01.02.03.04")
TOMBSTONE = Record(ibi="x.example/a/2020/01.02.03.05", ibip="ABCDEFGHIJK/1",
                   title="Withdrawn work", persistent_url="http://x.example/ABCDEFGHIJK/1",
                   date="2020", created=WHEN, updated=WHEN, state="Deleted",
                   deleted_at=datetime(2021, 5, 6, tzinfo=UTC),
                   deletion_reason="Removed at the author's request")
ODD = Record(ibi="x.example/a/2020/01.02.03.06", ibip="ABCDEFGHIJK/2",
             title='<b>"Bold"</b> & \x07bell ]]> 𝔘𝔫𝔦𝔠𝔬𝔡𝔢', persistent_url="http://x.example/y?a=1&b=2",
             creators=(Creator("D'Ávila, José <j@x>\x1b"), Creator(" , ")),
             subjects=("", "  ", "ok\x00"), date="setembro de 2013", language="not a tag!",
             types=("http://purl.org/coar/resource_type/c_ddb1",), publisher=" \x0b ")


def parsed(record: Record) -> etree._Element:
    document = etree.fromstring(datacite.to_bytes(record))
    xml_schemas.assert_valid(xml_schemas.datacite(), document)
    return document


@pytest.mark.parametrize("record", [FULL, MINIMAL, TOMBSTONE, ODD],
                         ids=["full", "minimal", "tombstone", "odd-characters"])
def test_every_record_validates_against_the_kernel_4_schema(record):
    root = parsed(record)
    assert root.tag == "{http://datacite.org/schema/kernel-4}resource"
    location = root.get("{http://www.w3.org/2001/XMLSchema-instance}schemaLocation")
    assert location.split() == ["http://datacite.org/schema/kernel-4",
                                "http://schema.datacite.org/meta/kernel-4/metadata.xsd"]


def test_the_persistent_url_is_the_identifier_and_the_ibis_are_alternates():
    root = parsed(FULL)
    identifier = root.find("d:identifier", NS)
    assert (identifier.get("identifierType"), identifier.text) == ("URL", FULL.persistent_url)
    alternates = [(a.get("alternateIdentifierType"), a.text)
                  for a in root.findall("d:alternateIdentifiers/d:alternateIdentifier", NS)]
    assert alternates == [("IBI", FULL.ibi), ("IBIp", FULL.ibip), ("Other", "INPE-1234-RPQ/567"),
                          ("DOI", "10.1234/abc"), ("URL", "https://example.org/x")]


def test_creators_carry_their_names_and_orcid():
    creators = parsed(FULL).findall("d:creators/d:creator", NS)
    person, institution = creators
    assert person.findtext("d:creatorName", namespaces=NS) == "Banon, Gerald J. F."
    assert person.find("d:creatorName", NS).get("nameType") == "Personal"
    assert person.findtext("d:givenName", namespaces=NS) == "Gerald J. F."
    assert person.findtext("d:familyName", namespaces=NS) == "Banon"
    orcid = person.find("d:nameIdentifier", NS)
    assert orcid.attrib == {"nameIdentifierScheme": "ORCID", "schemeURI": "https://orcid.org"}
    assert orcid.text == "https://orcid.org/0000-0002-1825-0097"
    assert institution.find("d:nameIdentifier", NS) is None
    assert institution.find("d:givenName", NS) is None


def test_the_edition_chain_and_translation_are_related_identifiers():
    related = {r.get("relationType"): (r.get("relatedIdentifierType"), r.text)
               for r in parsed(FULL).findall("d:relatedIdentifiers/d:relatedIdentifier", NS)}
    assert related == {
        "IsNewVersionOf": ("URL", FULL.previous_edition),
        "IsPreviousVersionOf": ("URL", FULL.next_edition),
        "IsTranslationOf": ("URL", FULL.translation_of)}
    assert parsed(FULL).findtext("d:version", namespaces=NS) == "2"


def test_dates_language_rights_and_descriptions():
    root = parsed(FULL)
    dates = {d.get("dateType"): d.text for d in root.findall("d:dates/d:date", NS)}
    assert dates == {"Issued": "2013-09-04", "Submitted": "2013-09-04", "Updated": "2013-09-04"}
    assert root.findtext("d:publicationYear", namespaces=NS) == "2013"
    assert root.findtext("d:publisher", namespaces=NS) == "INPE"
    assert root.findtext("d:language", namespaces=NS) == "pt-BR"
    rights = [(r.get("rightsURI"), r.text) for r in root.findall("d:rightsList/d:rights", NS)]
    assert rights == [("https://creativecommons.org/licenses/by/4.0/",
                       "https://creativecommons.org/licenses/by/4.0/"),
                      (None, "All rights reserved")]
    description = root.find("d:descriptions/d:description", NS)
    assert description.get("descriptionType") == "Abstract"
    assert description.text == "An abstract.\nOn two lines."
    assert [s.text for s in root.findall("d:subjects/d:subject", NS)] == [
        "IBI", "persistent identifiers"]


@pytest.mark.parametrize(("types", "general"), [
    ((), "Text"), (("Relatório técnico",), "Report"), (("Text",), "Text"),
    (("Dataset",), "Dataset"), (("http://purl.org/dc/dcmitype/StillImage",), "Image"),
    (("http://purl.org/coar/resource_type/c_6501",), "JournalArticle"),
    (("Tese de Doutorado",), "Dissertation"), (("software",), "Software"),
    (("an unheard-of kind", "Book"), "Book"), (("an unheard-of kind",), "Text"),
])
def test_resource_type_general_is_read_from_dc_type(types, general):
    record = Record(ibi="x/y/2020/01.01", ibip="", title="t", persistent_url="http://x/y",
                    types=types)
    resource_type = parsed(record).find("d:resourceType", NS)
    assert resource_type.get("resourceTypeGeneral") == general
    assert resource_type.text == (types[0] if types else general)


def test_a_tombstone_keeps_its_identifiers_and_says_when_and_why_it_went():
    root = parsed(TOMBSTONE)
    assert root.findtext("d:titles/d:title", namespaces=NS) == "Withdrawn work"
    assert root.findtext("d:creators/d:creator/d:creatorName", namespaces=NS) == "(:unav)"
    dates = {d.get("dateType"): d.text for d in root.findall("d:dates/d:date", NS)}
    assert dates["Withdrawn"] == "2021-05-06" and dates["Issued"] == "2020"
    other = root.find("d:descriptions/d:description[@descriptionType='Other']", NS)
    assert other.text == "Removed at the author's request"


def test_required_properties_never_stay_empty():
    root = parsed(MINIMAL)
    assert root.findtext("d:titles/d:title", namespaces=NS) == "(:unav)"
    assert root.findtext("d:publisher", namespaces=NS) == "(:unav)"
    assert root.findtext("d:publicationYear", namespaces=NS) == str(datetime.now(UTC).year)
    assert [a.get("alternateIdentifierType") for a in
            root.findall("d:alternateIdentifiers/d:alternateIdentifier", NS)] == ["IBI"]


def test_markup_and_control_characters_survive_as_text():
    root = parsed(ODD)
    assert root.findtext("d:titles/d:title", namespaces=NS) == (
        '<b>"Bold"</b> & bell ]]> 𝔘𝔫𝔦𝔠𝔬𝔡𝔢')
    assert root.findtext("d:creators/d:creator/d:creatorName", namespaces=NS) == (
        "D'Ávila, José <j@x>")
    assert root.findtext("d:identifier", namespaces=NS) == "http://x.example/y?a=1&b=2"
    assert [s.text for s in root.findall("d:subjects/d:subject", NS)] == ["ok"]
    assert root.find("d:language", NS) is None  # not a language tag: left out
    assert root.find("d:dates", NS) is None  # not an ISO 8601 date: left out
    assert root.find("d:resourceType", NS).get("resourceTypeGeneral") == "Dataset"


def test_the_docstring_examples_hold():
    assert doctest.testmod(datacite).failed == 0
    assert doctest.testmod(vocabularies).failed == 0
