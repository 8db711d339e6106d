"""OAI-PMH formats (oai_dc, dim, mtd2-br, mtd3-br, oai_datacite, oai_openaire) and sets
(type, language, openaire): a real harvester (oaipmh-scythe) collects each, and every
response is validated by the official XSDs (OAI-PMH.xsd with the format's own schema) with
lxml."""
from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lxml import etree
from oaipmh_scythe import Scythe
from oaipmh_scythe.exceptions import BadArgument, CannotDisseminateFormat, NoRecordsMatch
from oaipmh_scythe.iterator import OAIResponseIterator

from archive.deposit import services
from archive.harvest import sets
from archive.models import Item
from tests import factories as make
from tests import xml_schemas

OAI = "{http://www.openarchives.org/OAI/2.0/}"
DATACITE = "{http://datacite.org/schema/kernel-4}"
OAIRE = "{http://namespace.openaire.eu/schema/oaire/}"
# prefix → (its record's schema, the namespaces the OAI-PMH wrapper schema needs for it)
PREFIXES = {
    "oai_dc": (xml_schemas.oai_dc, ("oai_dc",)),
    "oai_datacite": (xml_schemas.datacite, ("datacite",)),
    "oai_openaire": (xml_schemas.openaire, ("oai_openaire",)),
    "dim": (xml_schemas.dim, ("dim",)),
    "mtd3-br": (xml_schemas.mtd3br, ("mtd3-br",)),
    "mtd2-br": (xml_schemas.mtd2br, ("mtd2-br",)),
}


@pytest.fixture
def collection(settings):
    """Seven items on seven days, pages of 2:

    report (pt-BR), article (en), dataset (en), untyped (pt-BR), a deleted report (en),
    a Copy of an article (no language), an item whose first recognised type is Dataset.
    """
    settings.IBI_OAI_PAGE_SIZE = 2
    services.ensure_archive_service()
    items = {
        "report": make.item(("a.pdf", b"%PDF"), title="Relatório", language="pt-BR",
                            dc={"creator": ["Banon, Gerald"], "type": ["Relatório técnico"]}),
        "article": make.item(("a.pdf", b"%PDF"), title="Article", language="en",
                             dc={"creator": ["Banon, Gerald"], "type": ["Article"]}),
        "dataset": make.item(("a.pdf", b"%PDF"), title="Data", language="en",
                             dc={"creator": ["Banon, Gerald"], "type": ["Dataset"]}),
        "untyped": make.item(("a.pdf", b"%PDF"), title="Untyped", language="pt-br",
                             dc={"creator": ["Banon, Gerald"]}),
        "deleted": make.item(("a.pdf", b"%PDF"), title="Gone", language="en",
                             dc={"creator": ["Banon, Gerald"], "type": ["technical report"]}),
        "copy": make.item(("a.pdf", b"%PDF"), title="Copied",
                          dc={"creator": ["Banon, Gerald"], "type": ["Article"]}),
        "mixed": make.item(("a.pdf", b"%PDF"), title="Mixed",
                           dc={"creator": ["Banon, Gerald"],
                               "type": ["something unheard of", "Dataset", "Book"]}),
    }
    services.item_delete(item=items["deleted"], reason="withdrawn")
    Item.objects.filter(pk=items["copy"].pk).update(state=Item.State.COPY,
                                                    source_archive="http://other.example")
    for day, item in enumerate(items.values(), start=1):
        Item.objects.filter(pk=item.pk).update(updated=datetime(2020, 1, day, tzinfo=UTC))
    return items


# What each set holds, in datestamp order: from the fixture's description, not from the code.
EXPECTED = {
    "openaire": ["report", "article", "untyped", "deleted"],
    "type": ["report", "article", "dataset", "untyped", "deleted", "copy", "mixed"],
    "type:technical_report": ["report", "deleted"],
    "type:journal_article": ["article", "copy"],
    "type:dataset": ["dataset", "mixed"],
    "type:text": ["untyped"],
    "language": ["report", "article", "dataset", "untyped", "deleted"],
    "language:pt-BR": ["report", "untyped"],
    "language:en": ["article", "dataset", "deleted"],
    # Every item is in the default collection (issue 34), and so in its community.
    "com_repository": ["report", "article", "dataset", "untyped", "deleted", "copy", "mixed"],
    "col_general": ["report", "article", "dataset", "untyped", "deleted", "copy", "mixed"],
}


