"""Lagging reads against a REAL PostgreSQL streaming replica, lag included.

Needs the replica that `.ci/replica` builds and starts on 127.0.0.1:5433 (a hot standby
streaming from the primary on 5432), so this module carries the `replica` marker, which
pyproject.toml's addopts deselect (`-m "not replica"`): `make test` does not collect it — it is
deselected, not skipped — and `.ci/run` runs it in its PostgreSQL pass with `-m replica`, right
after `.ci/replica`. By hand: `.ci/replica && .venv/bin/python -m pytest -m replica
tests/test_streaming_replica.py`.

A database of its own is created on the primary; the replica holds it once it has replayed the
primary's WAL up to then: we wait for that by comparing the replica's `pg_last_wal_replay_lsn()`
with the primary's `pg_current_wal_lsn()` (polling, never a fixed sleep). A gunicorn server
(tests/servers.py) runs with DATABASE_URL on the primary and DATABASE_REPLICA_URL on the
replica. To make the replica lag on purpose, replay is paused (`pg_wal_replay_pause()`).
"""
from __future__ import annotations

import os
import time
import uuid
from urllib.parse import quote, urlencode

import httpx
import psycopg
import pytest

from archive.protocol.pairs import loads, to_dict
from tests import factories as make

from .servers import LiveServers

pytestmark = pytest.mark.replica

PRIMARY = {"host": "127.0.0.1", "port": 5432, "user": "postgres"}
REPLICA = {"host": "127.0.0.1", "port": int(os.environ.get("IBI_TEST_REPLICA_PORT", "5433")),
           "user": "postgres"}
CATCH_UP = 120  # seconds the replica may take to replay what the primary wrote (a busy machine)


def caught_up() -> None:
    """Returns once the replica has replayed everything the primary had written when called."""
    with psycopg.connect(**PRIMARY, dbname="postgres", autocommit=True) as primary:
        lsn = primary.execute("SELECT pg_current_wal_lsn()::text").fetchone()[0]
    with psycopg.connect(**REPLICA, dbname="postgres", autocommit=True) as replica:
        deadline = time.monotonic() + CATCH_UP
        while not replica.execute("SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn",
                                  [lsn]).fetchone()[0]:
            assert time.monotonic() < deadline, f"the replica did not replay up to {lsn}"
            time.sleep(0.02)  # polling interval, not a synchronisation


def on_replica(sql: str):
    with psycopg.connect(**REPLICA, dbname="postgres", autocommit=True) as replica:
        return replica.execute(sql).fetchone()[0]


@pytest.fixture(scope="module")
def server(tmp_path_factory, throwaway_postgres):
    try:
        standby = on_replica("SELECT pg_is_in_recovery()")
    except psycopg.OperationalError as exc:
        pytest.fail(f"no replica on port {REPLICA['port']}: run .ci/replica first ({exc})")
    assert standby, f"port {REPLICA['port']} is not a standby: run .ci/replica"
    url = throwaway_postgres("ibirepo_stream")
    name = url.rsplit("/", 1)[1]
    try:
        with LiveServers(tmp_path_factory.mktemp("stream")) as servers:
            live = servers.prepare(
                "app", DATABASE_URL=url,
                DATABASE_REPLICA_URL=f"postgres://postgres@127.0.0.1:{REPLICA['port']}/{name}")
            live.dbname = name
            live.token = live.librarian_token()
            caught_up()  # the migrated tables are on the replica before the first page
            live.start()
            yield live
    finally:
        on_replica("SELECT pg_wal_replay_resume()")


def searched(server, word: str) -> str:
    response = httpx.get(f"{server.url}/search", params={"q": word}, timeout=30)
    assert response.status_code == 200
    return response.text


def oai_record(server, ibi: str) -> str:
    response = httpx.get(f"{server.url}/oai", params={
        "verb": "GetRecord", "metadataPrefix": "oai_dc",
        "identifier": f"oai:{server.address}:{ibi}"}, timeout=30)
    assert response.status_code == 200
    return response.text


ROUTES = """
from django.contrib.auth.models import Group
from django.db import connections
from archive.deposit import selectors
from archive.db import replica

def served_by(alias):
    with connections[alias].cursor() as cursor:
        cursor.execute("SELECT inet_server_port(), pg_is_in_recovery()")
        return " ".join(str(value) for value in cursor.fetchone())

with replica.lagging_reads():
    listed = selectors.listed_items()
    list(listed[:1])
    print("read", listed.db, served_by(listed.db))
    group = Group.objects.create(name="{name}")
    print("write", group._state.db, served_by(group._state.db))
"""


def test_a_lagging_read_is_served_by_the_replica_and_a_write_by_the_primary(server):
    name = uuid.uuid4().hex
    lines = dict(line.split(" ", 1) for line in
                 server.shell(ROUTES.replace("{name}", name)).splitlines())

    assert lines["read"] == f"replica {REPLICA['port']} True"
    assert lines["write"] == "default 5432 False"
    with psycopg.connect(**PRIMARY, dbname=server.dbname) as primary:
        assert primary.execute("SELECT count(*) FROM auth_group WHERE name = %s",
                               [name]).fetchone()[0] == 1


def test_resolution_reads_the_primary_while_the_replica_lags(server):
    caught_up()
    on_replica("SELECT pg_wal_replay_pause()")
    try:
        deadline = time.monotonic() + CATCH_UP
        while on_replica("SELECT pg_get_wal_replay_pause_state()") != "paused":
            assert time.monotonic() < deadline
            time.sleep(0.02)  # polling interval: the pause takes effect between WAL records

        word = uuid.uuid4().hex
        item = make.deposited(server, server.token, f"Lagging {word}",
                              ("report.txt", b"the report"))  # a write: the primary took it

        # Resolution, the archive service, the API and the landing page: the primary, at once.
        found = httpx.get(f"{server.url}/{item['ibi']}", timeout=30)
        assert found.status_code == 302
        assert found.headers["Location"] == f"{server.url}/col/{item['ibi']}/doc/report.txt"
        assert httpx.get(found.headers["Location"], timeout=30).content == b"the report"
        service = server.archive_service_ibi()
        pairs = {"servicesubject": "urlRequest", "clientinformation.ipaddress": "10.0.0.1",
                 "parsedibiurl.ibi": item["ibi"]}
        answer = httpx.get(f"{server.url}/{service}?"
                           f"{urlencode(pairs, quote_via=quote, safe='/()')}", timeout=30)
        assert to_dict(loads(answer.text, strict=True))["url"].endswith("/doc/report.txt")
        assert httpx.get(f"{server.url}/api/items/{item['ibi']}", timeout=30).status_code == 200
        # (its statistics, a lagging read inside it, count nothing yet)
        assert httpx.get(f"{server.url}/items/{item['ibi']}", timeout=30).status_code == 200
        stats = httpx.get(f"{server.url}/api/items/{item['ibi']}/statistics", timeout=30)
        assert stats.status_code == 200 and stats.json()["item"]["total"] == 0

        # Search, the home page and OAI-PMH read the replica, which has not replayed it.
        assert item["ibi"] not in searched(server, word)
        assert item["ibi"] not in httpx.get(f"{server.url}/", timeout=30).text
        assert 'code="idDoesNotExist"' in oai_record(server, item["ibi"])
    finally:
        on_replica("SELECT pg_wal_replay_resume()")

    caught_up()
    assert item["ibi"] in searched(server, word)
    assert item["ibi"] in httpx.get(f"{server.url}/", timeout=30).text
    assert f"Lagging {word}" in oai_record(server, item["ibi"])
