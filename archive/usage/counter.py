"""Accesses counted off the reader's request: in batches, written after a response is sent.

Every GET of a persistent URL held here counts one access (resolver.count_local_access), the
acknowledgment §8.2 sends "in the background"; so does a full download (site/downloads.py) and
an acknowledgment from another resolver (`count_acknowledgment`): COUNTER R5.1's requests. An
item's landing page, metadata page and metadata or citation exports count an investigation
(`count_investigation`, site/views.py). Each with its Access_Type as it is at the access.

Written in the request, an INSERT and commit would be the largest part of a redirect's cost
(bench/resolver.py). So a
count only joins the process's pending batch (a tuple appended: no filter, no hash, no cache
on the reader's path), and the batch is written once its first row is BATCH_SECONDS old:

* by whichever request of this process finishes next (the `request_finished` signal, after
  the response went out: no reader waits for it);
* else, when no request follows, by a helper thread (runtime/threads.py) that checks each
  batch once it is due;
* by `flush()`, which writes what is pending at once: the edges that show statistics run it
  before they read, and a graceful exit (atexit) runs it.

A writer thread that took every batch would cost each request more than this does: it would
compete with the requests for the interpreter lock at every call into the database driver
(bench/README.md). On PostgreSQL the batch's commit does not wait for the disk.

Writing a batch: COUNTER R5's filters first (robots, double clicks: filters.py), then the
accesses left are summed per item, UTC day, kind and Access_Type (in all; the first of its
kind, the first access and the first request of each reader session: what COUNTER's unique
counts sum) and added to DailyAccessCount, one
`INSERT … ON CONFLICT … DO UPDATE SET n = n + excluded.n, …` (SQLite and PostgreSQL alike) and
one commit, in a fixed order of keys so that two workers' batches never deadlock. The
downloads left are also added per file (DailyFileCount: the Item Report's components), and
the searches counted (`count_search`: Searches_Platform) per day (DailySearchCount). No row per
access and no address is written: the reader's address and user agent live in the pending
batch, in memory, until it is written (a fraction of a second), and then only as hashes in
the cache, for 30 seconds and to the end of the hour (filters.py).

* Inside a transaction (a caller's atomic block, or the one wrapping a test) the count is
  written in that transaction instead, so that it commits or rolls back with it.
* What can be lost: the pending batch when the process is killed without warning (SIGKILL,
  power loss): the counts of at most the last BATCH_SECONDS or so. A database error is logged
  with the rows it cost; an item removed meanwhile just has nothing left to count. When the
  cache fails, the batch is counted without double-click filtering (logged): over-counting
  a few double clicks beats losing the accesses.
"""
from __future__ import annotations

import atexit
import functools
import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, timedelta

from django.conf import settings
from django.core.signals import request_finished
from django.db import (
    DEFAULT_DB_ALIAS,
    DatabaseError,
    IntegrityError,
    connection,
    connections,
    transaction,
)

from ..access import policy
from ..models import (
    AccessKind,
    AcknowledgedUrlkey,
    DailyAccessCount,
    DailyFileCount,
    DailySearchCount,
    Item,
)
from ..runtime.threads import Helper
from . import filters

logger = logging.getLogger(__name__)

BATCH_SECONDS = 0.1  # how long a row waits for others to share its commit (unless flushed)

_TABLE = DailyAccessCount._meta.db_table
_COLUMNS = "item_id, day, kind, access_type, n, unique_n, unique_investigations, unique_requests"
_UPSERT = (f"INSERT INTO {_TABLE} ({_COLUMNS}) VALUES {{rows}}"
           f" ON CONFLICT (item_id, day, kind, access_type) DO UPDATE"
           f" SET n = {_TABLE}.n + excluded.n,"
           f" unique_n = {_TABLE}.unique_n + excluded.unique_n,"
           f" unique_investigations = {_TABLE}.unique_investigations"
           f" + excluded.unique_investigations,"
           f" unique_requests = {_TABLE}.unique_requests + excluded.unique_requests")
ROWS_PER_STATEMENT = 240  # 1 920 parameters: within every SQLite's limits
# item, kind, URL (relation or file name), client IPs, user agent (None: not known), time,
# Access_Type ("open", "controlled"; None: the item's level when the batch is written)
Row = tuple[int, str, str, str, "str | None", datetime, "str | None"]
Key = tuple[int, date, str, str]  # item, UTC day, kind, Access_Type
Counts = dict[Key, list[int]]  # [accesses, unique of the kind, unique investigations, requests]
FileKey = tuple[int, str, date, str]  # item, file name, UTC day, Access_Type
Files = dict[FileKey, int]  # downloads of each file (the item's components)