def named_in_headers(spec: str) -> bool:
    """Whether the headers of a set's items name it: its leaves, not `type` and `language`."""
    return ":" in spec or spec == "openaire" or spec.startswith(("col_", "com_"))


@pytest.fixture
def harvester(live_server):
    with Scythe(f"{live_server.url}/oai") as scythe:
        yield scythe


def oai_id(live_server, item: Item) -> str:
    return f"oai:{live_server.url.removeprefix('http://')}:{item.ibi}"


def validate_response(prefix: str, xml: etree._Element) -> None:
    _, namespaces = PREFIXES[prefix]
    xml_schemas.assert_valid(xml_schemas.oai_pmh(*namespaces), xml)


# -- With a real harvester ------------------------------------------------------------------------

def test_list_metadata_formats_names_every_format(live_server, harvester, collection):
    formats = {f.metadataPrefix: (f.schema, f.metadataNamespace)
               for f in harvester.list_metadata_formats()}
    assert formats == {
        "oai_dc": ("http://www.openarchives.org/OAI/2.0/oai_dc.xsd",
                   "http://www.openarchives.org/OAI/2.0/oai_dc/"),
        "oai_datacite": ("http://schema.datacite.org/meta/kernel-4/metadata.xsd",
                         "http://datacite.org/schema/kernel-4"),
        "oai_openaire": ("https://www.openaire.eu/schema/repo-lit/4.0/openaire.xsd",
                         "http://namespace.openaire.eu/schema/oaire/"),
        # DSpace's own announcement of dim (its OAI-PMH's xoai.xml)
        "dim": ("http://www.dspace.org/schema/dim.xsd", "http://www.dspace.org/xmlns/dspace/dim"),
        # IBICT's, as TEDE announced them and BDTD harvests them
        "mtd3-br": ("http://200.130.0.199/mtd3-br/mtd3-br.xsd", "http://200.130.0.199/mtd3-br/"),
        "mtd2-br": ("http://oai.ibict.br/mtd2-br/mtd2-br.xsd", "http://oai.ibict.br/mtd2-br/"),
    }
    for_item = harvester.list_metadata_formats(identifier=oai_id(live_server,
                                                                 collection["deleted"]))
    assert {f.metadataPrefix for f in for_item} == set(formats)


@pytest.mark.parametrize("prefix", list(PREFIXES))
def test_each_prefix_is_harvested_whole_and_every_page_and_record_validates(
        live_server, collection, prefix):
    record_schema, _ = PREFIXES[prefix]
    with Scythe(f"{live_server.url}/oai", iterator=OAIResponseIterator) as scythe:
        pages = list(scythe.list_records(metadata_prefix=prefix))
    assert len(pages) == 4  # 7 items, pages of 2
    headers = []
    for page in pages:
        validate_response(prefix, page.xml)
        for record in page.xml.iter(f"{OAI}record"):
            headers.append(record.find(f"{OAI}header"))
            metadata = record.find(f"{OAI}metadata")
            if metadata is not None:
                xml_schemas.assert_valid(record_schema(), metadata[0])
    identifiers = [h.findtext(f"{OAI}identifier") for h in headers]
    assert identifiers == [oai_id(live_server, i) for i in collection.values()]
    deleted = [h.findtext(f"{OAI}identifier") for h in headers if h.get("status") == "deleted"]
    assert deleted == [oai_id(live_server, collection["deleted"])]


@pytest.mark.django_db
@pytest.mark.parametrize("prefix", list(PREFIXES))
def test_get_record_in_each_prefix_validates(client, collection, prefix):
    record_schema, _ = PREFIXES[prefix]
    for item in collection.values():
        response = client.get("/oai", {"verb": "GetRecord", "metadataPrefix": prefix,
                                       "identifier": f"oai:testserver:{item.ibi}"})
        root = etree.fromstring(response.content)
        validate_response(prefix, root)
        metadata = root.find(f".//{OAI}metadata")
        assert (metadata is None) == item.is_deleted
        if metadata is not None:
            xml_schemas.assert_valid(record_schema(), metadata[0])


