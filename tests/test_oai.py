"""OAI-PMH 2.0 at /oai: a real harvester (oaipmh-scythe) against a live server, and the errors.

Formats and sets: tests/test_oai_formats.py."""
from __future__ import annotations

import math
from datetime import UTC, datetime
from urllib.parse import urlencode

import pytest
from django.test import Client
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from lxml import etree
from oaipmh_scythe import Scythe
from oaipmh_scythe.exceptions import BadArgument, IdDoesNotExist, NoRecordsMatch
from oaipmh_scythe.iterator import OAIResponseIterator

from archive.deposit import services
from archive.identifiers import ibi as ibilib
from archive.models import Item
from tests import factories as make
from tests import xml_schemas

OAI = "{http://www.openarchives.org/OAI/2.0/}"
ERROR_CODES = {"badArgument", "badResumptionToken", "badVerb", "cannotDisseminateFormat",
               "idDoesNotExist", "noRecordsMatch", "noMetadataFormats", "noSetHierarchy"}


def at(day: int, second: int = 0) -> datetime:
    return datetime(2020, 1, day, 12, 0, second, tzinfo=UTC)


def stamp(item: Item, when: datetime) -> None:
    """Give an item a known datestamp (update() leaves auto_now alone)."""
    Item.objects.filter(pk=item.pk).update(updated=when)


@pytest.fixture
def collection(settings):
    """Seven items on seven days (the fourth deleted), the archive service, pages of 3."""
    settings.IBI_OAI_PAGE_SIZE = 3
    services.ensure_archive_service()
    items = [make.item(("a.txt", b"a"), title=f"Item {n}", dc={"creator": [f"Author {n}"]},
                       language="en")
             for n in range(1, 8)]
    services.item_delete(item=items[3])
    for day, item in enumerate(items, start=1):
        stamp(item, at(day))
    return items


def identifier(address: str, item: Item) -> str:
    return f"oai:{address}:{item.ibi}"


@pytest.fixture
def harvester(live_server):
    with Scythe(f"{live_server.url}/oai") as scythe:
        yield scythe


def address_of(live_server) -> str:
    return live_server.url.removeprefix("http://")


# -- With a real harvester ------------------------------------------------------------------------

def test_a_harvester_collects_every_record_across_resumption_tokens(
        live_server, harvester, collection):
    records = list(harvester.list_records(metadata_prefix="oai_dc"))

    address = address_of(live_server)
    assert [r.header.identifier for r in records] == [identifier(address, i) for i in collection]
    deleted = [r for r in records if r.deleted]
    assert [r.header.identifier for r in deleted] == [identifier(address, collection[3])]
    live = [r for r in records if not r.deleted]
    assert live[0].metadata["title"] == ["Item 1"]
    assert live[0].metadata["creator"] == ["Author 1"]
    assert f"{live_server.url}/{collection[0].ibi}" in live[0].metadata["identifier"]
    assert records[0].header.datestamp == "2020-01-01T12:00:00Z"


def test_resumption_tokens_carry_cursor_and_complete_list_size(live_server, collection):
    with Scythe(f"{live_server.url}/oai", iterator=OAIResponseIterator) as scythe:
        responses = list(scythe.list_identifiers(metadata_prefix="oai_dc"))
    assert len(responses) == math.ceil(len(collection) / 3)
    tokens = [r.xml.find(f".//{OAI}resumptionToken") for r in responses]
    assert [(t.get("cursor"), t.get("completeListSize")) for t in tokens] == [
        ("0", "7"), ("3", "7"), ("6", "7")]
    assert tokens[0].text and tokens[1].text and not tokens[2].text  # the last one is empty


def test_get_record_and_deleted_records(live_server, harvester, collection):
    address = address_of(live_server)
    record = harvester.get_record(identifier=identifier(address, collection[1]))
    assert record.metadata["title"] == ["Item 2"] and record.metadata["language"] == ["en"]
    gone = harvester.get_record(identifier=identifier(address, collection[3]))
    assert gone.deleted and gone.xml.xpath("*[local-name()='metadata']") == []
    # The IBIp names the same item.
    by_ibip = harvester.get_record(identifier=f"oai:{address}:{collection[1].ibip}")
    assert by_ibip.header.identifier == identifier(address, collection[1])


