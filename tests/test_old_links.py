"""Every DSpace link form answers 301 to the item that came from there (archive/site/legacy.py):
Handles, xmlui and jspui bitstreams, DSpace 7's items, entities and bitstreams; an unknown one
is a 404 page with a search box."""
from __future__ import annotations

import pytest

from tests import factories as make

pytestmark = pytest.mark.django_db

UUID = "3f2c1a9e-5b7d-4e8f-9a0b-1c2d3e4f5a6b"
BITSTREAM = "0b5b6c8a-8e8f-4a3e-9d9f-3f1c2b4a5d6e"
OTHER = "11111111-2222-4333-8444-555555555555"


@pytest.fixture
def thesis():
    made = make.item("tese.pdf", ("anexo dados.csv", b"a,b\n"), title="Tese")
    return make.from_dspace(made, handle="123456789/42", uuid=UUID,
                            bitstreams={BITSTREAM: "tese.pdf"},
                            sequences={"1": "tese.pdf", "2": "anexo dados.csv"})


def landing(item) -> str:
    return f"/items/{item.ibi}"


def file(item, name: str) -> str:
    return f"http://testserver/col/{item.ibi}/doc/{name}"


@pytest.mark.parametrize("path", [
    "/handle/123456789/42", "/handle/123456789/42/", "/handle/123456789/42?mode=full",
    "/handle/123456789/42/statistics", "/xmlui/handle/123456789/42", "/jspui/handle/123456789/42",
    f"/items/{UUID}", f"/items/{UUID}/full", f"/entities/publication/{UUID}",
    "/bitstream/handle/123456789/42/renomeado.pdf",  # no such file: the item's page
])
def test_an_old_link_of_the_item_is_301_to_its_landing_page(reader, thesis, path):
    response = reader.get(path)
    assert response.status_code == 301
    assert response["Location"] == landing(thesis)
    assert reader.get(response["Location"]).status_code == 200


@pytest.mark.parametrize("path,name", [
    ("/bitstream/handle/123456789/42/tese.pdf", "tese.pdf"),
    ("/bitstream/handle/123456789/42/tese.pdf?sequence=1", "tese.pdf"),
    ("/bitstream/handle/123456789/42/anexo%20dados.csv?sequence=2", "anexo%20dados.csv"),
    ("/bitstream/handle/123456789/42/old-name.csv?sequence=2", "anexo%20dados.csv"),
    ("/xmlui/bitstream/handle/123456789/42/tese.pdf?sequence=1&isAllowed=y", "tese.pdf"),
    ("/bitstream/123456789/42/1/tese.pdf", "tese.pdf"),
    ("/jspui/bitstream/123456789/42/2/anexo%20dados.csv", "anexo%20dados.csv"),
    (f"/bitstreams/{BITSTREAM}/download", "tese.pdf"),
    (f"/bitstreams/{BITSTREAM}", "tese.pdf"),
])
def test_an_old_file_link_is_301_to_the_file(reader, thesis, path, name):
    response = reader.get(path)
    assert response.status_code == 301
    assert response["Location"] == file(thesis, name)
    assert reader.get(response["Location"]).status_code == 200


def test_handles_are_case_insensitive(reader, thesis):
    make.from_dspace(make.item(title="Other"), handle="10.1000/ABC")
    assert reader.get("/handle/10.1000/abc")["Location"].startswith("/items/")


@pytest.mark.parametrize("path", [
    "/handle/123456789/99", "/handle/123456789", "/handle/x/y",
    "/bitstream/handle/123456789/99/tese.pdf", "/bitstream/123456789/99/1/tese.pdf",
    f"/items/{OTHER}", f"/entities/publication/{OTHER}", f"/bitstreams/{OTHER}/download",
    f"/bitstreams/{OTHER}",
])
def test_an_unknown_old_link_is_404_with_a_search_box(reader, thesis, path):
    response = reader.get(path)
    assert response.status_code == 404
    html = response.content.decode()
    assert 'role="search"' in html and 'name="q"' in html and 'action="/search"' in html


def test_a_deleted_items_old_links_lead_to_its_tombstone(reader, thesis):
    from archive.deposit import services

    services.item_delete(item=thesis, reason="withdrawn")
    for path in ("/handle/123456789/42", f"/bitstreams/{BITSTREAM}/download",
                 "/bitstream/handle/123456789/42/tese.pdf"):
        response = reader.get(path)
        assert response.status_code == 301 and response["Location"] == landing(thesis)
        assert reader.get(response["Location"]).status_code == 410


def test_the_landing_page_of_a_repository_name_is_still_there(reader, thesis):
    assert reader.get(landing(thesis)).status_code == 200


def test_the_handle_shows_on_the_landing_page_and_in_every_metadata_format(reader, thesis):
    import json

    import bibtexparser
    import rispy
    from lxml import etree

    page = reader.get(landing(thesis)).content.decode()
    assert '<a class="handle" href="https://hdl.handle.net/123456789/42">hdl:123456789/42</a>' \
        in page
    base = f"/items/{thesis.ibi}/metadata"
    datacite = etree.fromstring(reader.get(f"{base}/datacite").content)
    ns = {"d": "http://datacite.org/schema/kernel-4"}
    assert datacite.xpath("//d:alternateIdentifier[@alternateIdentifierType='Handle']/text()",
                          namespaces=ns) == ["123456789/42"]
    for url in (f"/items/{thesis.ibi}/oai_dc.xml", f"{base}/oai_dc"):
        dc = etree.fromstring(reader.get(url).content)
        assert "http://hdl.handle.net/123456789/42" in dc.xpath(
            "//dc:identifier/text()", namespaces={"dc": "http://purl.org/dc/elements/1.1/"})
    entry = bibtexparser.parse_string(reader.get(f"{base}/bibtex").content.decode()).entries[0]
    assert "Handle: 123456789/42" in entry["note"]
    ris = rispy.loads(reader.get(f"{base}/ris").content.decode())[0]
    assert "Handle: 123456789/42" in " ".join(ris["notes"])
    csl = json.loads(reader.get(f"{base}/csljson").content)[0]
    assert "Handle: 123456789/42" in csl["note"]
    schema = json.loads(reader.get(f"{base}/schemaorg").content)
    assert {"@type": "PropertyValue", "propertyID": "Handle",
            "value": "123456789/42"} in schema["identifier"]
    openaire = etree.fromstring(reader.get(
        f"/oai?verb=GetRecord&metadataPrefix=oai_openaire&identifier="
        f"oai:{_address()}:{thesis.ibi}").content)
    assert openaire.xpath("//d:alternateIdentifier[@alternateIdentifierType='Handle']/text()",
                          namespaces=ns) == ["123456789/42"]
    listed = etree.fromstring(reader.get("/oai?verb=ListRecords&metadataPrefix=oai_dc").content)
    assert "http://hdl.handle.net/123456789/42" in listed.xpath(
        "//dc:identifier/text()", namespaces={"dc": "http://purl.org/dc/elements/1.1/"})


def _address() -> str:
    from archive.deposit import links

    return links.archive_address("http://testserver")


def test_the_unknown_old_link_page_speaks_the_readers_language(thesis):
    from django.test import Client

    html = Client(headers={"Accept-Language": "pt-BR"}).get(
        "/handle/123456789/99").content.decode()
    assert "Nenhum item aqui tem este identificador antigo" in html
    assert "Pesquisar" in html or "Buscar" in html
