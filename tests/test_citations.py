"""Citations that cite (issue 43): a DSpace 7 article imported by `importsaf` cites as an
article, with its journal, volume, issue, pages and DOI, in every format, as real clients read
them (bibtexparser, rispy, jsonschema with CSL's own schema, citeproc-py's styles, the landing
page's meta tags); a thesis cites as @phdthesis or @mastersthesis with its school; and no
publisher is ever a host name."""
from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import bibtexparser
import jsonschema
import pytest
import rispy
from bibtexparser.middlewares import LatexDecodingMiddleware
from django.core.management import call_command
from django.test import override_settings
from lxml import etree

from archive.deposit import links
from archive.metadata import selectors
from archive.models import AlternateIdentifier, Item
from tests import factories as make

pytestmark = pytest.mark.django_db

DATA = Path(__file__).resolve().parent / "data"
CSL_SCHEMA = json.loads((DATA / "schemas" / "csl" / "csl-data.json").read_text())
HANDLE = make.ARTICLE_HANDLE
DOI = make.ARTICLE_DOI


@pytest.fixture
def article(tmp_path, media) -> Item:
    """A DSpace 7 article in SAF, imported (factories.dspace_article)."""
    return make.dspace_article(tmp_path)


@pytest.fixture
def theses(tmp_path, media) -> Path:
    make.dspace_collections()  # the collections its `collections` files name
    copy = tmp_path / "theses"
    shutil.copytree(DATA / "dspace" / "theses", copy,
                    ignore=shutil.ignore_patterns("README.md"))
    call_command("importsaf", str(copy), stdout=io.StringIO())
    return copy


def metadata(client, item: Item, fmt: str) -> str:
    return client.get(links.metadata_url(item.ibi, None, fmt), secure=True).content.decode()


def test_bibtexparser_reads_an_imported_article_with_its_journal_and_doi(client, article):
    library = bibtexparser.parse_string(metadata(client, article, "bibtex"),
                                        append_middleware=[LatexDecodingMiddleware()])

    assert not library.failed_blocks
    (entry,) = library.entries
    fields = {name: field.value for name, field in entry.fields_dict.items()}
    assert entry.entry_type == "article"
    assert fields["journal"] == "Revista Brasileira de Cartografia"
    assert fields["doi"] == DOI
    assert (fields["volume"], fields["number"], fields["pages"]) == ("72", "1", "101–118")
    assert fields["title"] == "Mapas & persistência"  # LaTeX decoded: -- is an en dash


def test_rispy_reads_its_ris_with_do_and_jo(client, article):
    (record,) = rispy.loads(metadata(client, article, "ris"))

    assert record["type_of_reference"] == "JOUR"
    assert record["doi"] == DOI
    assert record["journal_name"] == "Revista Brasileira de Cartografia"
    assert record["secondary_title"] == "Revista Brasileira de Cartografia"
    assert (record["volume"], record["number"], record["start_page"], record["end_page"]) == (
        "72", "1", "101", "118")
    assert "publisher" not in record  # neither given nor the server's host:port


def test_its_csl_json_validates_and_the_styles_cite_the_journal(client, article):
    items = json.loads(metadata(client, article, "csljson"))

    jsonschema.validate(items, CSL_SCHEMA)
    (item,) = items
    assert item["type"] == "article-journal"
    assert (item["container-title"], item["volume"], item["issue"], item["page"],
            item["DOI"]) == ("Revista Brasileira de Cartografia", "72", "1", "101-118", DOI)
    assert "publisher" not in item
    page = client.get(links.landing_url(article.ibi, None) + "?style=apa", secure=True,
                      follow=True).content.decode()
    assert "Revista Brasileira de Cartografia, 72(1), 101–118" in page
    assert f"https://doi.org/{DOI}" in page


