"""Lagging reads and the read replica (archive/db/replica.py), in every run of the suite.

Real servers (tests/servers.py) on a PostgreSQL database of their own, whatever the suite runs
on, with DATABASE_REPLICA_URL naming

* a closed port: a replica that is down. The site answers from the primary and says so once;
* the primary itself, as a stand-in replica: which alias each read and write goes to.

The same routing against a real streaming replica, lag included: tests/test_streaming_replica.py
(CI's PostgreSQL pass).
"""
from __future__ import annotations

import contextlib
import socket
import threading
import uuid

import httpx
import pytest

from tests import factories as make

from .servers import LiveServers, free_port
from .test_settings import PRODUCTION

PG = {"host": "127.0.0.1", "port": 5432, "user": "postgres", "dbname": "postgres"}
DOWN = "the read replica is unreachable"


@pytest.fixture(scope="module")
def database(throwaway_postgres):
    return throwaway_postgres("ibirepo_replica")


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    with LiveServers(tmp_path_factory.mktemp("replica")) as live:
        yield live


def test_a_replica_that_is_down_sends_lagging_reads_to_the_primary_and_says_so_once(
        servers, database):
    # One worker, so that "once" is one line: each process says it once.
    server = servers.start("down", extra_args=("--workers", "1"), DATABASE_URL=database,
                           DATABASE_REPLICA_URL=f"postgres://postgres@127.0.0.1:{free_port()}"
                                                "/ibirepo")
    server.token = server.librarian_token(server.name)
    word = uuid.uuid4().hex
    item = make.deposited(server, server.token, f"Down {word}", ("report.txt", b"text"))

    for _ in range(3):
        found = httpx.get(f"{server.url}/search", params={"q": word}, timeout=30)
        assert found.status_code == 200 and item["ibi"] in found.text
        assert httpx.get(f"{server.url}/", timeout=30).status_code == 200
        oai = httpx.get(f"{server.url}/oai", params={"verb": "ListIdentifiers",
                                                     "metadataPrefix": "oai_dc"}, timeout=30)
        assert oai.status_code == 200 and item["ibi"] in oai.text
        stats = httpx.get(f"{server.url}/api/items/{item['ibi']}/statistics", timeout=30)
        assert stats.status_code == 200 and stats.json()["item"]["total"] == 0
        assert httpx.get(f"{server.url}/items/{item['ibi']}", timeout=30).status_code == 200

    assert server.log.read_text().count(DOWN) == 1


ROUTES = """
from django.contrib.auth.models import Group
from django.db import connections, router, transaction
from archive.deposit import selectors
from archive.models import Item
from archive.db import replica

def where(queryset):
    list(queryset[:1])
    return queryset.db

print("outside", where(selectors.listed_items()))
with replica.lagging_reads() as alias:
    raw = Item.objects.raw("SELECT * FROM archive_item")
    print("block", alias, where(selectors.listed_items()), raw.db)
    print("read_alias", replica.read_alias())
    with transaction.atomic():
        print("atomic", where(Item.objects.all()), where(Item.objects.select_for_update()))
    print("write", router.db_for_write(Group), Group.objects.create(name="{name}")._state.db)
    print("after-write", where(Group.objects.filter(name="{name}")))
print("outside-again", where(selectors.listed_items()))
"""


def test_only_reads_inside_a_lagging_block_go_to_the_replica_and_writes_never_do(
        servers, database):
    server = servers.prepare("routes", DATABASE_URL=database, DATABASE_REPLICA_URL=database)
    lines = dict(line.split(" ", 1) for line in
                 server.shell(ROUTES.replace("{name}", uuid.uuid4().hex)).splitlines())

    assert lines["outside"] == "default"
    assert lines["block"] == "replica replica replica"
    assert lines["read_alias"] == "replica"
    # A transaction sees its own snapshot on the primary; select_for_update is a write.
    assert lines["atomic"] == "default default"
    assert lines["write"] == "default default"
    # Once the block wrote, it reads what it wrote: from the primary.
    assert lines["after-write"] == "default"
    assert lines["outside-again"] == "default"


def test_without_a_replica_everything_reads_the_primary(servers, database):
    server = servers.prepare("primary-only", DATABASE_URL=database)
    out = server.shell("from django.conf import settings; from archive.db import replica\n"
                       "with replica.lagging_reads() as alias:\n"
                       "    print(alias, replica.read_alias(), settings.DATABASE_ROUTERS)")
    assert out == "default default []"


def test_a_replica_that_is_not_postgresql_stops_the_start(manage_py):
    result = manage_py("check", **{**PRODUCTION, "DATABASE_REPLICA_URL": "sqlite:///replica.db"})
    assert result.returncode != 0
    assert "DATABASE_REPLICA_URL names a PostgreSQL read replica" in result.stderr


class Forwarder:
    """A TCP relay on loopback to PostgreSQL: a stand-in replica that the test can take down
    (close) under a running server, its open connections cut."""

    def __init__(self, port: int = 5432) -> None:
        self.target = port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.sockets: list[socket.socket] = []
        self.relayed = 0  # bytes, both ways: how much the replica was used
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def port(self) -> int:
        return self.listener.getsockname()[1]

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return  # closed
            upstream = socket.create_connection(("127.0.0.1", self.target))
            self.sockets += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
                self.relayed += len(data)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        # shutdown first: a bare close() leaves the port listening while accept() waits in
        # the other thread.
        with contextlib.suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)
        self.listener.close()
        for s in self.sockets:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)


def test_a_replica_that_goes_down_under_a_running_site_is_replaced_by_the_primary(
        servers, database):
    forwarder = Forwarder()
    name = database.rsplit("/", 1)[1]
    server = servers.start("goes-down", extra_args=("--workers", "1"), DATABASE_URL=database,
                           DATABASE_REPLICA_URL=f"postgres://postgres@127.0.0.1:"
                                                f"{forwarder.port}/{name}")
    server.token = server.librarian_token(server.name)
    word = uuid.uuid4().hex
    before = forwarder.relayed
    item = make.deposited(server, server.token, f"Goes down {word}", ("report.txt", b"text"))
    assert httpx.get(f"{server.url}/api/items/{item['ibi']}", timeout=30).status_code == 200
    assert forwarder.relayed == before  # the deposit, the API: the primary
    assert item["ibi"] in httpx.get(f"{server.url}/search", params={"q": word},
                                    timeout=30).text
    assert forwarder.relayed > before  # search read the (stand-in) replica

    forwarder.close()  # the replica goes away, with the connection the worker keeps to it

    for _ in range(3):
        found = httpx.get(f"{server.url}/search", params={"q": word}, timeout=30)
        assert found.status_code == 200 and item["ibi"] in found.text
    assert server.log.read_text().count(DOWN) == 1
