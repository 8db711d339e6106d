"""The change token, and answers kept in each process until any item or file changes.

The archive service and the resolver answer most requests about the same few items again and
again, and their answers depend only on the rows of ``archive_item`` and ``archive_itemfile``
(besides the request's host and the settings). So each process keeps the answers it built, and
the database tells when they are stale: database triggers give the one-row table
``archive_changes`` a new random token whenever a row of those tables is inserted, updated or
deleted (or the table truncated), by the ORM, bulk operations, raw SQL or ``psql`` alike; so do
writes to ``archive_dcvalue`` and ``archive_itemsearch``, what search and its facets read, so
that search results kept under the token are never stale either, even after a write that leaves
an item's search entry as it was (a value's case changed); and so do writes to
``archive_registeredarchive`` (an Archive included or excluded), what the resolver's
remembered answers of other Archives rest on (migration 0022); and so does a file's thumbnail
appearing, changing or going (``archive_fileextraction``, migration 0050), which item pages
show. An
answer is used only under the token it was built under, and built only after its token was
read, so it is never older than its token. The site's item pages keep what they show the same
way, in a `Store` of their own (archive/site/views.py), and search keeps its results in the
shared cache under the token read where it reads (`token(alias)`: the replica, when one serves
the page).

How a request learns the token, without a round trip to the database:

* SQLite: it reads the row, straight from the driver (a few microseconds, in process).
* PostgreSQL: the trigger also announces the new token (``NOTIFY archive_changes``). The first
  time a connection serves the cache it LISTENs and reads the row; after that a request only
  picks up what has arrived on the connection's socket, which never waits. A transaction
  committed on that very connection is announced to it before its commit returns, so a
  process always sees its own changes at once. Another process's commit is seen as soon as
  PostgreSQL has delivered its announcement, microseconds after the commit; a request that
  comes in that instant gets the answer of just before the commit, as if it had come a moment
  earlier. A database whose trigger does not announce yet (one not migrated by this version),
  or a deployment that turned listening off (``DATABASE_LISTEN``, e.g. behind a pooler in
  transaction mode, which does not pass announcements on), is read on every request instead.

Rules that keep this exact:

* Inside a transaction nothing is read from or written to the cache: that transaction may see
  (or make) changes that are not committed yet, or never will be.
* The token is random, not a counter, so a rolled-back change never brings back an old token.
* On PostgreSQL the token changes at commit (a deferred trigger, once per transaction), so
  concurrent writers wait for each other only for that instant, and announcements arrive in
  the order of the commits.
* A settings change (tests' ``override_settings``) empties the cache.

The table and its triggers are migration 0012_change_token's (tests/test_migrations.py checks
that every migration leaves them in place).
"""
from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any

from django.conf import settings
from django.core.signals import setting_changed
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections
from django.dispatch import receiver

TABLE = "archive_changes"
MAX_ENTRIES = 10_000


def token(alias: str = DEFAULT_DB_ALIAS) -> str | None:
    """The current token as the database `alias` has it (a read replica: as far as it has
    replayed), or None when the cache must not be used (inside a transaction on it or on the
    primary, or the table is missing: a database not migrated by this version). Read with the
    driver, not the ORM: this runs on every request."""
    connection = connections[alias]  # once: each look through the proxy costs
    if connection.in_atomic_block or (
            alias != DEFAULT_DB_ALIAS and connections[DEFAULT_DB_ALIAS].in_atomic_block):
        return None
    try:
        if connection.connection is None:  # what ensure_connection does, without its guards
            connection.ensure_connection()
        # A replica in recovery cannot LISTEN: its row is read.
        if (connection.vendor == "postgresql" and settings.DATABASE_LISTEN
                and alias == DEFAULT_DB_ALIAS):
            return _announced(connection.connection)
        if connection.vendor in ("postgresql", "sqlite"):
            row = connection.connection.execute(_READ).fetchone()
            return row[0] if row else None
    except (DatabaseError, connection.Database.Error):
        return None  # e.g. no such table: a database this version did not migrate
    return None


_READ = f"SELECT token FROM {TABLE} WHERE id = 1"


class _Listener:
    """What one PostgreSQL connection has heard: the latest token announced to it."""

    def __init__(self, raw) -> None:
        self.token: str | None = None
        self.heard = 0
        # Announcements read while the connection runs a query (e.g. its own commit's).
        raw.add_notify_handler(self.hear)
        try:
            with raw.cursor() as cursor:
                cursor.execute(f"LISTEN {TABLE}")
                while True:  # until a reading with no announcement in between: the latest
                    heard = self.heard
                    cursor.execute(f"SELECT ({_READ}), (SELECT bool_or(prosrc LIKE "
                                   f"'%pg_notify%') FROM pg_proc WHERE proname = "
                                   f"'{TABLE}_renew')")
                    token, self.announced = cursor.fetchone()
                    if heard == self.heard:
                        break
        except BaseException:
            raw.remove_notify_handler(self.hear)
            raise
        self.token = token

    def hear(self, notify) -> None:
        if notify.channel == TABLE:
            self.token = notify.payload
            self.heard += 1


_listeners: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # raw connection → _Listener


def _announced(raw) -> str | None:
    """The token, from what PostgreSQL announced to this connection so far."""
    listener = _listeners.get(raw)
    if listener is None:
        listener = _listeners[raw] = _Listener(raw)
    if not listener.announced:  # an older trigger, which does not announce: read the row
        row = raw.execute(_READ).fetchone()
        return row[0] if row else None
    pgconn = raw.pgconn
    pgconn.consume_input()  # what has arrived on the socket; never waits
    while (notify := pgconn.notifies()) is not None:
        if notify.relname.decode() == TABLE:
            listener.token = notify.extra.decode()
    return listener.token


class Store:
    """Answers kept under a token, at most `limit` of them (the least recently used goes
    first); all of them go when the token changes. Safe for a worker's threads."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._lock = threading.Lock()
        # (token, answers built under it), replaced as a whole when the token changes.
        self._generation: tuple[str | None, OrderedDict[Hashable, Any]] = (None, OrderedDict())
        _stores.add(self)

    def get(self, key: Hashable, current: str | None) -> Any | None:
        """The answer stored under key for this token, or None."""
        if current is None:
            return None
        with self._lock:
            token, entries = self._generation
            if current != token:  # a new generation: what was built before goes
                self._generation = (current, OrderedDict())
                return None
            found = entries.get(key)
            if found is not None:
                entries.move_to_end(key)
            return found

    def put(self, key: Hashable, current: str | None, value: Any) -> None:
        """Keep value for key, if it was built under the token that is still ours: a build
        that a newer token overtook meanwhile (another thread) is dropped, never kept under
        the new one."""
        with self._lock:
            token, entries = self._generation
            if current is None or current != token:
                return
            entries[key] = value
            entries.move_to_end(key)
            while len(entries) > self.limit:
                entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._generation = (None, OrderedDict())


_stores: weakref.WeakSet[Store] = weakref.WeakSet()
# The resolver's, the archive service's and OAI-PMH's answers: small, many.
_answers = Store(MAX_ENTRIES)
get, put = _answers.get, _answers.put


@receiver(setting_changed)
def clear(**kwargs) -> None:
    for store in list(_stores):
        store.clear()
