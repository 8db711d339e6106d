"""The database kills our connections between two requests (a restart, a failover, an
administrator's pg_terminate_backend): a read is answered all the same, a write is a 503 with
Retry-After that wrote nothing, and neither is ever a 500.

Always against a real PostgreSQL, whatever the suite runs on: a gunicorn worker of
tests/servers.py on a database of its own, keeping its connection between requests
(CONN_MAX_AGE), whose backends the test terminates from another connection.
"""
from __future__ import annotations

import httpx
import psycopg
import pytest

from tests import factories as make

from .faults import held_after_commit
from .servers import LiveServers, free_port

PG = {"host": "127.0.0.1", "port": 5432, "user": "postgres", "dbname": "postgres"}


def kill_backends(dbname: str, pids: list[int] | None = None) -> int:
    """What an administrator (or a failover) does, from a connection of its own: to every
    session of the database, or to those."""
    with psycopg.connect(**PG, autocommit=True) as admin:
        return admin.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = %s AND pid <> pg_backend_pid() "
            "AND (%s::int[] IS NULL OR pid = ANY(%s))", [dbname, pids, pids]).fetchone()[0]


@pytest.fixture(scope="module")
def server(tmp_path_factory, throwaway_postgres):
    url = throwaway_postgres("ibirepo_drops")
    with LiveServers(tmp_path_factory.mktemp("drops")) as servers:
        # One worker: every request meets the connection the test kills.
        live = servers.start("drops", extra_args=("--workers", "1"), DATABASE_URL=url)
        live.dbname = url.rsplit("/", 1)[1]
        live.token = live.librarian_token()
        yield live


def items(server) -> int:
    return int(server.shell("from archive.models import Item; "
                            "print(Item.objects.filter(is_archive_service=False).count())"))


def test_a_read_after_the_kill_is_retried_once_and_answered(server):
    item = make.deposit_request(server, server.token, "Report", ("x.txt", b"x")).json()
    assert httpx.get(f"{server.url}/api/items/{item['ibi']}", timeout=30).status_code == 200
    assert kill_backends(server.dbname) >= 1

    response = httpx.get(f"{server.url}/api/items/{item['ibi']}", timeout=30)

    assert response.status_code == 200 and response.json()["title"] == "Report"


def test_a_page_read_after_the_kill_is_answered_too(server):
    item = make.deposit_request(server, server.token, "Page", ("x.txt", b"x")).json()
    assert httpx.get(f"{server.url}/items/{item['ibi']}", timeout=30).status_code == 200
    assert kill_backends(server.dbname) >= 1
    assert httpx.get(f"{server.url}/items/{item['ibi']}", timeout=30).status_code == 200


def test_a_write_after_the_kill_is_a_503_with_retry_after_and_writes_nothing(server):
    assert httpx.get(f"{server.url}/api/items/", timeout=30).status_code == 200
    before = items(server)
    assert kill_backends(server.dbname) >= 1

    response = make.deposit_request(server, server.token, "Half", ("x.txt", b"x"))

    assert response.status_code == 503
    assert int(response.headers["Retry-After"]) > 0
    assert "send the request again" in response.json()["detail"]
    assert items(server) == before
    # Sent again, it is done.
    again = make.deposit_request(server, server.token, "Whole", ("x.txt", b"x"))
    assert again.status_code == 201, again.text
    assert items(server) == before + 1


def test_a_deposit_whose_connection_drops_after_its_commit_says_what_it_made(server):
    """The connection killed after the deposit's commit, while its record is read back for
    the 201 (issue #30, 1): the answer names the item made, never "send it again", and a
    client that sends it again all the same gets that item, not a second one."""
    before = items(server)
    with held_after_commit(lambda dsn: psycopg.connect(**{**PG, "dbname": dsn}),
                           server.dbname) as held:
        answer = held.run(lambda: make.deposit_request(server, server.token, "Committed",
                                                       ("x.txt", b"x"), creator="Banon"))
        assert kill_backends(server.dbname, [held.app]) == 1
    response = answer.result(timeout=60)
    assert response.status_code == 303, response.text
    location = response.headers["Location"]
    ibi = location.split("/api/items/", 1)[1]
    assert response.json() == {"detail": (
        f"done: {ibi} was written, but the database connection was lost before the answer "
        "could be read back; read the item at the Location, and do not send the request "
        "again")}
    assert httpx.get(location, timeout=30).json()["title"] == "Committed"
    again = make.deposit_request(server, server.token, "Committed", ("x.txt", b"x"),
                                 creator="Banon")
    assert again.status_code == 201 and again.json()["ibi"] == ibi
    assert again.headers["Idempotent-Replayed"] == "true"
    assert items(server) == before + 1


def test_a_database_that_refuses_connections_is_a_503_everywhere(tmp_path):
    """PostgreSQL restarting refuses connections (issue #30, 7): every channel answers 503
    with Retry-After in its own terms, a read after one retry, never a 500."""
    with LiveServers(tmp_path) as servers:
        down = servers.prepare("down", migrate=False,
                               DATABASE_URL=f"postgres://postgres@127.0.0.1:{free_port()}/x")
        down.start(extra_args=("--workers", "1"))
        api = httpx.get(f"{down.url}/api/items/", timeout=30)
        page = httpx.get(f"{down.url}/", timeout=30)
        resolved = httpx.get(f"{down.url}/LK47B6W/362SFKH", timeout=30)
        service = httpx.get(f"{down.url}/x.org/a/2024/01.02.03.04?servicesubject=urlRequest",
                            timeout=30)
        deposit = make.deposit_request(down, "0" * 40, "Nowhere", ("x.txt", b"x"))
    message = ("the database is not available at the moment: send the request again in a "
               "few seconds")
    for response in (api, page, resolved, service, deposit):
        assert (response.status_code, response.headers["Retry-After"]) == (503, "5")
    assert api.json() == deposit.json() == {"detail": message}
    assert page.text == resolved.text == message + "\n"
    assert service.content == b"error {" + message.encode() + b"}"
    assert "Traceback" not in (tmp_path / "down" / "server.log").read_text()


@pytest.mark.django_db
def test_a_real_database_error_is_still_a_500(client, monkeypatch):
    from django.db import OperationalError

    from archive.deposit import selectors

    def broken(*args, **kwargs):
        raise OperationalError("a bug, not a dropped connection")

    monkeypatch.setattr(selectors, "item_by_ibi", broken)
    client.raise_request_exception = False
    assert client.get("/api/items/LK47B6W/362SFKH", secure=True).status_code == 500


@pytest.mark.parametrize(("path", "type_", "body"), [
    ("/api/items/", "application/json", b'{"detail": "the database connection was lost: '
                                        b'send the request again"}'),
    ("/x.org/a/2024/01.02.03.04?servicesubject=urlRequest", "text/plain; charset=us-ascii",
     b"error {the database connection was lost: send the request again}"),
    ("/", "text/plain; charset=utf-8",
     b"the database connection was lost: send the request again\n"),
])
def test_the_503_speaks_each_callers_language(rf, path, type_, body):
    """JSON for the API, a Table 6.2 pair list (no LF) for the services, a line elsewhere."""
    from archive.web.middleware import unavailable

    response = unavailable(rf.post(path))
    assert response.status_code == 503 and response["Retry-After"] == "2"
    assert response["Content-Type"] == type_ and response.content == body
