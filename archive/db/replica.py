"""Reads that may lag, served by a PostgreSQL read replica (DATABASE_REPLICA_URL) when there is one.

Which reads may lag is decided at the edges, explicitly: a view (or a block of one) declares
it with ``lagging_reads()``, and only there does the database router send reads to the
``replica`` alias::

    # archive/urls.py: home, search (and browse), OAI-PMH
    path("search", replica.lagging(views.search), name="search"),

    # the statistics, in the landing page's template tag and the API
    with replica.lagging_reads():
        counts = stats.item_statistics(item)

Everything else — resolution of persistent URLs, the archive service, the resolver service,
the REST API's item reads, the admin, every command — reads the primary, as does every write
anywhere. Inside a lagging block these still go to the primary:

* every write (``db_for_write`` is always the primary), and every read after the first write
  of the block, so that a view reads what it just wrote;
* every read inside a transaction on the primary (``transaction.atomic()``: a service's
  read-modify-write, ``select_for_update``), which must see its own snapshot.

The ORM follows the router; raw SQL in a selector that lagging pages call does too when it
asks Django where to read, ``connections[router.db_for_read(Item)]`` (``django.db.connection``
is always the primary).

No replica configured: no router is installed and ``lagging_reads`` costs one dict lookup.
A replica that cannot be reached does not take the site down: lagging reads go to the primary,
the outage is logged once (and the return once), and the replica is tried again after
``RETRY_SECONDS``. A connection that breaks during a request is the affair of the dropped-
connection middleware (archive/web/middleware.py): the GET is run again, and its lagging reads
then find the replica down.

In a test run the replica alias is a test MIRROR of default (settings.py), and tests/conftest.py
turns ENABLED off: a test's rows live in its own transaction on the primary, which a second
connection could not see, so lagging reads stay on default there. tests/test_replica.py and
tests/test_streaming_replica.py run the routing in real servers, the latter against a real
streaming replica.
"""
from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections

from ..runtime.breaker import Breaker

logger = logging.getLogger(__name__)

REPLICA = "replica"
RETRY_SECONDS = 10.0  # a replica found down is not tried again before this


class _Block:
    """One lagging block: the alias its reads go to (the primary once the block wrote)."""

    __slots__ = ("alias",)

    def __init__(self, alias: str) -> None:
        self.alias = alias


_block: ContextVar[_Block | None] = ContextVar("lagging_reads", default=None)
_lock = threading.Lock()
# The replica's breaker (runtime/breaker.py), on time.monotonic(): one refused or timed-out
# connection opens it for RETRY_SECONDS; its failures tell an outage and its end, logged once.
_breaker = Breaker()


# False: lagging reads read the primary even with a replica configured. tests/conftest.py sets
# it for the suite, whose rows live in each test's transaction on the primary.
ENABLED = True


def configured() -> bool:
    """Whether lagging reads may go to a replica: one is configured (and ENABLED)."""
    return ENABLED and REPLICA in settings.DATABASES


def _replica_up() -> bool:
    """Whether the replica answers; a refused or timed-out connection marks it down for
    RETRY_SECONDS. A connection kept from an earlier request is not checked again (that would
    cost a round trip): if the replica went away since, the first query fails and the
    request is retried (archive/web/middleware.py)."""
    if not _breaker.allows(time.monotonic()):
        return False
    connection = connections[REPLICA]
    try:
        connection.ensure_connection()
    except DatabaseError as exc:
        with _lock:
            if not _breaker.failures:
                logger.warning("the read replica is unreachable, lagging reads go to the "
                               "primary until it answers again: %s", str(exc).strip())
            _breaker.failed(time.monotonic(), seconds=RETRY_SECONDS)
        return False
    if _breaker.failures:
        with _lock:
            if _breaker.failures:
                _breaker.succeeded()
                logger.warning("the read replica answers again: lagging reads go to it")
    return True


@contextmanager
def lagging_reads() -> Iterator[str]:
    """Reads in this block may lag behind the primary: from the replica when one is
    configured and up. Yields the alias they go to (for raw SQL: ``connections[alias]``)."""
    if not configured():  # no replica, no router: nothing to decide
        yield DEFAULT_DB_ALIAS
        return
    if _block.get() is not None:  # nested: the outer block decided
        yield _block.get().alias
        return
    # Inside a transaction on the primary every read stays there (read_alias): no need to try
    # the replica.
    use = not connections[DEFAULT_DB_ALIAS].in_atomic_block
    alias = REPLICA if use and _replica_up() else DEFAULT_DB_ALIAS
    token = _block.set(_Block(alias))
    try:
        yield alias
    finally:
        _block.reset(token)


def lagging(view: Callable) -> Callable:
    """A view whose reads may lag (see lagging_reads)."""
    @functools.wraps(view)
    def wrapped(*args, **kwargs):
        with lagging_reads():
            return view(*args, **kwargs)
    return wrapped


def read_alias() -> str:
    """Where a read made now goes: for raw SQL in code that lagging views call."""
    block = _block.get()
    if block is None or connections[DEFAULT_DB_ALIAS].in_atomic_block:
        return DEFAULT_DB_ALIAS
    return block.alias


class ReplicaRouter:
    """settings.DATABASE_ROUTERS when DATABASE_REPLICA_URL is set: reads inside a lagging
    block to the replica, everything else to the primary."""

    def db_for_read(self, model, **hints) -> str:
        # Always an answer, never None: an object read from the replica does not drag the
        # reads of its relations there once the block is over (Django's instance hint).
        return read_alias()

    def db_for_write(self, model, **hints) -> str:
        block = _block.get()
        if block is not None:
            block.alias = DEFAULT_DB_ALIAS  # the block's later reads must see this write
        return DEFAULT_DB_ALIAS

    def allow_relation(self, obj1, obj2, **hints) -> bool | None:
        # The replica holds the primary's rows: an object read there may be linked to one
        # read from the primary.
        known = {DEFAULT_DB_ALIAS, REPLICA}
        return True if {obj1._state.db, obj2._state.db} <= known else None

    def allow_migrate(self, db, app_label, **hints) -> bool | None:
        return False if db == REPLICA else None  # it replays the primary's migrations
