"""The resolver end to end, between real servers on loopback (tests/servers.py).

A is the resolver (and an Archive holding nothing), B an Archive with a paper, its Portuguese
translation, its second edition and a deleted item. B is registered at A (`registerarchive`),
switches itself on (`switchon --resolver A`), and every kind of persistent URL is resolved
through A. A stand-in archive service F then claims B's paper as its Original: with
``ibiurl.requireditemstatus=Original`` both are suspects. Last, B and F switch off and are no
longer asked.
"""
from __future__ import annotations

import re
from urllib.parse import quote

import httpx
import pytest

from tests import factories as make

from .servers import FakeArchiveService, LiveServers

KEY = "1234567890-0987654321"
BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
FAKE_SERVICE = "ibi.test/fake/2024/01.02.03.04"
PDF = b"%PDF-1.4\n%%EOF\n"
ACKS = "SELECT COALESCE(SUM(n), 0) FROM archive_dailyaccesscount WHERE kind = 'acknowledgment'"


@pytest.fixture(scope="module")
def network(tmp_path_factory):
    with LiveServers(tmp_path_factory.mktemp("resolver-net")) as servers:
        yield servers


def fake_claims(fake: FakeArchiveService, ibis: set[str], url: str):
    """F answers every urlRequest about one of ibis as the holder of its Original."""
    def respond(pairs):
        if pairs.get("parsedibiurl.ibi", "").lower() not in ibis:
            return 200, ""
        return 200, (f"archiveaddress {fake.address}\ncontenttype Data\n"
                     f"ibi.archiveservice {{rep {FAKE_SERVICE}}}\nibi.platformsoftware {{}}\n"
                     f"state Original\ntimestamp 2024-01-02T03:04:05Z\nurl {url}\n"
                     "urlkey 1700000000-123456789012345678\n")
    return respond


def switch(server_url: str, subject: str, fake: FakeArchiveService, key: str = KEY):
    """The inclusion or exclusion request F would send (Example 7.2)."""
    return httpx.get(f"{server_url}/J8LNKB5R7W/3FUQHC5", params={
        "servicesubject": subject, "archiveaddress": fake.address,
        "archiveserviceibi": FAKE_SERVICE, "archiveip": "127.0.0.1", "archiveprotocol": "HTTP",
        "archiveplatformversion": "fake-1", "archiveadmemailaddress": "fake@ibi.test",
        "registrationkey": key}, timeout=30)


