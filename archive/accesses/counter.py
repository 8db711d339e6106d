"""Accesses counted off the reader's request: in batches, written after a response is sent.

Every GET of a persistent URL held here counts one access (resolver.count_local_access), the
acknowledgment §8.2 sends "in the background". Written in the request, its INSERT and commit
would be the largest part of a redirect's cost (bench/resolver.py). So a count only joins the
process's pending batch, and the batch is written, one multi-row INSERT and one commit, once
its first row is BATCH_SECONDS old:

* by whichever request of this process finishes next (the `request_finished` signal, after
  the response went out: no reader waits for it);
* else, when no request follows, by a helper thread that checks each batch once it is due;
* by `flush()`, which writes what is pending at once: the statistics run it before they read,
  and a graceful exit (atexit) runs it.

A writer thread that took every batch would cost each request more than this does: it would
compete with the requests for the interpreter lock at every call into the database driver
(bench/README.md). On PostgreSQL the batch's commit does not wait for the disk.

* Inside a transaction (a caller's atomic block, or the one wrapping a test) the row is written
  in that transaction instead, so that it commits or rolls back with it.
* What can be lost: the pending batch when the process is killed without warning (SIGKILL,
  power loss): the counts of at most the last BATCH_SECONDS or so. A database error is logged
  with the rows it cost; an item removed meanwhile just has nothing left to count.
"""
from __future__ import annotations

import atexit
import logging
import os
import threading
import time
from collections.abc import Sequence
from datetime import datetime

from django.core.signals import request_finished
from django.db import (
    DEFAULT_DB_ALIAS,
    DatabaseError,
    IntegrityError,
    connection,
    connections,
    transaction,
)

from ..models import Access

logger = logging.getLogger(__name__)

BATCH_SECONDS = 0.1  # how long a row waits for others to share its commit (unless flushed)

_INSERT = (f"INSERT INTO {Access._meta.db_table} (item_id, kind, relation, urlkey, client_ips, at)"
           " VALUES ")
_ROW = "(%s, %s, %s, NULL, %s, %s)"
ROWS_PER_STATEMENT = 500  # 2 500 parameters: within every SQLite's limits
_COPY = (f"COPY {Access._meta.db_table} (item_id, kind, relation, client_ips, at) FROM STDIN")
Row = tuple[int, str, str, datetime]  # item, relation, client IPs, time

_lock = threading.Lock()  # guards _pending and _since
_writing = threading.Lock()  # held while a batch is written: flush() waits for it
_pending: list[Row] = []
_since = 0.0  # time.monotonic() of the pending batch's first row
_arrived = threading.Event()  # a batch began: the helper thread watches it
_helper: threading.Thread | None = None


def count(item_id: int, client_ips: Sequence[str], relation: str, at: datetime) -> None:
    """Count one acknowledged access to item_id (see the module docstring for when)."""
    global _since
    row = (item_id, relation, " ".join(client_ips), at)
    if connections[DEFAULT_DB_ALIAS].in_atomic_block:
        _insert([row])  # its foreign key is checked at the caller's commit
        return
    with _lock:
        first = not _pending
        if first:
            _since = time.monotonic()
            _start_helper()
        _pending.append(row)
    if first:
        _arrived.set()  # after the append: the helper must find the row when it looks


def flush(timeout: float = 10.0) -> bool:
    """Write every pending row now; False if a batch being written took longer than timeout,
    or if called inside a transaction (the rows would share its fate: they stay pending)."""
    if connections[DEFAULT_DB_ALIAS].in_atomic_block or not _writing.acquire(timeout=timeout):
        return False
    try:
        _write(_take(due_only=False))
    finally:
        _writing.release()
    return True


def _write_due(**kwargs) -> None:
    """Write the pending batch if it is due, unless another thread is writing one."""
    if _pending and time.monotonic() - _since >= BATCH_SECONDS \
            and not connections[DEFAULT_DB_ALIAS].in_atomic_block \
            and _writing.acquire(blocking=False):
        try:
            _write(_take(due_only=True))
        finally:
            _writing.release()


def _take(*, due_only: bool) -> list[Row]:
    global _pending
    with _lock:
        if due_only and time.monotonic() - _since < BATCH_SECONDS:
            return []
        rows, _pending = _pending, []
    return rows


def _start_helper() -> None:
    global _helper
    if _helper is None or not _helper.is_alive():
        _helper = threading.Thread(target=_watch, name="access-counter", daemon=True)
        _helper.start()


def _watch() -> None:
    """The helper thread: writes a batch that no request came to write."""
    while True:
        _arrived.wait()
        _arrived.clear()
        while _pending:
            time.sleep(max(0.0, _since + 2 * BATCH_SECONDS - time.monotonic()))
            with _writing:
                rows = _take(due_only=True)
                if rows:
                    _write(rows)
                    connection.close()  # this thread's own: rarely used, not kept open


def _write(rows: list[Row]) -> None:
    if not rows:
        return
    try:
        _insert(rows)
    except IntegrityError:  # an item removed meanwhile: count the others one by one
        for row in rows:
            try:
                _insert([row])
            except IntegrityError:
                logger.info("access to item %s not counted: the item is gone", row[0])
    except DatabaseError:  # e.g. the database went read-only: log what it cost, serve on
        logger.exception("%d accesses not counted", len(rows))


def _insert(rows: list[Row]) -> None:
    own = not connection.in_atomic_block  # else the caller's transaction decides its commit
    kind = Access.Kind.ACKNOWLEDGMENT.value
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            if own:
                # Counts, not deposits: a crash of the database server may lose the last
                # fraction of a second of them, and no commit waits for an fsync.
                cursor.execute("SET LOCAL synchronous_commit TO OFF")
            # PostgreSQL's fastest way in, on the driver's cursor: its errors made Django's.
            with connection.wrap_database_errors, cursor.cursor.copy(_COPY) as copy:
                for item_id, relation, ips, when in rows:
                    copy.write_row((item_id, kind, relation, ips, when))
            return
        # Elsewhere one statement per ROWS_PER_STATEMENT rows, not one per row.
        at = connection.ops.adapt_datetimefield_value
        for start in range(0, len(rows), ROWS_PER_STATEMENT):
            chunk = rows[start:start + ROWS_PER_STATEMENT]
            cursor.execute(_INSERT + ", ".join([_ROW] * len(chunk)),
                           [value for item_id, relation, ips, when in chunk
                            for value in (item_id, kind, relation, ips, at(when))])


def _forget_in_child() -> None:
    """A forked worker starts with no batch and no helper: the parent's rows are the parent's."""
    global _pending, _helper, _lock, _writing, _arrived
    _pending, _helper = [], None
    _lock, _writing, _arrived = threading.Lock(), threading.Lock(), threading.Event()


request_finished.connect(_write_due, dispatch_uid="archive.access_counter")
os.register_at_fork(after_in_child=_forget_in_child)
atexit.register(flush, 5.0)
