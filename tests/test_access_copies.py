"""A Copy keeps its Original's access conditions (issue 26), between two real Archives on
loopback (tests/servers.py): B copies A's embargoed thesis with the token of an account A made
for it (`createpeer`, IBI_PEER_TOKENS), serves none of its bytes to an anonymous reader, and
opens it once A has lifted the embargo and B has refreshed its copy. A records each Copy B made
or refreshed as a replication event, B (by its archive service IBI) its agent (issue 38).
"""
from __future__ import annotations

import json
from datetime import timedelta

import httpx
import pytest
from django.utils import timezone

from .servers import LiveServers

PDF = b"%PDF-1.4 a thesis under embargo, copied\n%%EOF\n"


@pytest.fixture(scope="module")
def network(tmp_path_factory):
    with LiveServers(tmp_path_factory.mktemp("access-copies")) as servers:
        yield servers


def last_word(text: str) -> str:
    return text.split()[-1]


def replications(archive, rep: str, token: str) -> list[tuple[str, str, str]]:
    """The item's replication events at `archive`, as its librarian (`token`) reads them."""
    answer = httpx.get(f"{archive.url}/api/items/{rep}/events", timeout=30,
                       headers={"Authorization": f"Token {token}"})
    assert answer.status_code == 200, answer.text
    return [(e["agent"]["identifier_type"], e["agent"]["identifier"], e["detail"].split(",")[0])
            for e in answer.json()["results"] if e["type"] == "replication"]


def test_a_copy_of_an_embargoed_item_serves_nothing_and_opens_after_lifting_and_refresh(
        network):
    a = network.start("a")
    token = last_word(a.manage("createpeer", "archive-b").stdout)
    b = network.start("b", IBI_PEER_ARCHIVES=a.url, IBI_PEER_TOKENS=f"{a.url}={token}")
    day = timezone.localdate() + timedelta(days=30)
    librarian_a = a.librarian_token()
    deposited = httpx.post(
        f"{a.url}/api/items/", timeout=30,
        headers={"Authorization": f"Token {librarian_a}"},
        data={"title": "Tese embargada", "language": "pt-BR",
              "access": json.dumps({"rights": "embargoed", "embargo_until": day.isoformat(),
                                    "reason": "patente"})},
        files=[("files", ("tese.pdf", PDF, "application/pdf"))])
    assert deposited.status_code == 201, deposited.text
    rep = deposited.json()["ibi"]
    file_path = f"/col/{rep}/doc/tese.pdf"

    # B copies it, every byte, with the conditions; A's audit trail names B's account.
    assert b.manage("copyitem", rep, "--from", a.url).stdout.strip() == (
        f"{rep}: created, 1 file fetched")
    record = httpx.get(f"{b.url}/api/items/{rep}", timeout=30).json()
    assert (record["state"], record["access"]) == ("Copy", {
        "rights": "embargoed", "embargo_until": day.isoformat(), "reason": "patente"})
    assert record["files"][0]["url"] is None
    reads = a.shell("from archive.models import AccessRead as R; "
                    "print(list(R.objects.values_list('who', 'file_name')))")
    assert reads.strip().splitlines()[-1] == "[('archive-b', 'tese.pdf')]"
    service_b = b.archive_service_ibi()
    assert replications(a, rep, librarian_a) == [("IBI", service_b, f"Copy made at {service_b}")]

    # An anonymous reader at B: nothing of the file; its persistent URL is B's landing page.
    reader = httpx.Client(base_url=b.url, timeout=30)
    closed = reader.get(file_path)
    assert closed.status_code == 403 and PDF not in closed.content
    assert "etag" not in closed.headers
    resolved = reader.get(f"/{rep}")
    assert resolved.status_code == 302
    assert resolved.headers["location"] == f"{b.url}/items/{rep}"
    assert b.manage("liftembargoes", "--today", day.isoformat()).stdout.strip() == (
        "0 embargoes lifted")  # a Copy follows its Original, not the calendar

    # A lifts the embargo on its day; B's refresh opens the copy.
    assert a.manage("liftembargoes", "--today", day.isoformat()).stdout.splitlines() == [
        rep, "1 embargo lifted"]
    assert httpx.get(f"{a.url}{file_path}", timeout=30).content == PDF
    assert b.manage("copyitem", "--refresh").stdout.strip() == f"{rep}: updated"
    assert replications(a, rep, librarian_a)[1:] == [
        ("IBI", service_b, f"Copy refreshed at {service_b}")]
    opened = reader.get(file_path)
    assert opened.status_code == 200 and opened.content == PDF
    assert reader.get(f"/{rep}").headers["location"] == f"{b.url}{file_path}"