def test_two_archives_one_resolver(network):
    a, b = network.start("a"), network.start("b")
    b_service = b.archive_service_ibi()

    # Registration at A (an administrative act), then B switches itself on.
    assert "Registered" in a.manage("registerarchive", b_service, KEY,
                                    "--email", "admin@b.ibi.test").stdout
    answer = b.manage("switchon", "--resolver", a.url, "--key", KEY).stdout
    assert answer == "status.archive included\nstatus.confirmation successful\n"
    refused = b.manage("switchon", "--resolver", a.url, "--key", "1111111111", check=False)
    assert refused.returncode != 0 and "HTTP 403" in refused.stderr

    token = b.librarian_token()
    paper = make.deposited(b, token, "Ensuring persistence", ("paper.pdf", PDF + b"paper.pdf"),
                           ("reference.bib", PDF + b"reference.bib"), target_file="paper.pdf",
                           language="en", creator=["Banon, Gerald"])
    translation = make.deposited(b, token, "Garantindo a persistência",
                                 ("artigo.pdf", PDF + b"artigo.pdf"), language="pt",
                                 translation_of=paper["ibi"])
    second = make.deposited(b, token, "Ensuring persistence, 2nd edition",
                            ("paper2.pdf", PDF + b"paper2.pdf"), language="en",
                            previous_edition=paper["ibip"])
    gone = make.deposited(b, token, "Withdrawn", ("x.pdf", PDF + b"x.pdf"))
    deleted = httpx.delete(f"{b.url}/api/items/{gone['ibi']}", timeout=30,
                           headers={"Authorization": f"Token {token}"})
    assert deleted.status_code == 200, deleted.text

    # A reader's browser: a script's User-Agent is a robot, whose accesses nobody acknowledges.
    resolver = httpx.Client(base_url=a.url, follow_redirects=False, timeout=30,
                            headers={"User-Agent": BROWSER})

    def location(path: str, status: int = 302, **headers) -> str:
        response = resolver.get(path, headers=headers)
        assert response.status_code == status, (path, response.status_code, response.text[:500])
        return response.headers.get("location", "")

    def file(item: dict, name: str) -> str:
        return f"{b.url}/col/{item['ibi']}/doc/{quote(name)}"

    def page(item: dict, suffix: str) -> str:
        return f"{b.url}/items/{item['ibi']}/{suffix}"

    rep, ibip = paper["ibi"], paper["ibip"]
    # Both forms of the IBI, in any case.
    for spelling in (rep, rep.upper(), ibip, ibip.lower()):
        assert location(f"/{spelling}") == file(paper, "paper.pdf")
    # Every modifier (Table 8.2) that this collection gives an answer for.
    assert location(f"/{rep}!") == file(second, "paper2.pdf")
    assert location(f"/{ibip}!") == file(second, "paper2.pdf")
    assert location(f"/{rep}+(pt)") == file(translation, "artigo.pdf")
    assert location(f"/{rep}+(pt)!") == file(translation, "artigo.pdf")
    assert location(f"/{rep}+", **{"Accept-Language": "pt-BR,fr;q=0.8,en;q=0.5"}) == file(
        translation, "artigo.pdf")
    assert location(f"/{rep}+", **{"Accept-Language": "fr, de;q=0.5"}) == file(
        paper, "paper.pdf")  # no French: the original language
    assert location(f"/{rep}:") == page(paper, "metadata")
    assert location(f"/{rep}:(oai_dc)") == page(paper, "oai_dc.xml")
    assert location(f"/{rep}!:(oai_dc)") == page(second, "oai_dc.xml")
    assert location(f"/{rep}+(pt):") == page(translation, "metadata")
    assert location(f"/{rep}+:+", **{"Accept-Language": "pt"}) == page(translation, "metadata")
    missing = resolver.get(f"/{rep}+(de)")
    assert missing.status_code == 404 and "No translation in" in missing.text
    # A file path, the file list, a verb list, the Original.
    assert location(f"/{rep}/reference.bib") == file(paper, "reference.bib")
    assert resolver.get(f"/{rep}/nothing.bib").status_code == 404
    assert location(f"/{rep}?ibiurl.verblist=GetFileList") == page(paper, "files")
    assert location(f"/{rep}?ibiurl.verblist=GetLastEdition+GetMetadata(oai_dc)") == page(
        second, "oai_dc.xml")
    assert location(f"/{ibip}?ibiurl.requireditemstatus=Original") == file(paper, "paper.pdf")
    # HEAD: the same redirect, no body. Link headers name editions, translations, metadata.
    head = resolver.head(f"/{rep}")
    assert head.status_code == 302 and head.content == b""
    links = resolver.get(f"/{rep}+", headers={"Accept-Language": "en"}).headers["link"]
    assert f'<{a.url}/{rep}:(oai_dc)>; rel="describedby"' in links
    assert f'<{a.url}/{rep}!>; rel="latest-version"' in links
    assert f'<{a.url}/{rep}+(pt)>; rel="alternate"; hreflang="pt"' in links
    # A deleted item: its tombstone. An IBI no Archive holds: not found.
    tombstone = resolver.get(f"/{gone['ibip']}")
    assert tombstone.status_code == 410
    assert "This item was deleted on" in tombstone.text and gone["ibi"] in tombstone.text
    assert resolver.get("/ibi.test/nobody/2020/01.01.00.00").status_code == 404

    # The acknowledgment of a found URL reaches B, which counts the access. (A question asked
    # before is answered from what A remembers, its urlkey too, which B counts once.) Another
    # reader: the same one on the same URL within 30 s is a double click, counted once (#42, 12).
    before = b.query(ACKS)[0][0]
    with httpx.Client(base_url=a.url, timeout=30, headers={"User-Agent": BROWSER},
                      transport=httpx.HTTPTransport(local_address="127.0.0.2")) as other:
        assert other.get(f"/{ibip}:(oai_dc)").headers["location"] == page(paper, "oai_dc.xml")
    make.wait_until(lambda: b.query(ACKS)[0][0] == before + 1,
                    what="the acknowledgment counted at B")

    # F claims B's paper as its own Original: a conflict when the Original is required.
    with FakeArchiveService(FAKE_SERVICE) as fake:
        fake_url = f"http://{fake.address}/col/{rep}/doc/paper.pdf"
        fake.respond = fake_claims(fake, {rep.lower(), ibip.lower()}, fake_url)
        a.manage("registerarchive", FAKE_SERVICE, KEY)
        assert switch(a.url, "inclusionRequest", fake).text == (
            "status.archive included\r\nstatus.confirmation successful")
        conflict = resolver.get(f"/{rep}?ibiurl.requireditemstatus=Original")
        assert conflict.status_code == 409
        assert b.address in conflict.text and fake.address in conflict.text
        assert b_service in conflict.text and FAKE_SERVICE in conflict.text
        # A question not asked before: /{rep}'s answer is remembered, with B's urlkey. (A
        # third reader: the first asked for /{rep}, the same item, a moment ago.)
        with httpx.Client(base_url=a.url, timeout=30, headers={"User-Agent": BROWSER},
                          transport=httpx.HTTPTransport(local_address="127.0.0.3")) as third:
            assert third.get(f"/{rep}/paper.pdf").headers["location"] in (
                file(paper, "paper.pdf"), fake_url)
        def acknowledgments() -> int:
            return b.query(ACKS)[0][0] + len(fake.requests("acknowledgment"))

        make.wait_until(lambda: acknowledgments() == before + 2,
                        what="one more acknowledgment, at B or F")
        acknowledged = before + 2

        # Switched off, B and F are no longer asked.
        assert b.manage("switchoff", "--resolver", a.url, "--key", KEY).stdout == (
            "status.archive excluded\n")
        assert switch(a.url, "exclusionRequest", fake).text == "status.archive excluded"
        asked = len(fake.requests("urlRequest"))
        gone_now = resolver.get(f"/{rep}")
        assert gone_now.status_code == 404
        assert len(fake.requests("urlRequest")) == asked
        assert acknowledgments() == acknowledged