def test_list_identifiers_from_until_at_both_granularities(live_server, harvester, collection):
    address = address_of(live_server)
    seconds = harvester.list_identifiers(from_="2020-01-02T12:00:00Z",
                                         until="2020-01-04T12:00:00Z")
    headers = list(seconds)
    assert [h.identifier for h in headers] == [identifier(address, i) for i in collection[1:4]]
    assert [h.deleted for h in headers] == [False, False, True]
    days = list(harvester.list_identifiers(from_="2020-01-06", until="2020-01-07"))
    assert [h.identifier for h in days] == [identifier(address, i) for i in collection[5:]]
    only_live = list(harvester.list_identifiers(until="2020-01-04", ignore_deleted=True))
    assert len(only_live) == 3
    with pytest.raises(NoRecordsMatch):
        list(harvester.list_identifiers(from_="2021-01-01"))


def test_the_harvester_sees_errors_as_oai_errors(live_server, harvester, collection):
    with pytest.raises(IdDoesNotExist):
        harvester.get_record(identifier="oai:elsewhere.example:x/y/2020/01.01")
    with pytest.raises(BadArgument):  # sets exist (tests/test_oai_formats.py); not this one
        list(harvester.list_identifiers(set_="no-such-set"))
    identify = harvester.identify()
    assert identify.deletedRecord == "persistent"
    assert identify.granularity == "YYYY-MM-DDThh:mm:ssZ"
    assert identify.earliestDatestamp == "2020-01-01T12:00:00Z"
    assert identify.baseURL == f"{live_server.url}/oai"


# -- Protocol details with Django's client --------------------------------------------------------

def oai(client, method="get", **params) -> etree._Element:
    response = getattr(client, method)("/oai", params)
    assert response.status_code == 200
    assert response["Content-Type"] == "text/xml; charset=utf-8"
    return etree.fromstring(response.content)


def error_code(root: etree._Element) -> str | None:
    error = root.find(f"{OAI}error")
    return None if error is None else error.get("code")


@pytest.mark.django_db
@pytest.mark.parametrize(("params", "code"), [
    ({}, "badVerb"),
    ({"verb": "Dance"}, "badVerb"),
    ({"verb": ["Identify", "Identify"]}, "badVerb"),
    ({"verb": "Identify", "metadataPrefix": "oai_dc"}, "badArgument"),
    ({"verb": "GetRecord", "metadataPrefix": "oai_dc"}, "badArgument"),
    ({"verb": "GetRecord", "identifier": "x", "metadataPrefix": ["oai_dc", "oai_dc"]},
     "badArgument"),
    ({"verb": "ListRecords"}, "badArgument"),
    ({"verb": "ListRecords", "metadataPrefix": ""}, "badArgument"),
    ({"verb": "ListRecords", "metadataPrefix": "oai_dc", "from": "2020-13-01"}, "badArgument"),
    ({"verb": "ListRecords", "metadataPrefix": "oai_dc", "from": "2020-01-01T00:00:00"},
     "badArgument"),
    ({"verb": "ListRecords", "metadataPrefix": "oai_dc", "from": "2020-01-01",
      "until": "2020-02-01T00:00:00Z"}, "badArgument"),
    ({"verb": "ListRecords", "metadataPrefix": "oai_dc", "from": "2020-02-01",
      "until": "2020-01-01"}, "badArgument"),
    ({"verb": "ListRecords", "resumptionToken": "abc", "metadataPrefix": "oai_dc"},
     "badArgument"),
    ({"verb": "ListRecords", "resumptionToken": "abc"}, "badResumptionToken"),
    ({"verb": "ListSets", "resumptionToken": "abc"}, "badResumptionToken"),
    ({"verb": "ListRecords", "metadataPrefix": "marc21"}, "cannotDisseminateFormat"),
    ({"verb": "GetRecord", "metadataPrefix": "oai_dc", "identifier": "oai:x:y"},
     "idDoesNotExist"),
    ({"verb": "ListMetadataFormats", "identifier": "nothing"}, "idDoesNotExist"),
    ({"verb": "ListRecords", "metadataPrefix": "oai_dc"}, "noRecordsMatch"),
    ({"verb": "ListRecords", "metadataPrefix": "oai_dc", "set": "x"}, "badArgument"),
    ({"verb": "ListRecords", "metadataPrefix": "oai_dc", "set": "type:no_such_type"},
     "badArgument"),
    ({"verb": "ListIdentifiers", "metadataPrefix": "oai_dc", "set": "type:journal article"},
     "badArgument"),
    ({"verb": "ListIdentifiers", "metadataPrefix": "oai_dc", "set": "language:"},
     "badArgument"),
    ({"verb": "ListRecords", "metadataPrefix": "oai_dc", "set": "language:x y"},
     "badArgument"),
    ({"verb": "ListRecords", "metadataPrefix": "oai_datacite", "set": "language:fr"},
     "noRecordsMatch"),
    ({"verb": "ListRecords", "metadataPrefix": "oai_openaire", "set": "openaire"},
     "noRecordsMatch"),
    ({"verb": "ListRecords", "metadataPrefix": "marc 21"}, "badArgument"),
    ({"verb": "GetRecord", "metadataPrefix": "datacite", "identifier": "oai:x:y"},
     "cannotDisseminateFormat"),
    ({"verb": "ListSets", "set": "openaire"}, "badArgument"),
])
def test_bad_requests_get_the_oai_error_code(client, params, code):
    root = oai(client, **params)
    assert error_code(root) == code
    request = root.find(f"{OAI}request")
    assert request.text == "http://testserver/oai"
    if code in ("badVerb", "badArgument"):
        assert request.attrib == {}  # the protocol forbids echoing a bad request


