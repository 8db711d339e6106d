"""Copies and migration between two real Archives on loopback (tests/servers.py).

A is an Archive and the resolver; B an Archive registered at A and switched on. B deposits a
paper; A copies it (`copyitem`), and the resolver sends a plain persistent URL to A's copy but
``ibiurl.requireditemstatus=Original`` to B. Then A takes the Original over (`migrateitem`
with a token of B's): A holds the Original, B a Copy, and the resolver follows. Last, one
flipped byte in A's storage is exactly what `fixity` reports.
"""
from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from .servers import LiveServers

KEY = "2345678901-1098765432"
PDF = b"%PDF-1.4 ensuring persistence\n%%EOF\n"
BIB = b"@article{banon2014, title={Ensuring persistence}}\n"


@pytest.fixture(scope="module")
def network(tmp_path_factory):
    with LiveServers(tmp_path_factory.mktemp("copy-net")) as servers:
        yield servers


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


def test_copy_resolve_migrate_and_check_fixity_between_two_archives(network):
    # A knows B once B is included at A's resolver; B is told about A (the hand-over's target
    # and the source of B's refreshes) in IBI_PEER_ARCHIVES.
    a = network.start("a")
    b = network.start("b", IBI_PEER_ARCHIVES=a.url)
    a.manage("registerarchive", b.archive_service_ibi(), KEY, "--email", "admin@b.ibi.test")
    assert "included" in b.manage("switchon", "--resolver", a.url, "--key", KEY).stdout
    b_token = b.librarian_token()
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
    assert downloads(b) == 0  # copying is not reading
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
    assert a.manage("fixity").returncode == 0
    stored = Path(a.env["MEDIA_ROOT"], "col", rep, "doc", "reference.bib")
    data = bytearray(stored.read_bytes())
    data[10] ^= 0x20
    stored.write_bytes(bytes(data))
    checked = a.manage("fixity", check=False)
    assert checked.returncode == 1
    lines = checked.stdout.splitlines()
    assert [line.split(":")[0] for line in lines[:-1]] == [f"changed  col/{rep}/doc/reference.bib"]
    assert lines[-1] == "3 files checked: 1 changed or missing"
    problems = json.loads(last_line(a.shell(
        "import json; from archive.models import ItemFile; print(json.dumps(list("
        "ItemFile.objects.exclude(fixity_problem='').values_list('name', flat=True))))")))
    assert problems == ["reference.bib"]
