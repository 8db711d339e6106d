"""The pure parts of coming from DSpace: Handles and UUIDs as written, the crosswalk,
Retry-After, oai_dc dates, DSpace's bitstream URLs, METS file lists, the RO-Crate."""
from __future__ import annotations

from datetime import date

import pytest
from lxml import etree

from archive.deposit import controlled
from archive.dspace import crosswalk, handles, harvest, oaipmh, saf


@pytest.mark.parametrize("text,handle", [
    ("123456789/42", "123456789/42"), ("hdl:123456789/42", "123456789/42"),
    ("info:hdl/123456789/42", "123456789/42"),
    ("https://hdl.handle.net/10.1000/ABC", "10.1000/abc"),
    ("http://repositorio.ufrgs.br/handle/10183/1234", "10183/1234"),
    ("https://repo.example/jspui/handle/1/2/statistics", "1/2"),
    ("https://example.org/page", None), ("0.NA/123456789", None), ("abc/def", None),
    ("123456789/42 extra", None), ("", None),
])
def test_handles_as_they_are_written(text, handle):
    assert handles.handle_of(text) == handle


@pytest.mark.parametrize("text,uuid", [
    ("3F2C1A9E-5B7D-4E8F-9A0B-1C2D3E4F5A6B", "3f2c1a9e-5b7d-4e8f-9a0b-1c2d3e4f5a6b"),
    ("urn:uuid:3f2c1a9e-5b7d-4e8f-9a0b-1c2d3e4f5a6b", "3f2c1a9e-5b7d-4e8f-9a0b-1c2d3e4f5a6b"),
    ("https://r.example/entities/publication/3f2c1a9e-5b7d-4e8f-9a0b-1c2d3e4f5a6b",
     "3f2c1a9e-5b7d-4e8f-9a0b-1c2d3e4f5a6b"),
    ("https://r.example/bitstreams/3f2c1a9e-5b7d-4e8f-9a0b-1c2d3e4f5a6b/download",
     "3f2c1a9e-5b7d-4e8f-9a0b-1c2d3e4f5a6b"),
    ("https://r.example/other/3f2c1a9e-5b7d-4e8f-9a0b-1c2d3e4f5a6b", None),
    ("not-a-uuid", None),
])
def test_uuids_as_they_are_written(text, uuid):
    assert handles.uuid_of(text) == uuid


def value(field: str, text: str, language: str = "") -> saf.MetadataValue:
    schema, element, *qualifier = field.split(".")
    return saf.MetadataValue(schema, element, qualifier[0] if qualifier else "", language, text)


def test_the_crosswalk_keeps_the_work_and_drops_dspaces_bookkeeping():
    mapped = crosswalk.to_item([
        value("dc.title", "T"), value("dc.date.accessioned", "2014-03-10T17:02:11Z"),
        value("dc.date.issued", "2013-09-04T00:00:00Z"), value("dc.language.iso", "pt_BR"),
        value("dc.description.provenance", "Submitted by …"), value("dc.format.mimetype", "x"),
        value("dcterms.abstract", "A"), value("dcterms.bibliographicCitation", "C"),
        value("dc.identifier.uri", "urn:uuid:3f2c1a9e-5b7d-4e8f-9a0b-1c2d3e4f5a6b"),
        value("dc.relation.hasversion", "http://hdl.handle.net/1/3"),
    ], handle="1/2")
    assert (mapped.title, mapped.language, mapped.dc) == (
        "T", "pt-BR", {"description": ["A"], "identifier": ["C"], "date": ["2013-09-04"]})
    assert mapped.handles == ["1/2"] and mapped.older_than == ["http://hdl.handle.net/1/3"]
    assert mapped.uuids == ["3f2c1a9e-5b7d-4e8f-9a0b-1c2d3e4f5a6b"]
    assert mapped.access == ""


@pytest.mark.parametrize("values,lines,said", [
    ([value("dc.rights.accessRights", "info:eu-repo/semantics/closedAccess")], [],
     "closedAccess"),
    ([value("dc.embargo.terms", "2999-12-31")], [], "embargoed until 2999-12-31"),
    ([value("local.embargo.lift", "forever")], [], "embargoed for ever"),
    ([], [saf.ContentLine("a.pdf", "ORIGINAL", permissions="-r 'Staff'")], "Staff"),
])
def test_what_dspace_did_not_show_to_everyone_is_restricted(values, lines, said):
    mapped = crosswalk.to_item([value("dc.title", "T"), *values], lines,
                               today=date(2026, 11, 26))
    assert said in mapped.access


def test_an_embargo_already_lifted_and_anonymous_reading_are_open():
    mapped = crosswalk.to_item(
        [value("dc.title", "T"), value("dc.date.embargo", "2020-01-01"),
         value("dc.rights.accessRights", "openAccess")],
        [saf.ContentLine("a.pdf", "ORIGINAL", permissions="-r 'Anonymous'"),
         saf.ContentLine("b.pdf", "ORIGINAL", permissions="-w 'Staff'")],
        today=date(2026, 11, 26))
    assert mapped.access == ""