@pytest.mark.django_db
def test_a_token_of_another_verb_is_refused(client, collection):
    root = oai(client, verb="ListIdentifiers", metadataPrefix="oai_dc")
    token = root.find(f".//{OAI}resumptionToken").text
    assert error_code(oai(client, verb="ListRecords", resumptionToken=token)) == (
        "badResumptionToken")
    tampered = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
    assert error_code(oai(client, verb="ListIdentifiers", resumptionToken=tampered)) == (
        "badResumptionToken")


@pytest.mark.django_db
def test_post_requests_and_list_metadata_formats(client, collection):
    root = oai(client, "post", verb="ListMetadataFormats",
               identifier=f"oai:testserver:{collection[0].ibi}")
    fmt = root.find(f"{OAI}ListMetadataFormats/{OAI}metadataFormat")
    assert fmt.findtext(f"{OAI}metadataPrefix") == "oai_dc"
    assert fmt.findtext(f"{OAI}metadataNamespace") == "http://www.openarchives.org/OAI/2.0/oai_dc/"
    request = root.find(f"{OAI}request")
    assert request.get("verb") == "ListMetadataFormats"


@pytest.mark.django_db
def test_the_archive_service_is_not_harvested(client, settings):
    service = services.ensure_archive_service()
    root = oai(client, verb="GetRecord", metadataPrefix="oai_dc",
               identifier=f"oai:testserver:{service.ibi}")
    assert error_code(root) == "idDoesNotExist"


@pytest.mark.django_db
def test_identify_describes_the_oai_identifier_scheme_for_a_domain_name(client, settings):
    settings.ARCHIVE_ADDRESS = "archive.example.org"
    root = oai(client, verb="Identify")
    ident = root.find(".//{http://www.openarchives.org/OAI/2.0/oai-identifier}oai-identifier")
    assert ident.findtext("{http://www.openarchives.org/OAI/2.0/oai-identifier}"
                          "repositoryIdentifier") == "archive.example.org"
    sample = ident.findtext("{*}sampleIdentifier")
    assert sample.startswith("oai:archive.example.org:") and ibilib.parse(sample.split(":", 2)[2])
    assert root.findtext(f".//{OAI}adminEmail") == "admin@" + settings.IBI_HOSTNAME
    settings.ARCHIVE_ADDRESS = "127.0.0.1:8000"  # not a domain name: no oai-identifier
    assert oai(client, verb="Identify").find(".//{*}oai-identifier") is None


@pytest.mark.django_db
def test_markup_and_control_characters_survive_as_text(client):
    # Deposits refuse control characters; records written before that rule (or rebuilt from
    # an old tree) may still hold them, and the XML must survive them.
    item = make.item(("a.txt", b"a"), title="placeholder", dc={"subject": ["placeholder"]})
    Item.objects.filter(pk=item.pk).update(title='<b>"bold"</b> & \x07bell')
    item.dc_values.update(value="<i>x</i>\x1b")
    root = oai(client, verb="GetRecord", metadataPrefix="oai_dc",
               identifier=f"oai:testserver:{item.ibi}")
    dc = "{http://purl.org/dc/elements/1.1/}"
    assert root.findtext(f".//{dc}title") == '<b>"bold"</b> & bell'
    assert root.findtext(f".//{dc}subject") == "<i>x</i>"


ARGUMENT = st.sampled_from(["verb", "identifier", "metadataPrefix", "from", "until", "set",
                            "resumptionToken", "other"])
VALUE = st.one_of(
    st.sampled_from(["Identify", "ListRecords", "ListIdentifiers", "GetRecord", "ListSets",
                     "ListMetadataFormats", "oai_dc", "oai_datacite", "oai_openaire",
                     "openaire", "type", "type:text", "language:pt-BR", "language:",
                     "2020-01-01", "2020-01-01T00:00:00Z",
                     "9999-12-31", "9999-12-31T23:59:59Z", "0000-01-01", ""]),
    st.text(max_size=30))