def test_the_datacite_and_openaire_records_describe_the_item(live_server, harvester, collection):
    report = collection["report"]
    record = harvester.get_record(identifier=oai_id(live_server, report),
                                  metadata_prefix="oai_datacite")
    resource = record.xml.find(f".//{DATACITE}resource")
    assert resource.findtext(f"{DATACITE}identifier") == f"{live_server.url}/{report.ibi}"
    alternates = {a.get("alternateIdentifierType"): a.text
                  for a in resource.iter(f"{DATACITE}alternateIdentifier")}
    assert alternates == {"IBI": report.ibi, "IBIp": report.ibip}
    assert resource.find(f"{DATACITE}resourceType").get("resourceTypeGeneral") == "Report"
    assert resource.findtext(f"{DATACITE}titles/{DATACITE}title") == "Relatório"

    record = harvester.get_record(identifier=oai_id(live_server, report),
                                  metadata_prefix="oai_openaire")
    resource = record.xml.find(f".//{OAIRE}resource")
    resource_type = resource.find(f"{OAIRE}resourceType")
    assert resource_type.get("uri") == "http://purl.org/coar/resource_type/c_18gh"
    rights = resource.find(f"{DATACITE}rights")
    assert rights.get("rightsURI") == "http://purl.org/coar/access_right/c_abf2"
    assert resource.findtext("{http://purl.org/dc/elements/1.1/}language") == "pt"
    assert resource.findtext(f"{OAIRE}file").endswith(f"/col/{report.ibi}/doc/a.pdf")


def test_list_sets_names_every_set_with_items(harvester, collection):
    listed = {s.setSpec: s.setName for s in harvester.list_sets()}
    assert set(listed) == set(EXPECTED)
    assert listed["type:technical_report"] == "Resource type: technical report"
    assert listed["language:pt-BR"] == "Language: pt-BR"


def test_a_harvester_collects_each_set_across_resumption_tokens(
        live_server, harvester, collection):
    for spec, names in EXPECTED.items():
        headers = list(harvester.list_identifiers(metadata_prefix="oai_dc", set_=spec))
        assert [h.identifier for h in headers] == [
            oai_id(live_server, collection[n]) for n in names], spec
        if named_in_headers(spec):  # a leaf: named in every header
            assert all(spec in h.setSpecs for h in headers), spec
    deleted = list(harvester.list_identifiers(metadata_prefix="oai_dc",
                                              set_="type:technical_report"))[1]
    assert deleted.deleted and deleted.identifier == oai_id(live_server, collection["deleted"])


def test_headers_carry_their_items_set_specs(live_server, harvester, collection):
    expected = {name: sorted(s for s, names in EXPECTED.items()
                             if name in names and named_in_headers(s)) for name in collection}
    for name, item in collection.items():
        header = harvester.get_record(identifier=oai_id(live_server, item)).header
        assert sorted(header.setSpecs) == expected[name], name


def test_a_new_type_is_a_set_at_once(live_server, harvester, collection):
    """The dc:type values read for sets are kept between requests until an item changes."""
    assert "type:book" not in {s.setSpec for s in harvester.list_sets()}
    book = make.item(("a.pdf", b"%PDF"), title="A book",
                     dc={"creator": ["Banon, Gerald"], "type": ["Livro"]})
    assert "type:book" in {s.setSpec for s in harvester.list_sets()}
    headers = list(harvester.list_identifiers(metadata_prefix="oai_dc", set_="type:book"))
    assert [h.identifier for h in headers] == [oai_id(live_server, book)]
    services.item_update(item=book, dc={"type": ["Dataset"]})
    assert "type:book" not in {s.setSpec for s in harvester.list_sets()}


@pytest.mark.parametrize("prefix", list(PREFIXES))
def test_resumption_keeps_the_set_and_the_format(live_server, collection, prefix):
    with Scythe(f"{live_server.url}/oai", iterator=OAIResponseIterator) as scythe:
        pages = list(scythe.list_records(metadata_prefix=prefix, set_="openaire"))
    tokens = [p.xml.find(f".//{OAI}resumptionToken") for p in pages]
    assert [(t.get("cursor"), t.get("completeListSize")) for t in tokens] == [
        ("0", "4"), ("2", "4")]
    assert tokens[0].text and not tokens[1].text
    record_schema, _ = PREFIXES[prefix]
    for page in pages:
        validate_response(prefix, page.xml)
        assert page.xml.find(f".//{OAI}request").get("resumptionToken") in (None, tokens[0].text)
        for metadata in page.xml.iter(f"{OAI}metadata"):
            xml_schemas.assert_valid(record_schema(), metadata[0])
            assert metadata[0].tag.endswith(
                {"oai_dc": "}dc", "dim": "}dim", "mtd3-br": "}mtd3br",
                 "mtd2-br": "}mtd2br"}.get(prefix, "}resource"))