_FILES = DailyFileCount._meta.db_table
_FILE_UPSERT = (f"INSERT INTO {_FILES} (item_id, name, day, access_type, n)"
                f" VALUES (%s, %s, %s, %s, %s) ON CONFLICT (item_id, name, day, access_type)"
                f" DO UPDATE SET n = {_FILES}.n + excluded.n")
_SEARCHES = DailySearchCount._meta.db_table
_SEARCH_UPSERT = (f"INSERT INTO {_SEARCHES} (day, n) VALUES (%s, %s) ON CONFLICT (day)"
                  f" DO UPDATE SET n = {_SEARCHES}.n + excluded.n")

_lock = threading.Lock()  # guards _pending, _searches and _since
_writing = threading.Lock()  # held while a batch is written: flush() waits for it
_pending: list[Row] = []
_searches: dict[date, int] = {}  # UTC day → searches, robots left out already
_since = 0.0  # time.monotonic() of the pending batch's first row
_swept = 0.0  # time.monotonic() of the last sweep of old urlkeys
SWEEP_SECONDS = 60.0


def count(item_id: int, client_ips: Sequence[str], relation: str, at: datetime, *,
          user_agent: str | None = None, kind: str = AccessKind.ACKNOWLEDGMENT,
          access_type: str | None = None) -> None:
    """Count one access to item_id (see the module docstring for when, and filters.py for
    what is left out). user_agent None: not known (an acknowledgment from another resolver),
    so not checked against the robots list; relation names the URL (the relation asked, or
    the file downloaded) for double-click filtering; access_type COUNTER's Access_Type as
    the caller saw it (None: the item's as the batch is written, a fraction of a second
    later: access/policy.py `counter_access_type`)."""
    global _since
    row = (item_id, str(kind), relation, " ".join(client_ips), user_agent, at, access_type)
    if connections[DEFAULT_DB_ALIAS].in_atomic_block:
        counts, files = _filtered([row])
        _insert(counts)  # its foreign key is checked at the caller's commit
        _insert_files(files)
        return
    with _lock:
        first = not _pending and not _searches
        if first:
            _since = time.monotonic()
        _pending.append(row)
    if first:
        _helper.wake()  # after the append: the helper must find the row when it looks


def count_search(user_agent: str, at: datetime) -> None:
    """Count a search a reader ran (COUNTER R5.1's Searches_Platform), in the pending batch as
    accesses are; a robot's is not counted. No query and no address is kept."""
    global _since
    if filters.is_robot(user_agent):
        return
    day = at.astimezone(UTC).date()
    if connections[DEFAULT_DB_ALIAS].in_atomic_block:
        _insert_searches({day: 1})
        return
    with _lock:
        first = not _pending and not _searches
        if first:
            _since = time.monotonic()
        _searches[day] = _searches.get(day, 0) + 1
    if first:
        _helper.wake()


def count_investigation(item_id: int, level: str, client_ip: str, user_agent: str,
                        relation: str) -> None:
    """Count an investigation of an item (its landing page, metadata page, a metadata or
    citation export: `relation` names which) with the Access_Type of its access level now."""
    count(item_id, [client_ip], relation, datetime.now(UTC), user_agent=user_agent,
          kind=AccessKind.INVESTIGATION, access_type=policy.counter_access_type(level))


def count_acknowledgment(*, urlkey: str, item_id: int, relation: str, at: datetime,
                         client_ips: Sequence[str] = (), user_agent: str | None = None) -> bool:
    """Count the access an acknowledgment from another resolver reports, once per urlkey;
    False if it was counted before. Keys are kept as long as they could be sent
    (IBI_URLKEY_MAX_AGE), then swept.

    Anyone may ask for a urlkey and send it back, so the access then passes COUNTER's filters
    as any other (filters.py): `client_ips` are the reader's (archive_service/urlkeys.py: those
    reported and the sender's own), `user_agent` the sender's (None: not known, no robots
    check)."""
    _sweep(at)
    try:
        with transaction.atomic():
            AcknowledgedUrlkey.objects.create(urlkey=urlkey, at=at)
            count(item_id, client_ips, relation, at, user_agent=user_agent)
    except IntegrityError:  # acknowledged before (or the item is gone)
        return False
    return True


def _sweep(now: datetime) -> None:
    """Forget urlkeys too old to be accepted again, at most once a minute per process."""
    global _swept
    if time.monotonic() - _swept < SWEEP_SECONDS:
        return
    _swept = time.monotonic()
    # read_urlkey allows a minute of clock skew: keep two beyond the age limit.
    cutoff = now - timedelta(seconds=settings.IBI_URLKEY_MAX_AGE + 120)
    AcknowledgedUrlkey.objects.filter(at__lt=cutoff).delete()