@pytest.mark.django_db
@hsettings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(ARGUMENT, VALUE), max_size=5))
def test_no_request_is_a_server_error(pairs):
    response = Client().get(f"/oai?{urlencode(pairs)}")
    if any("\x00" in text for pair in pairs for text in pair):
        # Refused on every route before any view (archive/web/middleware.py, tests/test_nul.py).
        assert response.status_code == 400
        return
    assert response.status_code == 200
    root = etree.fromstring(response.content)
    code = error_code(root)
    assert code is None or code in ERROR_CODES


# -- Harvest-grade lists: keyset pages, tokens, queries per page ---------------------------------

def list_page(client, **params) -> tuple[etree._Element, str | None]:
    """One ListRecords/ListIdentifiers response, checked against OAI-PMH.xsd and oai_dc.xsd,
    and its resumption token (None at the end)."""
    response = client.get("/oai", params)
    xml_schemas.assert_valid(xml_schemas.oai_pmh("oai_dc"), response.content)
    root = etree.fromstring(response.content)
    token = root.find(f".//{OAI}resumptionToken")
    return root, (token.text if token is not None and token.text else None)


def identifiers_of(root: etree._Element) -> list[str]:
    return [e.text for e in root.iter(f"{OAI}identifier")
            if e.getparent().tag == f"{OAI}header"]


@pytest.mark.django_db
def test_a_harvest_sees_every_record_once_while_items_are_added_and_updated(client, collection):
    # Pages of 3 over seven items (one deleted); between the pages, deposits come in and
    # items already harvested and not yet harvested change.
    def oai_id(item):
        return f"oai:testserver:{item.ibi}"

    root, token = list_page(client, verb="ListRecords", metadataPrefix="oai_dc")
    seen = identifiers_of(root)
    added = [make.item(("a.txt", b"a"), title="Added during the harvest, 1")]
    services.item_update(item=collection[0], title="Item 1, corrected")  # already harvested
    services.item_update(item=collection[4], title="Item 5, corrected")  # not yet harvested
    pages = 1
    while token:
        root, token = list_page(client, verb="ListRecords", resumptionToken=token)
        seen += identifiers_of(root)
        pages += 1
        if pages == 2:
            added.append(make.item(("a.txt", b"a"), title="Added during the harvest, 2"))

    unchanged = [c for n, c in enumerate(collection) if n not in (0, 4)]
    # Every unchanged item exactly once, in datestamp order, the deleted one included.
    assert [i for i in seen if i in {oai_id(c) for c in unchanged}] == [
        oai_id(c) for c in unchanged]
    assert len(set(seen)) == len(seen) - 1  # only the item changed after it was served twice
    # The changed and the added items come at the end, in the order they changed.
    assert seen[:3] == [oai_id(c) for c in collection[:3]]
    assert seen[-4:] == [oai_id(added[0]), oai_id(collection[0]), oai_id(collection[4]),
                         oai_id(added[1])]
    assert len(seen) == len(collection) + len(added) + 1


@pytest.mark.django_db
def test_records_changed_during_a_harvest_say_their_new_metadata(client, collection):
    root, token = list_page(client, verb="ListRecords", metadataPrefix="oai_dc")
    services.item_update(item=collection[0], title="Item 1, corrected")
    titles = []
    while token:
        root, token = list_page(client, verb="ListRecords", resumptionToken=token)
        titles += [t.text for t in root.iter("{http://purl.org/dc/elements/1.1/}title")]
    assert titles[-1] == "Item 1, corrected"


def forged(payload: dict, key: str | None = None) -> str:
    from django.core import signing  # the token's own envelope, to forge one
    return signing.dumps(payload, salt="archive.oai.resumption", key=key, compress=True)


