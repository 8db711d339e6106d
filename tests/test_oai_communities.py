"""OAI-PMH sets of the tree (issue 34): DSpace's com_<slug> and col_<slug> beside today's sets,
harvested by sickle (the client of the DSpace world) from a live server; records of mapped
items in their collections' sets; every answer valid against OAI-PMH.xsd."""
from __future__ import annotations

import pytest
from lxml import etree
from sickle import Sickle
from sickle.oaiexceptions import BadArgument

from archive.communities import services as tree
from tests import factories as make
from tests import xml_schemas

OAI = "{http://www.openarchives.org/OAI/2.0/}"


@pytest.fixture
def programme():
    found = make.programme()
    found["thesis"] = make.item(title="Tese de mestrado", collection=found["theses"])
    found["article"] = make.item(title="Artigo", collection=found["articles"])
    found["elsewhere"] = make.item(title="Relatório")  # the default collection
    tree.item_map(item=found["article"], collections=[found["theses"]])
    return found


def test_sickle_lists_dspaces_sets_beside_todays(live_server, programme):
    harvester = Sickle(f"{live_server.url}/oai")
    specs = {s.setSpec: s.setName for s in harvester.ListSets()}
    assert {"com_engenharia", "com_ppgee", "com_repository", "col_teses-ppgee",
            "col_artigos-ppgee", "col_general", "openaire", "type", "language"} <= set(specs)
    assert specs["col_teses-ppgee"] == "Collection: Collection teses-ppgee"


def test_a_collections_set_holds_its_items_and_those_mapped_into_it(live_server, programme):
    harvester = Sickle(f"{live_server.url}/oai")
    titles = {r.metadata["title"][0] for r in harvester.ListRecords(
        metadataPrefix="oai_dc", set="col_teses-ppgee")}
    assert titles == {"Tese de mestrado", "Artigo"}
    community = {r.metadata["title"][0] for r in harvester.ListRecords(
        metadataPrefix="oai_dc", set="com_engenharia")}
    assert community == {"Tese de mestrado", "Artigo"}  # every collection under it
    headers = {h.identifier.rsplit(":", 1)[-1]: h.setSpecs
               for h in harvester.ListIdentifiers(metadataPrefix="oai_dc", set="com_ppgee")}
    assert {"col_teses-ppgee", "col_artigos-ppgee", "com_ppgee", "com_engenharia"} <= set(
        headers[programme["article"].ibi])
    with pytest.raises(BadArgument):
        list(harvester.ListRecords(metadataPrefix="oai_dc", set="col_nowhere"))


@pytest.mark.django_db
def test_the_answers_are_valid_oai_pmh(client, programme):
    for params in ({"verb": "ListSets"},
                   {"verb": "ListRecords", "metadataPrefix": "oai_dc", "set": "col_teses-ppgee"}):
        response = client.get("/oai", params)
        xml_schemas.assert_valid(xml_schemas.oai_pmh("oai_dc"), response.content)
        assert etree.fromstring(response.content).find(f"{OAI}error") is None