def test_the_doi_is_a_doi_in_datacite_schemaorg_and_the_meta_tags(client, article):
    datacite = etree.fromstring(metadata(client, article, "datacite").encode())
    ns = {"d": "http://datacite.org/schema/kernel-4"}
    assert datacite.xpath("//d:alternateIdentifier[@alternateIdentifierType='DOI']/text()",
                          namespaces=ns) == [DOI]
    doc = json.loads(metadata(client, article, "schemaorg"))
    assert doc["sameAs"] == f"https://doi.org/{DOI}"
    assert {"@type": "PropertyValue", "propertyID": "DOI", "value": DOI} in doc["identifier"]
    assert doc["isPartOf"]["isPartOf"]["isPartOf"]["name"] == "Revista Brasileira de Cartografia"
    page = client.get(links.landing_url(article.ibi, None), secure=True,
                      follow=True).content.decode()
    assert f'<meta name="citation_doi" content="{DOI}">' in page
    assert '<meta name="citation_journal_title" content="Revista Brasileira de Cartografia">' \
        in page


@pytest.mark.parametrize(("handle", "entry_type", "genre"), [
    # local.degree.level doutorado, local.degree.name "Doutor em Engenharia Civil"
    ("123456789/1001", "phdthesis", "Tese (Doutorado em Engenharia Civil)"),
    ("123456789/1002", "mastersthesis", "Dissertação (Mestrado em Ciência da Computação)"),
])
def test_a_thesis_cites_with_its_degree_and_school(client, theses, handle, entry_type, genre):
    item = AlternateIdentifier.objects.get(scheme="handle", value=handle).item
    (entry,) = bibtexparser.parse_string(metadata(client, item, "bibtex")).entries

    assert entry.entry_type == entry_type
    assert entry.fields_dict["school"].value == "Universidade Federal do Ceará"
    assert "journal" not in entry.fields_dict  # its dc.relation.ispartof is no journal
    (record,) = rispy.loads(metadata(client, item, "ris"))
    assert record["type_of_reference"] == "THES"
    assert record["publisher"] == "Universidade Federal do Ceará"
    items = json.loads(metadata(client, item, "csljson"))
    jsonschema.validate(items, CSL_SCHEMA)
    assert (items[0]["type"], items[0]["genre"], items[0]["publisher"]) == (
        "thesis", genre, "Universidade Federal do Ceará")
    for style in ("abnt", "apa"):
        page = client.get(links.landing_url(item.ibi, None) + f"?style={style}", secure=True,
                          follow=True).content.decode()
        assert f"{genre}" in page and "Universidade Federal do Ceará" in page
        assert "(Publication)" not in page


@pytest.mark.parametrize(("dc_type", "entry_type"), [
    ("Dissertação", "mastersthesis"), ("Tese", "phdthesis")])
def test_the_degree_comes_from_dc_type_without_a_degree_level(
        client, theses, dc_type, entry_type):
    item = AlternateIdentifier.objects.get(scheme="handle", value="123456789/1001").item
    item.dc_values.filter(field__schema__name="local").delete()
    item.dc_values.filter(element="type").update(value=dc_type)
    (entry,) = bibtexparser.parse_string(metadata(client, item, "bibtex")).entries

    assert entry.entry_type == entry_type


def test_no_publisher_is_the_servers_address_and_the_repository_name_stands_in(
        client, theses):
    item = AlternateIdentifier.objects.get(scheme="handle", value="123456789/1001").item
    item.dc_values.filter(element="publisher").delete()
    item = Item.objects.get(pk=item.pk)

    assert selectors.record_of(item, "http://testserver:8000").publisher == ""
    with override_settings(IBI_REPOSITORY_NAME="Biblioteca Digital do INPE"):
        record = selectors.record_of(item, "http://testserver:8000")
    assert record.publisher == "Biblioteca Digital do INPE"


def test_an_article_never_takes_the_repository_name_as_its_publisher(article):
    with override_settings(IBI_REPOSITORY_NAME="Biblioteca Digital do INPE"):
        record = selectors.record_of(Item.objects.get(pk=article.pk), "http://testserver:8000")

    assert record.publisher == ""  # its journal's publisher is not this repository