def test_sets_combine_with_from_and_until(live_server, harvester, collection):
    headers = harvester.list_identifiers(metadata_prefix="oai_openaire", set_="language:en",
                                         from_="2020-01-03", until="2020-01-05")
    assert [h.identifier for h in headers] == [
        oai_id(live_server, collection[n]) for n in ("dataset", "deleted")]
    with pytest.raises(NoRecordsMatch):
        list(harvester.list_identifiers(metadata_prefix="oai_dc", set_="language:en",
                                        from_="2020-01-06"))


def test_the_harvester_sees_bad_sets_and_formats_as_oai_errors(
        live_server, harvester, collection):
    with pytest.raises(BadArgument):
        list(harvester.list_records(metadata_prefix="oai_dc", set_="colour:blue"))
    with pytest.raises(BadArgument):
        list(harvester.list_records(metadata_prefix="oai_dc", set_="type:no_such_type"))
    with pytest.raises(NoRecordsMatch):
        list(harvester.list_records(metadata_prefix="oai_datacite", set_="language:fr"))
    with pytest.raises(CannotDisseminateFormat):
        harvester.get_record(identifier=oai_id(live_server, collection["report"]),
                             metadata_prefix="marc21")


# -- Whole responses against OAI-PMH.xsd ----------------------------------------------------------

@pytest.mark.django_db
def test_every_verb_answers_a_valid_oai_pmh_response(client, settings, collection):
    settings.ARCHIVE_ADDRESS = "archive.example.org"  # a domain: Identify describes its ids
    report = f"oai:archive.example.org:{collection['report'].ibi}"
    requests = [
        ({"verb": "Identify"}, ("oai-identifier",)),
        ({"verb": "ListMetadataFormats"}, ()),
        ({"verb": "ListMetadataFormats", "identifier": report}, ()),
        ({"verb": "ListSets"}, ("oai_dc",)),  # sets are described in oai_dc
        ({"verb": "ListIdentifiers", "metadataPrefix": "oai_openaire", "set": "openaire"}, ()),
        ({"verb": "ListRecords", "metadataPrefix": "oai_dc", "set": "x y"}, ()),
        ({"verb": "ListRecords", "metadataPrefix": "oai_dc", "set": "language:fr"}, ()),
        ({"verb": "ListRecords", "metadataPrefix": "marc21"}, ()),
    ]
    for params, namespaces in requests:
        root = etree.fromstring(client.get("/oai", params).content)
        xml_schemas.assert_valid(xml_schemas.oai_pmh(*namespaces), root)


# -- The setSpecs themselves ----------------------------------------------------------------------

@given(st.text())
def test_any_value_encodes_to_a_valid_set_spec_level(value):
    spec = f"type:{sets.encode(value)}" if value else "type"
    assert sets.valid(spec)


@given(st.text(min_size=1), st.text(min_size=1))
def test_distinct_values_encode_to_distinct_specs(a, b):
    assert (sets.encode(a) == sets.encode(b)) == (a == b)


def test_every_type_set_spec_is_valid_and_names_its_kind():
    for kind in sets.all_kinds():
        spec = sets.type_spec(kind)
        assert sets.valid(spec) and sets.parse(spec).value == kind


@pytest.mark.django_db
def test_a_response_validates_only_with_its_records_schema(client, collection):
    """The protocol's <metadata> is a strict wildcard: the whole-response checks above really
    validate each record, and a record broken inside fails them."""
    root = etree.fromstring(client.get("/oai", {
        "verb": "GetRecord", "metadataPrefix": "oai_datacite",
        "identifier": f"oai:testserver:{collection['report'].ibi}"}).content)
    assert xml_schemas.oai_pmh("datacite").validate(root)
    assert not xml_schemas.oai_pmh().validate(root)
    publisher = root.find(f".//{DATACITE}publisher")
    publisher.getparent().remove(publisher)
    assert not xml_schemas.oai_pmh("datacite").validate(root)