def flush(timeout: float = 10.0) -> bool:
    """Write every pending row now; False if a batch being written took longer than timeout,
    or if called inside a transaction (the rows would share its fate: they stay pending)."""
    if connections[DEFAULT_DB_ALIAS].in_atomic_block or not _writing.acquire(timeout=timeout):
        return False
    try:
        _write(*_take(due_only=False))
    finally:
        _writing.release()
    return True


def _write_due(**kwargs) -> None:
    """Write the pending batch if it is due, unless another thread is writing one."""
    if (_pending or _searches) and time.monotonic() - _since >= BATCH_SECONDS \
            and not connections[DEFAULT_DB_ALIAS].in_atomic_block \
            and _writing.acquire(blocking=False):
        try:
            _write(*_take(due_only=True))
        finally:
            _writing.release()


def _take(*, due_only: bool) -> tuple[list[Row], dict[date, int]]:
    global _pending, _searches
    with _lock:
        if due_only and time.monotonic() - _since < BATCH_SECONDS:
            return [], {}
        rows, _pending = _pending, []
        searches, _searches = _searches, {}
    return rows, searches


def _watch() -> None:
    """The helper thread's work: write a batch that no request came to write."""
    while _pending or _searches:
        time.sleep(max(0.0, _since + 2 * BATCH_SECONDS - time.monotonic()))
        with _writing:
            rows, searches = _take(due_only=True)
            if rows or searches:
                _write(rows, searches)
                connection.close()  # this thread's own: rarely used, not kept open


_helper = Helper("access-counter", _watch)


def _write(rows: list[Row], searches: dict[date, int] | None = None) -> None:
    if searches:
        try:
            _insert_searches(searches)
        except DatabaseError:
            logger.exception("%d searches not counted", sum(searches.values()))
    if not rows:
        return
    counts, files = _filtered(rows)
    try:
        _insert(counts)
    except IntegrityError:  # an item removed meanwhile: count the others one by one
        for key, both in counts.items():
            try:
                _insert({key: both})
            except IntegrityError:
                logger.info("access to item %s not counted: the item is gone", key[0])
    except DatabaseError:  # e.g. the database went read-only: log what it cost, serve on
        logger.exception("%d accesses not counted", sum(four[0] for four in counts.values()))
    try:
        _insert_files(files)
    except IntegrityError:  # as above: the files of items still there, one by one
        for key, n in files.items():
            try:
                _insert_files({key: n})
            except IntegrityError:
                logger.info("download of %s not counted: the item is gone", key[1])
    except DatabaseError:
        logger.exception("%d downloads of files not counted", sum(files.values()))


def _filtered(rows: list[Row]) -> tuple[Counts, Files]:
    try:
        return _counted(rows)
    except Exception:  # e.g. Redis unreachable: count without the filters' cache
        logger.exception("%d accesses counted without double-click filtering", len(rows))
        return _counted(rows, double_clicks=False)


def _counted(rows: list[Row], *, double_clicks: bool = True) -> tuple[Counts, Files]:
    """COUNTER's filters (filters.py), then the accesses left per item, UTC day and kind, and
    how many of them were the first of their reader's session. Without the cache
    (double_clicks False) every access is counted, and counted unique."""
    kept = [row for row in rows if row[4] is None or not filters.is_robot(row[4])]
    if any(row[6] is None for row in kept):
        kept = _with_access_types(kept)
    verdicts = filters.verdicts(
        [(ips, agent or "", str(item_id), kind, relation, at, access)
         for item_id, kind, relation, ips, agent, at, access in kept]) if double_clicks else (
        [(True, True, True, row[1] in filters.REQUESTS) for row in kept])
    counts: Counts = {}
    files: Files = {}
    for row, verdict in zip(kept, verdicts, strict=True):
        if verdict[0]:
            day = row[5].astimezone(UTC).date()
            four = counts.setdefault((row[0], day, row[1], row[6]), [0, 0, 0, 0])
            four[0] += 1
            four[1] += verdict[1]
            four[2] += verdict[2]
            four[3] += verdict[3]
            if row[1] == AccessKind.DOWNLOAD:  # its relation is the file's name
                key = (row[0], row[2][:255], day, row[6])
                files[key] = files.get(key, 0) + 1
    return counts, files


def _with_access_types(rows: list[Row]) -> list[Row]:
    """The rows whose caller did not know the item's Access_Type, with the item's as it is
    now (one query for the batch); an item gone meanwhile keeps None: not counted."""
    levels = _levels(sorted({row[0] for row in rows if row[6] is None}))
    return [row if row[6] is not None or row[0] not in levels
            else (*row[:6], policy.counter_access_type(levels[row[0]]))
            for row in rows if row[6] is not None or row[0] in levels]


