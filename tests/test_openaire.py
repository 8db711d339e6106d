"""OpenAIRE Guidelines for Literature Repositories v4 records of a Record, validated by the
guidelines' own XSD with lxml, and their mandatory properties checked."""
from __future__ import annotations

import pytest
from lxml import etree

from archive.metadata import openaire
from archive.metadata.record import FileRef, Record
from tests import xml_schemas
from tests.sample_records import FULL, MINIMAL, ODD, TOMBSTONE

NS = {"oaire": "http://namespace.openaire.eu/schema/oaire/",
      "datacite": "http://datacite.org/schema/kernel-4", "dc": "http://purl.org/dc/elements/1.1/"}
# The guidelines' mandatory properties (M), as elements of the record.
MANDATORY = ("datacite:titles/datacite:title",
             "datacite:creators/datacite:creator/datacite:creatorName",
             "oaire:resourceType", "datacite:dates/datacite:date[@dateType='Issued']",
             "datacite:identifier", "datacite:rights")


def parsed(record: Record) -> etree._Element:
    document = etree.fromstring(openaire.to_bytes(record))
    xml_schemas.assert_valid(xml_schemas.openaire(), document)
    return document


@pytest.mark.parametrize("record", [FULL, MINIMAL, TOMBSTONE, ODD],
                         ids=["full", "minimal", "tombstone", "odd-characters"])
def test_every_record_validates_and_has_the_mandatory_properties(record):
    root = parsed(record)
    assert root.tag == "{http://namespace.openaire.eu/schema/oaire/}resource"
    for path in MANDATORY:
        found = root.findall(path, NS)
        assert found and all(e.text and e.text.strip() for e in found), path
    location = root.get("{http://www.w3.org/2001/XMLSchema-instance}schemaLocation").split()
    assert location == ["http://namespace.openaire.eu/schema/oaire/",
                        "https://www.openaire.eu/schema/repo-lit/4.0/openaire.xsd"]


def test_a_full_record_says_everything_the_guidelines_ask_for():
    root = parsed(FULL)
    resource_type = root.find("oaire:resourceType", NS)
    assert resource_type.attrib == {"resourceTypeGeneral": "literature",
                                    "uri": "http://purl.org/coar/resource_type/c_18gh"}
    assert resource_type.text == "technical report"
    identifier = root.find("datacite:identifier", NS)
    assert (identifier.get("identifierType"), identifier.text) == ("URL", FULL.persistent_url)
    alternates = {a.get("alternateIdentifierType"): a.text for a in
                  root.findall("datacite:alternateIdentifiers/datacite:alternateIdentifier", NS)}
    assert alternates["IBI"] == FULL.ibi and alternates["IBIp"] == FULL.ibip
    rights = root.find("datacite:rights", NS)
    assert rights.get("rightsURI") == "http://purl.org/coar/access_right/c_abf2"
    assert root.findtext("dc:language", namespaces=NS) == "pt"
    assert root.findtext("dc:publisher", namespaces=NS) == "INPE"
    assert root.findtext("datacite:dates/datacite:date", namespaces=NS) == "2013-09-04"
    orcid = root.find("datacite:creators/datacite:creator/datacite:nameIdentifier", NS)
    assert (orcid.get("nameIdentifierScheme"), orcid.text) == ("ORCID", "0000-0002-1825-0097")
    file = root.find("oaire:file", NS)
    assert file.text == FULL.files[0].url
    assert file.attrib == {"mimeType": "application/pdf", "objectType": "fulltext",
                           "accessRightsURI": "http://purl.org/coar/access_right/c_abf2"}
    licence = root.find("oaire:licenseCondition", NS)
    assert licence.get("uri") == "https://creativecommons.org/licenses/by/4.0/"
    assert licence.get("startDate") == "2013-09-04"
    related = {r.get("relationType"): r.text for r in
               root.findall("datacite:relatedIdentifiers/datacite:relatedIdentifier", NS)}
    assert related == {"IsNewVersionOf": FULL.previous_edition,
                       "IsPreviousVersionOf": FULL.next_edition,
                       "IsVariantFormOf": FULL.translation_of}
    assert root.findtext("dc:description", namespaces=NS) == "An abstract.\nOn two lines."


def test_a_tombstone_or_an_item_without_files_is_metadata_only():
    for record in (TOMBSTONE, MINIMAL):
        root = parsed(record)
        rights = root.find("datacite:rights", NS)
        assert rights.get("rightsURI") == "http://purl.org/coar/access_right/c_14cb"
        assert root.find("oaire:file", NS) is None
    assert parsed(MINIMAL).findtext("datacite:titles/datacite:title", namespaces=NS) == "(:unav)"


def test_a_dataset_is_no_literature_and_its_files_are_data():
    record = Record(ibi="x/y/2020/01.01", ibip="", title="Data", persistent_url="http://x/y",
                    types=("Dataset",), files=(FileRef("d.csv", "http://x/d.csv", 3,
                                                       "text/csv"),))
    root = parsed(record)
    assert root.find("oaire:resourceType", NS).get("resourceTypeGeneral") == "dataset"
    assert root.find("oaire:file", NS).get("objectType") == "dataset"


def test_odd_characters_survive_and_a_bad_language_tag_is_left_out():
    root = parsed(ODD)
    assert root.findtext("datacite:titles/datacite:title", namespaces=NS) == (
        '<b>"Bold"</b> & bell ]]> 𝔘𝔫𝔦𝔠𝔬𝔡𝔢')
    assert root.find("dc:language", NS) is None
    assert root.find("dc:publisher", NS) is None  # only blanks and a control character


@pytest.mark.parametrize(("tag", "code"), [("pt-BR", "pt"), ("en", "en"), ("haw", "haw"),
                                           ("", ""), ("x-private", ""), ("not a tag", "")])
def test_the_language_is_the_iso_639_code_of_the_tag(tag, code):
    assert openaire.language_code(tag) == code


@pytest.mark.parametrize("written,label,uri", [
    ("info:eu-repo/semantics/article", "journal article", "c_6501"),
    ("info:eu-repo/semantics/masterThesis", "master thesis", "c_bdcc"),
    ("info:eu-repo/semantics/doctoralThesis", "doctoral thesis", "c_db06"),
    ("info:eu-repo/semantics/conferenceObject", "conference object", "c_c94f"),
    ("info:eu-repo/semantics/bookPart", "book part", "c_3248"),
])
def test_an_openaire_type_as_brazilian_dspaces_write_it_is_that_type_not_text(
        written, label, uri):
    """Items harvested or imported before #42 kept `info:eu-repo/semantics/article` as
    written: OpenAIRE's output says the article, not "text"."""
    record = Record(ibi=FULL.ibi, ibip=FULL.ibip, title="T", persistent_url=FULL.persistent_url,
                    types=(written,))
    resource_type = parsed(record).find("oaire:resourceType", NS)
    assert (resource_type.text, resource_type.get("uri")) == (
        label, f"http://purl.org/coar/resource_type/{uri}")
