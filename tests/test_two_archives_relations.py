"""A local Copy and the relations of its Original, between two real Archives on loopback.

A is an Archive and the resolver; B an Archive registered at A and switched on. A copies B's
first edition; then B deposits a second and a third edition and a pt translation. A's Copy
knows none of them, so the resolver must not settle on it for ``!``, ``+(pt)`` or the
Original required: those go to B (RTC-11 §8.2). A refresh of the copy brings the relations
along, and A's archive service names them. A plain persistent URL still takes A's Copy, also
when B is down.
"""
from __future__ import annotations

import httpx
import pytest

from archive.protocol.pairs import loads, to_dict
from tests import factories as make

from .servers import LiveServers

KEY = "3456789012-2109876543"


@pytest.fixture(scope="module")
def network(tmp_path_factory):
    with LiveServers(tmp_path_factory.mktemp("relations-net")) as servers:
        yield servers


def url_request(server, ibi: str, verbs: str) -> dict:
    response = httpx.get(f"{server.url}/{server.archive_service_ibi()}", timeout=30, params={
        "servicesubject": "urlRequest", "clientinformation.ipaddress": "192.0.2.9",
        "parsedibiurl.ibi": ibi, "parsedibiurl.verblist": verbs})
    assert response.status_code == 200, response.text
    return to_dict(loads(response.text, strict=True))


def test_a_local_copy_does_not_settle_what_its_original_knows_better(network):
    a, b = network.start("a"), network.start("b")
    a.manage("registerarchive", b.archive_service_ibi(), KEY, "--email", "admin@b.ibi.test")
    assert "included" in b.manage("switchon", "--resolver", a.url, "--key", KEY).stdout
    token = b.librarian_token()
    first = make.deposited(b, token, "first", ("first.pdf", b"%PDF-1.4 first\n"),
                           target_file="first.pdf", language="en")
    rep = first["ibi"]
    assert a.manage("copyitem", rep, "--from", b.url).stdout.strip() \
        == f"{rep}: created, 1 file fetched"
    second = make.deposited(b, token, "second", ("second.pdf", b"%PDF-1.4 second\n"),
                            target_file="second.pdf", language="en", previous_edition=rep)
    third = make.deposited(b, token, "third", ("third.pdf", b"%PDF-1.4 third\n"),
                           target_file="third.pdf", language="en", previous_edition=second["ibi"])
    pt = make.deposited(b, token, "primeira", ("primeira.pdf", b"%PDF-1.4 primeira\n"),
                        target_file="primeira.pdf", language="pt", translation_of=rep)

    resolver = httpx.Client(base_url=a.url, follow_redirects=False, timeout=30)

    def location(path: str) -> str:
        response = resolver.get(path)
        assert response.status_code == 302, (path, response.status_code, response.text[:300])
        return response.headers["location"]

    to_third = f"{b.url}/col/{third['ibi']}/doc/third.pdf"
    to_pt = f"{b.url}/col/{pt['ibi']}/doc/primeira.pdf"
    to_copy = f"{a.url}/col/{rep}/doc/first.pdf"
    # The Copy as copied knows no later edition and no translation: B is asked.
    assert location(f"/{rep}!") == to_third
    assert location(f"/{rep}!?ibiurl.requireditemstatus=Original") == to_third
    assert location(f"/{rep}+(pt)") == to_pt
    assert location(f"/{rep}?ibiurl.requireditemstatus=Original") \
        == f"{b.url}/col/{rep}/doc/first.pdf"
    assert location(f"/{rep}") == to_copy  # the item itself: the Copy is enough

    # Refreshed, the Copy knows its Original's relations; A's archive service names them,
    # marking what it holds as a Copy, and gives no URL for what it does not hold.
    assert a.manage("copyitem", "--refresh").stdout.strip() == f"{rep}: updated"
    named = url_request(a, rep, "GetTranslation(pt)")
    assert named["ibi.translation(pt)"] == ["rep", pt["ibi"]]
    assert named["ibi.nextedition"] == ["rep", second["ibi"]]
    assert not any(name.startswith("url") for name in named)
    own = url_request(a, rep, "GetTranslation(en)")
    assert (own["state.translation(en)"], own["url.translation(en)"]) == ("Copy", to_copy)
    assert "url.lastedition" not in url_request(a, rep, "GetLastEdition")
    assert location(f"/{rep}!") == to_third
    assert location(f"/{rep}!?ibiurl.requireditemstatus=Original") == to_third
    assert location(f"/{rep}+(pt)") == to_pt

    # B down: the item itself still resolves to A's Copy.
    b.stop()
    assert location(f"/{rep}") == to_copy
    assert location(f"/{rep}?ibiurl.verblist=GetFileList") == f"{a.url}/items/{rep}/files"
