"""Content negotiation through a second Archive, between two real Archives on loopback.

A is an Archive and the resolver; B an Archive registered at A and switched on, holding the
items. A asked ``/<ibi>:(bibtex)``, or ``/<ibi>`` with ``Accept: application/x-bibtex``, asks B
the standard's ``GetMetadata(oai_dc)`` until B announces it knows BibTeX (its answer's
``metadataformats`` pair, archive/resolver/formats.py), then ``GetMetadata(bibtex)``, and
redirects to B's ``url.metadata(bibtex)``: the client gets B's BibTeX. A tombstone on B is a
410 from A in the format asked.
"""
from __future__ import annotations

import bibtexparser
import httpx
import pytest
import rispy

from tests import factories as make

from .servers import LiveServers

KEY = "4567890123-3210987654"


# What each deposit says besides its title and file.
REPORT = {"creator": ["Banon, Gerald"], "date": "2009-02-16", "type": "Relatório técnico"}


@pytest.fixture(scope="module")
def network(tmp_path_factory):
    with LiveServers(tmp_path_factory.mktemp("formats-net")) as servers:
        yield servers


def test_a_resolver_gets_another_archives_formats(network):
    a, b = network.start("a"), network.start("b")
    a.manage("registerarchive", b.archive_service_ibi(), KEY, "--email", "admin@b.ibi.test")
    assert "included" in b.manage("switchon", "--resolver", a.url, "--key", KEY).stdout
    token = b.librarian_token()
    first = make.deposited(b, token, "Ensuring persistence",
                           ("Ensuring persistence.pdf", b"%PDF-1.4 Ensuring persistence\n"),
                           target_file="Ensuring persistence.pdf", **REPORT)
    second = make.deposited(b, token, "Ensuring persistence again",
                            ("Ensuring persistence again.pdf", b"%PDF-1.4 again\n"),
                            target_file="Ensuring persistence again.pdf",
                            previous_edition=first["ibi"], **REPORT)
    gone = make.deposited(b, token, "Withdrawn study",
                          ("Withdrawn study.pdf", b"%PDF-1.4 Withdrawn study\n"),
                          target_file="Withdrawn study.pdf", **REPORT)
    deleted = httpx.delete(f"{b.url}/api/items/{gone['ibi']}", timeout=30,
                           headers={"Authorization": f"Token {token}"})
    assert deleted.status_code == 200, deleted.text

    resolver = httpx.Client(base_url=a.url, follow_redirects=True, timeout=30)

    def bibtex_of(path: str, **headers) -> dict:
        response = resolver.get(path, headers=headers)
        assert response.status_code == 200, (path, response.status_code, response.text[:300])
        assert [r.status_code for r in response.history] == [302]
        assert str(response.url).startswith(f"{b.url}/items/")  # B's record, not a copy
        assert response.headers["content-type"].startswith("application/x-bibtex")
        (entry,) = bibtexparser.parse_string(response.text).entries
        return {name: field.value for name, field in entry.fields_dict.items()}

    for ibi in (first["ibi"], first["ibip"]):
        by_modifier = bibtex_of(f"/{ibi}:(bibtex)")
        assert by_modifier["title"] == "Ensuring persistence"
        assert by_modifier["author"] == "Banon, Gerald"
        assert bibtex_of(f"/{ibi}", Accept="application/x-bibtex") == by_modifier
    assert bibtex_of(f"/{first['ibi']}!", Accept="application/x-bibtex")["title"] == (
        "Ensuring persistence again")
    assert bibtex_of(f"/{first['ibip']}!:(bibtex)")["url"].endswith(second["ibi"])

    # A citation in a CSL style: B renders its CSL-JSON for the Accept header A's redirect
    # kept (the client sends it again).
    cited = resolver.get(f"/{first['ibi']}",
                         headers={"Accept": "text/x-bibliography; style=ieee; locale=en-US"})
    assert cited.status_code == 200
    assert cited.text.startswith("[1]G. Banon, ")
    assert str(cited.url) == f"{b.url}/items/{first['ibi']}/metadata/csljson"

    # An unknown style is refused by A before any Archive is asked.
    refused = resolver.get(f"/{first['ibi']}", headers={
        "Accept": "text/x-bibliography; style=not-a-style"})
    assert refused.status_code == 400 and "not-a-style" in refused.text

    # B's tombstone: a 410 from A, in the format asked.
    tombstone = resolver.get(f"/{gone['ibi']}",
                             headers={"Accept": "application/x-research-info-systems"})
    assert tombstone.status_code == 410 and not tombstone.history
    (record,) = rispy.loads(tombstone.text)
    assert record["urls"] == [f"{a.url}/{gone['ibi']}"]
