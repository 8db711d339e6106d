"""Accesses counted off the reader's request: one writer thread per process.

Every GET of a persistent URL held here counts one access (resolver.count_local_access), the
acknowledgment §8.2 sends "in the background". Written in the request, its INSERT and commit
would be the largest part of a redirect's cost (bench/resolver.py). So the request hands the
row to this process's writer thread, which inserts whatever has queued since its last batch in
one transaction; on PostgreSQL that commit does not wait for the disk either.

* Rows are written in batches, one commit for whatever arrived within BATCH_SECONDS of the
  first. `flush()` waits until every row handed over so far is in the database: the
  statistics read after it, and a graceful exit (atexit) runs it.
* Inside a transaction (a caller's atomic block, or the one wrapping a test) the row is written
  in that transaction instead, so that it commits or rolls back with it.
* What can be lost: rows still queued when the process is killed without warning (SIGKILL,
  power loss): at most the last BATCH_SECONDS of counts. A database error is logged with the rows it
  cost; an item removed meanwhile just has nothing left to count.
"""
from __future__ import annotations

import atexit
import logging
import os
import queue
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db import (
    DEFAULT_DB_ALIAS,
    DatabaseError,
    IntegrityError,
    connection,
    connections,
    transaction,
)

from .models import Access

logger = logging.getLogger(__name__)

IDLE_SECONDS = 30  # the writer closes its database connection after this long without work
BATCH_SECONDS = 0.1  # how long a row waits for others to share its commit (unless flushed)

_INSERT = (f"INSERT INTO {Access._meta.db_table} (item_id, kind, relation, urlkey, client_ips, at)"
           " VALUES ")
_ROW = "(%s, %s, %s, NULL, %s, %s)"
ROWS_PER_STATEMENT = 500  # 2 500 parameters: within every SQLite's and PostgreSQL's limits
Row = tuple[int, str, str, datetime]  # item, relation, client IPs, time

_lock = threading.Lock()
_queue: queue.SimpleQueue = queue.SimpleQueue()
_thread: threading.Thread | None = None
_pid: int | None = None
_flushing = threading.Event()


def count(item_id: int, client_ips: Sequence[str], relation: str, at: datetime) -> None:
    """Count one acknowledged access to item_id (see the module docstring for when)."""
    row = (item_id, relation, " ".join(client_ips), at)
    if connections[DEFAULT_DB_ALIAS].in_atomic_block:
        try:
            _insert([row])
        except IntegrityError:
            logger.info("access to item %s not counted: the item is gone", item_id)
        return
    _writer_queue().put(row)


@dataclass
class _Mark:
    """Set once the rows queued before it are written; close: then give the connection back."""

    done: threading.Event
    close: bool = False


def flush(timeout: float = 10.0, *, close: bool = False) -> bool:
    """Wait until the rows handed over so far are written (close: and the writer's database
    connection is closed, e.g. before dropping a database); False if that took too long."""
    if _thread is None or _pid != os.getpid() or not _thread.is_alive():
        return True
    mark = _Mark(threading.Event(), close)
    _queue.put(mark)
    _flushing.set()
    return mark.done.wait(timeout)


def _writer_queue() -> queue.SimpleQueue:
    global _thread, _pid, _queue
    thread = _thread
    if thread is not None and _pid == os.getpid() and thread.is_alive():
        return _queue
    with _lock:
        if _thread is None or _pid != os.getpid() or not _thread.is_alive():
            # First use, or in a forked child (a worker): a queue and a thread of its own.
            _queue, _pid = queue.SimpleQueue(), os.getpid()
            _thread = threading.Thread(target=_run, args=(_queue,), name="access-counter",
                                       daemon=True)
            _thread.start()
    return _queue


def _run(work: queue.SimpleQueue) -> None:
    while True:
        try:
            batch = [work.get(timeout=IDLE_SECONDS)]
        except queue.Empty:
            connection.close()  # idle: give the connection back
            continue
        if not isinstance(batch[0], _Mark):
            # One commit for every row of the next moment: a commit per row would cost the
            # serving process more than writing in the request did.
            _flushing.wait(BATCH_SECONDS)
        _flushing.clear()
        while True:
            try:
                batch.append(work.get_nowait())
            except queue.Empty:
                break
        rows = [entry for entry in batch if isinstance(entry, tuple)]
        if rows:
            _write(rows)
        marks = [entry for entry in batch if isinstance(entry, _Mark)]
        if any(mark.close for mark in marks):
            connection.close()
        for mark in marks:
            mark.done.set()


def _write(rows: list[Row]) -> None:
    try:
        _insert(rows)
    except IntegrityError:  # an item removed meanwhile: count the others one by one
        for row in rows:
            try:
                _insert([row])
            except IntegrityError:
                logger.info("access to item %s not counted: the item is gone", row[0])
    except DatabaseError:
        logger.exception("%d accesses not counted", len(rows))
        connection.close()  # the next batch starts on a fresh connection


def _insert(rows: list[Row]) -> None:
    own = not connection.in_atomic_block  # else the caller's transaction decides its commit
    kind = Access.Kind.ACKNOWLEDGMENT.value
    at = connection.ops.adapt_datetimefield_value
    with transaction.atomic(), connection.cursor() as cursor:
        if own and connection.vendor == "postgresql":
            # Counts, not deposits: a crash of the database server may lose the last fraction
            # of a second of them, and no commit waits for an fsync.
            cursor.execute("SET LOCAL synchronous_commit TO OFF")
        # One statement per ROWS_PER_STATEMENT rows, not one per row: the serving thread
        # waits for the interpreter lock each time this thread takes it back from the driver.
        for start in range(0, len(rows), ROWS_PER_STATEMENT):
            chunk = rows[start:start + ROWS_PER_STATEMENT]
            cursor.execute(_INSERT + ", ".join([_ROW] * len(chunk)),
                           [value for item_id, relation, ips, when in chunk
                            for value in (item_id, kind, relation, ips, at(when))])


atexit.register(flush, 5.0)
