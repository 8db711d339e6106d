"""Issue #41, 5, between live Archives on loopback (tests/servers.py): our own `exportsaf` and
OAI-PMH taken in by other Archives mint no IBI. B, where A is registered, keeps A's items as
Copies (importsaf, then a harvest of A's OAI-PMH, each run twice); C, where A is not
registered, fails them with the reason, then takes the Originals over with --migrate."""
from __future__ import annotations

import csv
import json

import httpx
import pytest

from tests import factories as make

from .servers import LiveServers

KEY = "2345678901-1098765432"
HELD = """
import json
from archive.models import Item
print(json.dumps({i.ibi: [i.ibip, i.state, i.source_archive,
                          i.previous_edition.ibi if i.previous_edition else None,
                          i.collection.slug]
                  for i in Item.objects.filter(is_archive_service=False)}))
"""
# A collection of its own at B, for the Copies of A's items (its `collections` files name A's
# default collection, "general", which --map-collections maps to it).
COPIES = """
from archive.communities import services as tree
from archive.models import Collection, Community
community = tree.community_save(community=Community(slug="a", name_pt_br="A", name_en="A"))
tree.collection_save(collection=Collection(slug="copies-of-a", name_pt_br="Cópias de A",
                                           name_en="Copies of A", community=community))
"""


@pytest.fixture(scope="module")
def network(tmp_path_factory):
    with LiveServers(tmp_path_factory.mktemp("ibis-net")) as servers:
        yield servers


def held(server) -> dict[str, list]:
    return json.loads(server.shell(HELD).splitlines()[-1])


def minted_count(server) -> int:
    """Every IBI the Archive holds, its own archive service's included."""
    return int(server.shell("from archive.models import Item; print(Item.objects.count())")
               .splitlines()[-1])


def rows(path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_our_exports_and_oai_pmh_taken_in_elsewhere_never_mint_a_second_ibi(network, tmp_path):
    a = network.start("a")
    b = network.start("b")
    c = network.start("c", IBI_PEER_ARCHIVES=a.url)
    # A registered at B; C registered at A (A hands Originals over to C only if it knows C).
    b.manage("registerarchive", a.archive_service_ibi(), KEY, "--email", "admin@a.ibi.test")
    assert "included" in a.manage("switchon", "--resolver", b.url, "--key", KEY).stdout
    a.manage("registerarchive", c.archive_service_ibi(), KEY, "--email", "admin@c.ibi.test")
    assert "included" in c.manage("switchon", "--resolver", a.url, "--key", KEY).stdout
    a_token = a.librarian_token()
    first = make.deposited(a, a_token, "Relatório", ("r.pdf", b"%PDF first"), language="pt-BR")
    second = make.deposited(a, a_token, "Relatório, 2a ed.", ("r2.pdf", b"%PDF second"),
                            previous_edition=first["ibi"])
    theirs = {first["ibi"]: first["ibip"], second["ibi"]: second["ibip"]}
    export = tmp_path / "export"
    a.manage("exportsaf", str(export))

    # B: Copies of A's items, under A's IBIs (both forms), nothing minted, in the collection
    # their `collections` files are mapped to; again: skipped.
    b.shell(COPIES)
    mapping = tmp_path / "map.csv"
    mapping.write_text("general,copies-of-a\n", "utf-8")
    count = minted_count(b)
    out = b.manage("importsaf", str(export), "--report", str(tmp_path / "b1.csv"),
                   "--map-collections", str(mapping)).stdout
    assert "2 imported, 0 updated, 0 skipped, 0 failed" in out, out
    at_b = held(b)
    assert {ibi: found[0] for ibi, found in at_b.items()} == theirs
    assert {found[1] for found in at_b.values()} == {"Copy"}
    assert {found[2] for found in at_b.values()} == {a.url}
    assert at_b[second["ibi"]][3] == first["ibi"]
    assert {found[4] for found in at_b.values()} == {"copies-of-a"}
    assert minted_count(b) == count + 2
    out = b.manage("importsaf", str(export), "--report", str(tmp_path / "b2.csv"),
                   "--map-collections", str(mapping)).stdout
    assert "0 imported, 0 updated, 2 skipped, 0 failed" in out, out
    # A harvest of A's OAI-PMH finds the same items by their IBIs, then by their OAI
    # identifiers (--full: every record again, not only those since the last datestamp).
    for run in ("h1", "h2"):
        out = b.manage("harvest", f"{a.url}/oai", "--full", "--map-collections", str(mapping),
                       "--report", str(tmp_path / f"{run}.csv")).stdout
        assert "0 imported, 0 updated, 2 skipped, 0 deleted, 0 failed" in out, out
    assert held(b) == at_b and minted_count(b) == count + 2

    # C, where A is not registered: each record fails, saying why; nothing is minted.
    count = minted_count(c)
    refused = c.manage("importsaf", str(export), "--report", str(tmp_path / "c1.csv"),
                       check=False)
    assert refused.returncode != 0
    assert "0 imported, 0 updated, 0 skipped, 2 failed" in refused.stdout
    reasons = [row["reason"] for row in rows(tmp_path / "c1.csv")]
    assert all("not registered" in reason and "--migrate" in reason for reason in reasons)
    assert minted_count(c) == count and held(c) == {}
    # The collection migrated to C: the Originals handed over (RTC-11 §5.2), no IBI minted.
    out = c.manage("importsaf", str(export), "--migrate", a.url, "--token", a_token,
                   "--report", str(tmp_path / "c2.csv")).stdout
    assert "2 imported, 0 updated, 0 skipped, 0 failed" in out, out
    at_c = held(c)
    assert {ibi: found[0] for ibi, found in at_c.items()} == theirs
    assert {found[1] for found in at_c.values()} == {"Original"}
    assert at_c[second["ibi"]][3] == first["ibi"]
    assert minted_count(c) == count + 2
    for ibi in theirs:
        record = httpx.get(f"{a.url}/api/items/{ibi}", timeout=30).json()
        assert (record["state"], record["source_archive"]) == ("Copy", c.url)