def _levels(ids: list[int]) -> dict[int, str]:
    """{item id: access level} of the items that are there. On SQLite, outside a
    transaction and unwatched, straight to the driver as the batch's statement (_insert)."""
    db = connections[DEFAULT_DB_ALIAS]
    if db.vendor != "sqlite" or db.in_atomic_block or db.queries_logged \
            or db.execute_wrappers or len(ids) > ROWS_PER_STATEMENT:
        return dict(Item.objects.filter(pk__in=ids).values_list("pk", "access_rights"))
    if db.connection is None:
        db.ensure_connection()
    with db.wrap_database_errors:
        return dict(db.connection.execute(
            f"SELECT id, access_rights FROM {Item._meta.db_table}"
            f" WHERE id IN ({', '.join(['?'] * len(ids))})", ids).fetchall())


def _insert(counts: Counts) -> None:
    if not counts:
        return
    db = connections[DEFAULT_DB_ALIAS]  # once: each look through the `connection` proxy costs
    own = not db.in_atomic_block  # else the caller's transaction decides its commit
    day = db.ops.adapt_datefield_value
    keys = sorted(counts)  # every batch locks its rows in the same order: no deadlock
    if own and db.vendor == "sqlite" and len(keys) <= ROWS_PER_STATEMENT:
        # One statement in autocommit is a transaction of its own: the atomic block's
        # BEGIN, savepoint bookkeeping and COMMIT cost about 140 000 instructions, a fifth of
        # what a batch of one new reader costs (bench/README.md, instructions per request).
        if db.queries_logged or db.execute_wrappers:  # DEBUG, a test's capture: seen there
            with db.cursor() as cursor:
                cursor.execute(*_upsert(keys, counts, day))
            return
        # Else straight to the driver, as archive/db/changes.py reads the token: Django's
        # cursor (its wrappers, the placeholders rewritten by a regular expression) cost
        # over four times what SQLite does for the statement. Errors are Django's still.
        if db.connection is None:
            db.ensure_connection()
        with db.wrap_database_errors:
            db.connection.execute(*_upsert(keys, counts, day, mark="?"))
        return
    with transaction.atomic(), db.cursor() as cursor:
        if db.vendor == "postgresql" and own:
            # Counts, not deposits: a crash of the database server may lose the last
            # fraction of a second of them, and no commit waits for an fsync.
            cursor.execute("SET LOCAL synchronous_commit TO OFF")
        for start in range(0, len(keys), ROWS_PER_STATEMENT):
            cursor.execute(*_upsert(keys[start:start + ROWS_PER_STATEMENT], counts, day))


def _insert_files(files: Files) -> None:
    """Add each file's downloads (in the caller's transaction, if there is one)."""
    if not files:
        return
    db = connections[DEFAULT_DB_ALIAS]
    day = db.ops.adapt_datefield_value
    with transaction.atomic(), db.cursor() as cursor:
        cursor.executemany(_FILE_UPSERT, [(item_id, name, day(on), access, files[
            item_id, name, on, access]) for item_id, name, on, access in sorted(files)])


def _insert_searches(searches: dict[date, int]) -> None:
    """Add each day's searches (in the caller's transaction, if there is one)."""
    db = connections[DEFAULT_DB_ALIAS]
    with transaction.atomic(), db.cursor() as cursor:
        for day in sorted(searches):  # one order for every writer: no deadlock
            cursor.execute(_SEARCH_UPSERT, [db.ops.adapt_datefield_value(day), searches[day]])


def _upsert(keys: list[Key], counts: Counts, day: Callable[[date], object], mark: str = "%s"
            ) -> tuple[str, list]:
    """The statement adding counts[key] for each of keys, and its parameters; `mark` is the
    placeholder (Django's cursor's, or "?": SQLite's driver's).

    >>> key = (7, date(2026, 11, 20), "download", "open")
    >>> _upsert([key], {key: [2, 1, 1, 1]}, str, "?")[1]
    [7, '2026-11-20', 'download', 'open', 2, 1, 1, 1]
    """
    return (_statement(len(keys), mark),
            [value for item_id, on, kind, access in keys
             for value in (item_id, day(on), kind, access, *counts[item_id, on, kind, access])])


@functools.lru_cache(maxsize=64)
def _statement(rows: int, mark: str) -> str:
    return _UPSERT.format(rows=", ".join([f"({', '.join([mark] * 8)})"] * rows))


def _forget_in_child() -> None:
    """A forked worker starts with no batch: the parent's rows are the parent's (and its helper
    thread starts again at the child's first batch: runtime/threads.py)."""
    global _pending, _searches, _lock, _writing
    _pending, _searches = [], {}
    _lock, _writing = threading.Lock(), threading.Lock()


request_finished.connect(_write_due, dispatch_uid="archive.access_counter")
os.register_at_fork(after_in_child=_forget_in_child)
atexit.register(flush, 5.0)
