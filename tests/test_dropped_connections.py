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

from .servers import LiveServers

PG = {"host": "127.0.0.1", "port": 5432, "user": "postgres", "dbname": "postgres"}


def kill_backends(dbname: str) -> int:
    """What an administrator (or a failover) does, from a connection of its own."""
    with psycopg.connect(**PG, autocommit=True) as admin:
        return admin.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = %s AND pid <> pg_backend_pid()", [dbname]).fetchone()[0]


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