@pytest.mark.django_db
def test_garbled_or_forged_tokens_are_bad_resumption_tokens(client, collection):
    root = oai(client, verb="ListRecords", metadataPrefix="oai_dc")
    token = root.find(f".//{OAI}resumptionToken").text
    good = {"v": "ListRecords", "p": "oai_dc", "s": None, "e": None, "t": None,
            "a": ["2020-01-03T12:00:00+00:00", collection[2].pk], "n": 3, "c": 7}
    assert identifiers_of(oai(client, verb="ListRecords", resumptionToken=forged(good))) == [
        f"oai:testserver:{c.ibi}" for c in collection[3:6]]  # the envelope forged() makes works
    bad = [
        token[:len(token) // 2],  # truncated
        token.swapcase(),
        "x" * 5000,
        "%00%ff",
        ":" + token,
        forged(good, key="another secret key entirely, fifty characters long!"),  # forged
        forged({**good, "a": ["not a date", 1]}),
        forged({**good, "a": ["2020-01-03T12:00:00", 1]}),  # a naive datestamp
        forged({**good, "a": ["2020-01-03T12:00:00+00:00", "one"]}),
        forged({**good, "a": [None]}),
        forged({**good, "p": "marc21"}),
        forged({**good, "t": "no such set"}),
        forged({**good, "c": "many"}),
        forged({**good, "n": None}),
        forged({key: value for key, value in good.items() if key != "a"}),
        forged(["a", "list"]),
        forged("a string"),
    ]
    for garbled in bad:
        root = oai(client, verb="ListRecords", resumptionToken=garbled)
        assert error_code(root) == "badResumptionToken", garbled


@pytest.mark.django_db
@pytest.mark.parametrize(("verb", "prefix"), [
    ("ListIdentifiers", "oai_dc"), ("ListRecords", "oai_dc"), ("ListRecords", "oai_datacite"),
    ("ListRecords", "oai_openaire")])
def test_the_queries_of_a_page_do_not_grow_with_its_size(client, settings, verb, prefix):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    services.ensure_archive_service()
    first = None
    for n in range(12):  # editions, translations, files and Dublin Core on every item
        first = make.item(("a.txt", b"a"), title=f"Item {n}",
                          dc={"creator": [f"Author {n}"], "type": ["Article"],
                              "subject": ["a", "b"]},
                          language="en", previous_edition=first if n % 2 else None)
    services.item_delete(item=first)

    def queries(size: int) -> tuple[int, int]:
        settings.IBI_OAI_PAGE_SIZE = size
        oai(client, verb=verb, metadataPrefix=prefix)  # warm: the answer cache, the session
        with CaptureQueriesContext(connection) as first_page:
            root = oai(client, verb=verb, metadataPrefix=prefix)
        token = root.find(f".//{OAI}resumptionToken").text
        with CaptureQueriesContext(connection) as next_page:
            root = oai(client, verb=verb, resumptionToken=token)
        assert len(identifiers_of(root)) == size
        return len(first_page), len(next_page)

    small, large = queries(2), queries(5)
    assert small == large
    # The items, their Dublin Core, their Handles, and for a Record their files and
    # editions; the first page also counts the list (up to COUNT_CAP).
    # Two of them are the tree's setSpecs (issue 34): the items' mappings, then the
    # collections they name and the communities, in one query.
    assert large[1] <= (7 if prefix != "oai_dc" else 5) and large[0] == large[1] + 1


@pytest.mark.django_db
def test_complete_list_size_is_left_out_past_the_cap(client, collection, monkeypatch):
    from archive.harvest import oai as oai_module
    monkeypatch.setattr(oai_module, "COUNT_CAP", 5)
    root, token = list_page(client, verb="ListIdentifiers", metadataPrefix="oai_dc")
    assert "completeListSize" not in root.find(f".//{OAI}resumptionToken").attrib
    assert len(identifiers_of(root)) == 3 and token
    monkeypatch.setattr(oai_module, "COUNT_CAP", 7)
    root, _ = list_page(client, verb="ListIdentifiers", metadataPrefix="oai_dc")
    assert root.find(f".//{OAI}resumptionToken").get("completeListSize") == "7"


@pytest.mark.django_db
@pytest.mark.parametrize("old", ["/oai/request", "/server/oai/request"])
def test_dspaces_oai_base_urls_send_harvesters_here_with_their_query(client, collection, old):
    """A harvester configured with DSpace's base URL (6: /oai/request, 7: /server/oai/request)
    is sent to /oai, its request as it was (#42)."""
    query = "verb=ListRecords&metadataPrefix=oai_dc&set=col_1%2F2"
    answer = client.get(f"{old}?{query}")
    assert (answer.status_code, answer["Location"]) == (301, f"/oai?{query}")
    assert client.get(old)["Location"] == "/oai"
    posted = client.post(old, {"verb": "Identify"})
    assert (posted.status_code, posted["Location"]) == (308, "/oai")
    followed = client.get(old, {"verb": "ListIdentifiers", "metadataPrefix": "oai_dc"},
                          follow=True)
    assert followed.redirect_chain == [
        ("/oai?verb=ListIdentifiers&metadataPrefix=oai_dc", 301)]
    assert len(etree.fromstring(followed.content).findall(f".//{OAI}header")) == 3