def test_gunicorn_hooks_switch_an_archive_on_and_off(network):
    """IBI_SWITCHON_RESOLVER and IBI_SWITCHON_KEY with ibirepo/gunicorn.py: included
    when the server is ready, excluded when it stops."""
    resolver = network.start("r")
    archive = network.prepare("c", IBI_SWITCHON_RESOLVER=resolver.url, IBI_SWITCHON_KEY=KEY)
    service = archive.shell("from archive.deposit import selectors; "
                            "print(selectors.archive_service().ibi)")
    resolver.manage("registerarchive", service, KEY)
    state = "SELECT included, address FROM archive_registeredarchive"

    archive.start(extra_args=("-c", "python:ibirepo.gunicorn"))
    make.wait_until(lambda: resolver.query(state) == [(1, archive.address)],
                    what="switched on after start-up")
    assert archive.stop() == 0
    make.wait_until(lambda: resolver.query(state) == [(0, archive.address)],
                    what="switched off after shutdown")
    assert re.search(r"switching this Archive off", archive.log.read_text())


def test_a_non_ascii_file_name_is_reached_through_either_archive_in_either_encoding(network):
    """§6.1, Example 6.2: non-ASCII bytes travel as %XX, UTF-8 (what browsers send) or
    ISO-8859-1 (the standard's own example); the resolver A passes the path on to B once
    escaped, and B finds the file whichever encoding reached it."""
    a, b = network.start("d"), network.start("e")
    a.manage("registerarchive", b.archive_service_ibi(), KEY)
    b.manage("switchon", "--resolver", a.url, "--key", KEY)
    item = make.deposited(b, b.librarian_token(), "Relatório",
                          ("Relatório Final.pdf", PDF + "Relatório Final.pdf".encode()))
    expected = f"{b.url}/col/{item['ibi']}/doc/Relat%C3%B3rio%20Final.pdf"

    for server in (a, b):
        for escaped in ("Relat%C3%B3rio%20Final.pdf", "Relat%F3rio%20Final.pdf"):
            for ibi in (item["ibi"], item["ibip"]):
                response = httpx.get(f"{server.url}/{ibi}/{escaped}", timeout=30)
                assert response.status_code == 302, (server.name, escaped, response.text[:300])
                assert response.headers["location"] == expected
    download = httpx.get(expected, timeout=30)
    assert download.status_code == 200 and download.content == PDF + "Relatório Final.pdf".encode()