def test_contents_lines_as_itemexport_writes_them():
    lines = saf.read_contents("a.pdf\tbundle:ORIGINAL\tprimary:true \tdescription:Full text\n"
                              "license.txt\nb.csv\n")
    assert [(x.name, x.bundle, x.primary, x.description) for x in lines] == [
        ("a.pdf", "ORIGINAL", True, "Full text"), ("license.txt", "LICENSE", False, ""),
        ("b.csv", "ORIGINAL", False, "")]
    assert saf.read_contents(saf.contents_text(lines)) == [
        saf.ContentLine(x.name, x.bundle, x.primary, x.description, line=n)
        for n, x in enumerate(lines, start=1)]
    with pytest.raises(saf.SafError, match="registered"):
        saf.read_contents("-r -s 0 -f path/x.pdf\tbundle:ORIGINAL\n")


def test_the_issued_date_among_dspaces_dates():
    assert harvest.pick_date(["2014-03-10T17:02:11Z", "2014-03-10T17:02:11Z", "2013"]) == "2013"
    assert harvest.pick_date(["2014-03-10T17:02:11Z"]) == "2014-03-10"
    assert harvest.pick_date(["março de 2013"]) == ""


@pytest.mark.parametrize("url,ids", [
    ("https://r/bitstreams/3f2c1a9e-5b7d-4e8f-9a0b-1c2d3e4f5a6b/download",
     [("dspace-bitstream", "3f2c1a9e-5b7d-4e8f-9a0b-1c2d3e4f5a6b", "a.pdf")]),
    ("https://r/bitstream/123456789/42/1/a.pdf", [("dspace-sequence", "123456789/42/1", "a.pdf")]),
    ("https://r/xmlui/bitstream/handle/123456789/42/a.pdf?sequence=3&isAllowed=y",
     [("dspace-sequence", "123456789/42/3", "a.pdf")]),
    ("https://r/files/a.pdf", []),
])
def test_dspaces_bitstream_urls_name_the_file(url, ids):
    assert harvest.file_ids(oaipmh.RemoteFile(url=url, name="a.pdf"), "a.pdf") == ids


def test_a_mets_file_list_is_its_original_bundle():
    mets = etree.fromstring(b"""<mets xmlns="http://www.loc.gov/METS/"
        xmlns:xlink="http://www.w3.org/1999/xlink"><fileSec>
      <fileGrp USE="ORIGINAL"><file ID="f1" MIMETYPE="application/pdf" SIZE="34"
        CHECKSUM="0CC175B9C0F1B6A831C399E269772661" CHECKSUMTYPE="MD5">
        <FLocat LOCTYPE="URL" xlink:href="https://r/bitstream/1/2/1/tese.pdf"
                xlink:title="tese.pdf"/></file></fileGrp>
      <fileGrp USE="THUMBNAIL"><file ID="t1"><FLocat LOCTYPE="URL"
        xlink:href="https://r/bitstream/1/2/2/tese.pdf.jpg"/></file></fileGrp>
    </fileSec></mets>""")
    assert oaipmh.mets_files(mets) == [oaipmh.RemoteFile(
        url="https://r/bitstream/1/2/1/tese.pdf", name="tese.pdf",
        content_type="application/pdf", size=34, md5="0cc175b9c0f1b6a831c399e269772661")]


@pytest.mark.parametrize("body,said", [
    (b"<OAI-PMH xmlns='http://www.openarchives.org/OAI/2.0/'><ListRecords>", "truncated"),
    (b"<html><body>Maintenance</body></html>", "not an OAI-PMH answer"),
    (b"<OAI-PMH xmlns='http://www.openarchives.org/OAI/2.0/'><error code='badArgument'>x"
     b"</error></OAI-PMH>", "badArgument"),
    (b"<!DOCTYPE x [<!ENTITY e SYSTEM 'file:///etc/passwd'>]><OAI-PMH "
     b"xmlns='http://www.openarchives.org/OAI/2.0/'><ListRecords><record><header>"
     b"<identifier>&e;</identifier><datestamp>2020-01-01</datestamp></header><metadata>"
     b"<x/></metadata></record></ListRecords></OAI-PMH>", "without identifier"),
])
def test_a_bad_oai_pmh_answer_is_an_error_that_says_why(body, said):
    with pytest.raises(oaipmh.OaiError, match=said):
        oaipmh.parse(body)


@pytest.mark.parametrize("text", [
    "2013", "0001", "9999", "2013-01", "2013-12", "2013-00", "2013-13", "2013-21",
    "2013-02-28", "2012-02-29", "2013-02-29", "2013-04-31", "2013-12-31", "2013-01-00",
    "1900-02-29", "2000-02-29"])
def test_the_fast_path_for_calendar_dates_says_what_the_edtf_grammar_says(text):
    """importsaf and harvest check thousands of dates: values.is_date decides the calendar
    forms without the grammar, and decides them as it does, but for 29 February of a year
    that is not a leap year, which the grammar takes and no calendar has."""
    from archive.deposit import values

    expected = values._is_edtf_level0(text) and text not in ("2013-02-29", "1900-02-29")
    assert values.is_date(text) == expected


