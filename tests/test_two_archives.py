"""Two real Archives on loopback (tests/servers.py), one network for the module's tests.

A is an Archive and the resolver; B an Archive registered at A and switched on, told about A
(the hand-over's target and the source of B's refreshes) in IBI_PEER_ARCHIVES. Each test
deposits its own items at B and counts only what it made.

- A's resolver shows what B answered (``/inspect/<ibi>``).
- Content negotiation through B: A asked ``/<ibi>:(bibtex)``, or ``/<ibi>`` with ``Accept:
  application/x-bibtex``, asks B the standard's ``GetMetadata(oai_dc)`` until B announces it
  knows BibTeX (its answer's ``metadataformats`` pair, archive/resolver/formats.py), then
  ``GetMetadata(bibtex)``, and redirects to B's ``url.metadata(bibtex)``: the client gets B's
  BibTeX. A tombstone on B is a 410 from A in the format asked.
- Copies and migration: B deposits a paper; A copies it (`copyitem`), and the resolver sends a
  plain persistent URL to A's copy but ``ibiurl.requireditemstatus=Original`` to B. Then A
  takes the Original over (`migrateitem` with a token of B's): A holds the Original, B a
  Copy, and the resolver follows. Last, one flipped byte in A's storage is exactly what
  `fixity` reports.

(tests/test_two_archives_relations.py stops its B, tests/test_two_archives_ibis.py needs three
Archives and tests/test_access_copies.py a peer account: each has a network of its own.)
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

import bibtexparser
import httpx
import lxml.html
import pytest
import rispy

from tests import factories as make

from .servers import LiveServers, Server

KEY = "2345678901-1098765432"
PDF = b"%PDF-1.4 ensuring persistence\n%%EOF\n"
BIB = b"@article{banon2014, title={Ensuring persistence}}\n"
# What each deposit of the formats' test says besides its title and file.
REPORT = {"creator": ["Banon, Gerald"], "date": "2009-02-16", "type": "Relatório técnico"}


class Pair(NamedTuple):
    a: Server
    b: Server
    b_token: str  # a librarian's API token at B


@pytest.fixture(scope="module")
def pair(tmp_path_factory) -> Pair:
    with LiveServers(tmp_path_factory.mktemp("two-archives")) as servers:
        a = servers.start("a")
        b = servers.start("b", IBI_PEER_ARCHIVES=a.url)
        a.manage("registerarchive", b.archive_service_ibi(), KEY, "--email", "admin@b.ibi.test")
        assert "included" in b.manage("switchon", "--resolver", a.url, "--key", KEY).stdout
        yield Pair(a, b, b.librarian_token())


def record(server, ibi: str) -> dict:
    response = httpx.get(f"{server.url}/api/items/{ibi}", timeout=30)
    assert response.status_code == 200, response.text
    return response.json()


def last_line(text: str) -> str:
    return text.splitlines()[-1]  # `shell` may first say what it imported automatically


def downloads(server) -> int:
    return int(last_line(server.shell(
        "from django.db.models import Sum; from archive.models import DailyAccessCount as D; "
        "print(D.objects.filter(kind='download').aggregate(n=Sum('n'))['n'] or 0)")))


def test_copy_resolve_migrate_and_check_fixity_between_two_archives(pair):
    a, b, b_token = pair
    downloaded = downloads(b)
    deposited = httpx.post(
        f"{b.url}/api/items/", timeout=30, headers={"Authorization": f"Token {b_token}"},
        data={"title": "Ensuring persistence", "language": "en", "creator": ["Banon, Gerald"],
              "target_file": "paper.pdf"},
        files=[("files", ("paper.pdf", PDF, "application/pdf")),
               ("files", ("reference.bib", BIB, "text/plain"))])
    assert deposited.status_code == 201, deposited.text
    paper = deposited.json()
    rep, ibip = paper["ibi"], paper["ibip"]

    # A copies the paper from B: both IBI forms, every file, state Copy, provenance.
    out = a.manage("copyitem", ibip, "--from", b.url).stdout
    assert out.strip() == f"{rep}: created, 2 files fetched"
    copy = record(a, rep)
    assert (copy["ibi"], copy["ibip"], copy["state"]) == (rep, ibip, "Copy")
    assert copy["source_archive"] == b.url and copy["timestamp"] == paper["timestamp"]
    assert {(f["name"], f["sha256"]) for f in copy["files"]} == {
        (f["name"], f["sha256"]) for f in paper["files"]}
    assert httpx.get(f"{a.url}/col/{rep}/doc/paper.pdf", timeout=30).content == PDF
    assert downloads(b) == downloaded  # copying is not reading
    again = a.manage("copyitem", rep, "--from", b.url).stdout
    assert again.strip() == f"{rep}: unchanged"

    # The resolver (A): the Original is B's; a plain persistent URL may use A's copy.
    resolver = httpx.Client(base_url=a.url, follow_redirects=False, timeout=30)
    original = resolver.get(f"/{rep}?ibiurl.requireditemstatus=Original")
    assert original.status_code == 302, original.text[:500]
    assert original.headers["location"] == f"{b.url}/col/{rep}/doc/paper.pdf"
    plain = resolver.get(f"/{ibip}")
    assert plain.status_code == 302
    assert plain.headers["location"] == f"{a.url}/col/{rep}/doc/paper.pdf"

    # An Archive never copies what it holds as Original.
    own = httpx.post(f"{a.url}/api/items/", timeout=30,
                     headers={"Authorization": f"Token {a.librarian_token()}"},
                     data={"title": "A's own"}, files=[("files", ("own.txt", b"own"))]).json()
    refused = a.manage("copyitem", own["ibi"], "--from", b.url, check=False)
    assert refused.returncode != 0
    assert f"{own['ibi']} is held here as Original" in refused.stderr

    # Migration of the Original from B to A.
    moved = a.manage("migrateitem", rep, "--from", b.url, "--token", b_token).stdout
    assert moved.strip() == f"{rep}: the Original is here now; {b.url} holds a Copy"
    at_a, at_b = record(a, rep), record(b, rep)
    assert (at_a["state"], at_b["state"]) == ("Original", "Copy")
    assert at_b["source_archive"] == a.url
    assert at_a["timestamp"] == at_b["timestamp"] == paper["timestamp"]
    original = resolver.get(f"/{rep}?ibiurl.requireditemstatus=Original")
    assert original.headers["location"] == f"{a.url}/col/{rep}/doc/paper.pdf"
    # Done is done: running it again changes nothing, and B's copy is current.
    assert "nothing to do" in a.manage("migrateitem", rep, "--from", b.url,
                                       "--token", b_token).stdout
    assert b.manage("copyitem", "--refresh").stdout.strip() == f"{rep}: unchanged"

    # A flipped byte in A's storage: fixity names exactly that file.
    clean = a.manage("fixity").stdout.splitlines()[-1]
    assert clean.endswith(" files checked: 0 changed or missing"), clean
    stored = Path(a.env["MEDIA_ROOT"], "col", rep, "doc", "reference.bib")
    data = bytearray(stored.read_bytes())
    data[10] ^= 0x20
    stored.write_bytes(bytes(data))
    checked = a.manage("fixity", check=False)
    assert checked.returncode == 1
    lines = checked.stdout.splitlines()
    assert [line.split(":")[0] for line in lines[:-1]] == [f"changed  col/{rep}/doc/reference.bib"]
    assert lines[-1] == clean.replace("0 changed", "1 changed")
    problems = json.loads(last_line(a.shell(
        "import json; from archive.models import ItemFile; print(json.dumps(list("
        "ItemFile.objects.exclude(fixity_problem='').values_list('name', flat=True))))")))
    assert problems == ["reference.bib"]


def words(element) -> str:
    return " ".join(element.text_content().split())


def test_a_resolver_shows_what_another_archive_answered(pair):
    a, b, token = pair
    b_service = b.archive_service_ibi()
    made = httpx.post(f"{b.url}/api/items/", data={"title": "Held by B"},
                      files=[("files", ("paper.pdf", b"%PDF-1.4\n%%EOF\n", "application/pdf"))],
                      headers={"Authorization": f"Token {token}"}, timeout=30)
    assert made.status_code == 201, made.text
    item = made.json()

    resolver = httpx.Client(base_url=a.url, follow_redirects=False, timeout=30)
    answer = resolver.get(f"/inspect/{item['ibi']}?format=json")
    assert answer.status_code == 200 and "location" not in answer.headers
    data = answer.json()
    assert data["outcome"] == "found"
    assert data["url"] == f"{b.url}/col/{item['ibi']}/doc/paper.pdf"
    assert (data["chosen"]["archive"], data["chosen"]["address"], data["chosen"]["state"]) == (
        b_service, b.address, "Original")
    assert data["chosen"]["timestamp"]
    archives = data["rounds"][0]["archives"]
    assert [(x["local"], x["answered"], x["chosen"]) for x in archives] == [
        (True, False, False), (False, True, True)]
    assert archives[1]["archive"] == b_service

    shown = resolver.get(f"/inspect/{item['ibip']}", headers={"Accept": "text/html"})
    assert shown.status_code == 200
    html = lxml.html.fromstring(shown.content)
    rows = html.xpath("//section[@class='round']//tbody/tr")
    assert b.address in words(rows[1]) and rows[1].get("class") == "chosen"
    assert data["url"] in words(html.xpath("//code[@class='url']")[0])


def test_a_resolver_gets_another_archives_formats(pair):
    a, b, token = pair
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
