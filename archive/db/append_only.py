"""Tables the database itself keeps append-only: PREMIS events (migration 0054's triggers).

On PostgreSQL a row trigger refuses every UPDATE and DELETE; TRUNCATE, the owner's
maintenance that `flush` uses, is not a row's deletion and passes. SQLite has no TRUNCATE:
its trigger refuses a DELETE unless the connection says it is flushing, through a function
registered on each of the app's connections (`ibirepo_flushing()`). A connection that does
not have it (the sqlite3 shell, another program) cannot delete an event at all: the trigger
fails on the missing function.

Only `manage.py flush` (archive/management/commands/flush.py: the suite's cleaning between
transactional tests, an operator emptying a database on purpose) runs inside `flushing()`.
"""
from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from django.db.backends.signals import connection_created

_state = threading.local()

SQLITE_FUNCTION = "ibirepo_flushing"


@contextmanager
def flushing() -> Iterator[None]:
    """This thread is emptying the database on purpose: SQLite's trigger lets events go."""
    _state.on = True
    try:
        yield
    finally:
        _state.on = False


def _flushing() -> int:
    return int(getattr(_state, "on", False))


def _register(sender, connection, **kwargs) -> None:
    if connection.vendor == "sqlite":
        connection.connection.create_function(SQLITE_FUNCTION, 0, _flushing)


def install() -> None:
    """Give each new SQLite connection of the app the function its trigger asks (apps.ready)."""
    connection_created.connect(_register, dispatch_uid="archive.db.append_only")
