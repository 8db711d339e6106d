"""Two application servers of one Archive on one database stay consistent.

What a deployment on two machines behind a load balancer does: two gunicorns (tests/servers.py)
with the same identification subsystem, the same database (a PostgreSQL
database of its own, created here whatever the suite runs on; then one SQLite file) and the
same files (one MEDIA_ROOT, as a shared disk or S3 would be). What one writes, the other
answers at once: resolution, the archive service and the item pages read the primary, and the
answer cache of every worker (and its kept item pages) learns of each change (PostgreSQL:
LISTEN/NOTIFY; SQLite: the change token read per request; changes.py). Deposits on both
at once mint distinct IBIs (the minting state's lock is in the database).

Each gunicorn runs one worker: a worker is a process with its own answer cache, whichever
server it belongs to, and with one worker a server the test knows which process answered —
with two, the kernel chooses, and a test could not make both answer.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from urllib.parse import quote, urlencode

import httpx
import pytest

from archive.protocol.pairs import loads, to_dict
from tests import factories as make

from .servers import LiveServers

PG = {"host": "127.0.0.1", "port": 5432, "user": "postgres", "dbname": "postgres"}


@pytest.fixture(scope="module", params=["postgresql", "sqlite"])
def pair(request, tmp_path_factory):
    """Two servers on one PostgreSQL database, then on one SQLite file (WAL mode: readers and
    one writer at a time, each request reading the answer cache's token)."""
    root = tmp_path_factory.mktemp("two")
    if request.param == "postgresql":
        url = request.getfixturevalue("throwaway_postgres")("ibirepo_two")
    else:
        url = f"sqlite:///{root / 'shared.sqlite3'}"
    shared = {"DATABASE_URL": url, "MEDIA_ROOT": str(root / "shared-media"),
              "IBI_HOSTNAME": "app.ibi.test", "IBI_IP": "192.0.2.7"}
    with LiveServers(root) as servers:
        a = servers.start("a", extra_args=("--workers", "1"), **shared)
        b = servers.start("b", extra_args=("--workers", "1"), **shared)
        a.token = b.token = a.librarian_token()
        yield a, b


def resolve(server, ibi: str) -> httpx.Response:
    return httpx.get(f"{server.url}/{ibi}", timeout=30)


def landing(server, ibi: str) -> httpx.Response:
    return httpx.get(f"{server.url}/items/{ibi}", timeout=30)


def url_request(server, ibi: str) -> dict:
    pairs = {"servicesubject": "urlRequest", "clientinformation.ipaddress": "10.0.0.1",
             "parsedibiurl.ibi": ibi}
    response = httpx.get(f"{server.url}/{server.archive_service_ibi()}?"
                         f"{urlencode(pairs, quote_via=quote, safe='/()')}", timeout=30)
    assert response.status_code == 200, response.text
    return to_dict(loads(response.text, strict=True))


def test_the_servers_are_one_archive(pair):
    a, b = pair
    assert a.archive_service_ibi() == b.archive_service_ibi()


def test_a_deposit_on_one_is_resolved_by_the_other_at_once(pair):
    a, b = pair
    item = make.deposited(a, a.token, "Deposited on A", ("report.txt", b"content of report.txt"))

    found = resolve(b, item["ibi"])
    assert found.status_code == 302
    assert found.headers["Location"] == f"{b.url}/col/{item['ibi']}/doc/report.txt"
    assert httpx.get(found.headers["Location"], timeout=30).content == b"content of report.txt"
    answer = url_request(b, item["ibi"])
    assert answer["url"] == f"http://{b.address}/col/{item['ibi']}/doc/report.txt"
    assert httpx.get(f"{b.url}/api/items/{item['ibi']}", timeout=30).json()["title"] == \
        "Deposited on A"


def test_a_change_on_one_is_seen_by_the_others_next_request(pair):
    a, b = pair
    item = make.deposited(a, a.token, "Two files", ("first.txt", b"content of first.txt"),
                          ("second.txt", b"content of second.txt"))
    # Both processes answer (and keep the answers and the landing page) before the change.
    for server in (a, b):
        assert resolve(server, item["ibi"]).headers["Location"].endswith("/doc/first.txt")
        assert url_request(server, item["ibi"])["url"].endswith("/doc/first.txt")
        assert "Two files" in landing(server, item["ibi"]).text

    patched = httpx.patch(f"{a.url}/api/items/{item['ibi']}",
                          json={"target_file": "second.txt", "title": "Renamed on A"},
                          headers={"Authorization": f"Token {a.token}"}, timeout=30)
    assert patched.status_code == 200, patched.text
    for server in (b, a):  # the other process, then the writer's own
        assert resolve(server, item["ibi"]).headers["Location"].endswith("/doc/second.txt")
        assert url_request(server, item["ibi"])["url"].endswith("/doc/second.txt")
        page = landing(server, item["ibi"]).text
        assert "Renamed on A" in page and "Two files" not in page

    deleted = httpx.request("DELETE", f"{a.url}/api/items/{item['ibi']}",
                            json={"reason": "withdrawn"},
                            headers={"Authorization": f"Token {a.token}"}, timeout=30)
    assert deleted.status_code == 200, deleted.text
    for server in (b, a):
        assert resolve(server, item["ibi"]).status_code == 410
        assert "url" not in url_request(server, item["ibi"])
        assert landing(server, item["ibi"]).status_code == 410


def test_deposits_on_both_at_once_mint_distinct_ibis(pair):
    a, b = pair
    with ThreadPoolExecutor(8) as pool:
        items = list(pool.map(lambda n: make.deposited(
            (a, b)[n % 2], a.token, f"Concurrent {n}", ("x.txt", b"x")), range(16)))
    ibis = {item["ibi"] for item in items}
    assert len(ibis) == 16
    for n, item in enumerate(items):  # each one resolved by the server that did not mint it
        assert resolve((b, a)[n % 2], item["ibi"]).status_code == 302