@pytest.mark.parametrize("values,lines,level,until,files", [
    ([value("dc.rights.accessRights", "info:eu-repo/semantics/embargoedAccess"),
      value("dc.date.embargo", "2999-01-01")], [], "embargoed", date(2999, 1, 1), []),
    ([value("dc.rights.accessRights", "info:eu-repo/semantics/embargoedAccess")], [],
     "restricted", None, []),
    ([value("dc.rights.accessRights", "info:eu-repo/semantics/embargoedAccess"),
      value("dc.date", "info:eu-repo/date/embargoEnd/2026-01-01")], [], "", None, []),
    ([value("dc.rights.accessRights", "http://purl.org/coar/access_right/c_16ec")], [],
     "restricted", None, []),
    ([value("dc.rights.accessRights", "info:eu-repo/semantics/closedAccess")], [],
     "metadata-only", None, []),
    ([value("dc.embargo.terms", "forever")], [], "restricted", None, []),
    ([], [saf.ContentLine("a.pdf", "ORIGINAL", permissions="-r 'Staff'"),
          saf.ContentLine("b.pdf", "ORIGINAL", permissions="-r 'Anonymous'")],
     "", None, ["a.pdf"]),
])
def test_dspaces_access_as_levels(values, lines, level, until, files):
    mapped = crosswalk.to_item([value("dc.title", "T"), *values], lines,
                               today=date(2026, 11, 26))
    assert (mapped.level, mapped.embargo_until, mapped.restricted_files) == (level, until, files)


@pytest.mark.parametrize("text,level", [
    ("http://purl.org/coar/access_right/c_abf2", "open"),
    ("https://purl.org/coar/access_right/c_f1cf/", "embargoed"),
    ("http://purl.org/coar/access_right/c_16ec", "restricted"),
    ("http://purl.org/coar/access_right/c_14cb", "metadata-only"),
    ("open access", "open"), ("Acesso aberto", "open"), ("Acceso abierto", "open"),
    ("embargoed access", "embargoed"), ("Acesso embargado", "embargoed"),
    ("restricted access", "restricted"), ("Acesso Restrito", "restricted"),
    ("Acceso restringido", "restricted"),
    ("metadata only access", "metadata-only"), ("Acesso apenas aos metadados", "metadata-only"),
    ("Acceso solo a metadatos", "metadata-only"), ("Acceso sólo a metadatos", "metadata-only"),
    ("info:eu-repo/semantics/openAccess", "open"),
    ("info:eu-repo/semantics/closedAccess", "metadata-only"),
    ("metadataOnlyAccess", "metadata-only"), ("open.access", "open"),
    ("metadata.only", "metadata-only"), ("administrator", "metadata-only"),
    ("http://purl.org/coar/access_right/c_zzzz", None),
    ("All rights reserved", None), ("http://creativecommons.org/licenses/by/3.0/br/", None),
])
def test_one_access_vocabulary_in_three_languages(text, level):
    assert controlled.access_of(text) == level


@pytest.mark.parametrize("rights,level", [
    (["http://purl.org/coar/access_right/c_14cb"], "metadata-only"),  # our own oai_dc's form
    (["metadata only access"], "metadata-only"),
    (["Acesso Restrito", "http://creativecommons.org/licenses/by/4.0/"], "restricted"),
    (["Acesso aberto"], ""),
    (["info:eu-repo/semantics/someAccess"], "metadata-only"),  # unknown: closed, and said
])
def test_a_harvested_access_right_in_any_form_is_the_items_level(rights, level):
    mapped = harvest.mapped_record({"title": ["T"], "rights": rights})
    assert mapped.level == level
    assert mapped.dc.get("rights", []) == [r for r in rights if "creativecommons" in r]
    assert bool(mapped.notes) == ("someAccess" in rights[0])


def test_a_harvested_openaire_embargo_end_is_the_day_the_embargo_lifts():
    """OpenAIRE writes the end of an embargo in dc:date (#42): the item is embargoed until
    that day, so liftembargoes opens it."""
    dc = {"title": ["T"], "rights": ["info:eu-repo/semantics/embargoedAccess"],
          "date": ["2024-05-02", "info:eu-repo/date/embargoEnd/2027-03-01"]}
    mapped = harvest.mapped_record(dc, today=date(2026, 11, 28))
    assert (mapped.level, mapped.embargo_until) == ("embargoed", date(2027, 3, 1))
    assert mapped.dc["date"] == ["2024-05-02"] and mapped.not_kept == []
    # From that day on it is open, as DSpace opened it: harvested again, it stays open.
    mapped = harvest.mapped_record(dc, today=date(2027, 3, 1))
    assert (mapped.level, mapped.embargo_until) == ("", None)
    # Embargoed with no end at all: closed until a librarian sets one.
    dc["date"] = ["2024-05-02"]
    mapped = harvest.mapped_record(dc, today=date(2026, 11, 28))
    assert (mapped.level, mapped.embargo_until) == ("restricted", None)
