"""DataCite kernel 4 XML of a Record, validated by DataCite's own XSD with lxml."""
from __future__ import annotations

from datetime import UTC, datetime

import pytest
from lxml import etree

from archive.metadata import datacite
from archive.metadata.record import Record
from tests import xml_schemas
from tests.sample_records import FULL, MINIMAL, ODD, TOMBSTONE

NS = {"d": "http://datacite.org/schema/kernel-4"}


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
                      (None, "All rights reserved"),
                      ("http://purl.org/coar/access_right/c_abf2", "open access")]
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
