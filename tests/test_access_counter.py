"""Accesses counted off the reader's request (archive/usage/counter.py), as daily counts,
with COUNTER R5's filters (archive/usage/filters.py): robots, double clicks."""
from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest
from django.core.cache import cache
from django.db import connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from archive.models import AcknowledgedUrlkey, DailyAccessCount
from archive.usage import counter as access_counter
from archive.usage import filters
from tests import factories as make

FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
SAFARI = ("Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko)"
          " Version/17.5 Safari/605.1.15")
GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
NOON = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


def acknowledgments(item) -> int:
    return make.counts(item.pk)["acknowledgments"]


def daily(item) -> dict:
    access_counter.flush()
    return {(row.day.isoformat(), row.kind): row.n
            for row in DailyAccessCount.objects.filter(item=item)}


def click(item, at, ip="10.0.0.1", agent=FIREFOX, relation="", kind="acknowledgment"):
    access_counter.count(item.pk, [ip], relation, at, user_agent=agent, kind=kind)


# -- Batches ----------------------------------------------------------------------------------

@pytest.mark.django_db(transaction=True)
def test_the_writer_counts_what_the_requests_hand_over(client):
    item = make.item("a.pdf", title="Counted")
    for n in range(20):
        assert client.get(f"/{item.ibi}", REMOTE_ADDR=f"10.0.0.{n}",
                          HTTP_USER_AGENT=FIREFOX).status_code == 302
    assert access_counter.flush()
    today = timezone.now().astimezone(UTC).date().isoformat()
    assert daily(item) == {(today, "acknowledgment"): 20}


@pytest.mark.django_db(transaction=True)
def test_an_access_to_an_item_gone_meanwhile_costs_the_others_nothing():
    item = make.item("a.pdf", title="Counted")
    click(item, NOON)
    access_counter.count(item.pk + 1000, ["10.0.0.2"], "", NOON, user_agent=FIREFOX)
    assert access_counter.flush()
    assert list(DailyAccessCount.objects.values_list("item_id", "n")) == [(item.pk, 1)]


@pytest.mark.django_db(transaction=True)
def test_inside_a_transaction_the_count_commits_or_rolls_back_with_it():
    item = make.item("a.pdf", title="Counted")
    with pytest.raises(RuntimeError), transaction.atomic():
        click(item, NOON)
        assert DailyAccessCount.objects.get().n == 1  # written at once, in this transaction
        raise RuntimeError("roll back")
    assert access_counter.flush()
    assert DailyAccessCount.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_daily_counts_sum_across_batches_and_utc_days():
    item, other = make.item("a.pdf", title="Counted"), make.item("a.pdf", title="Other")
    # 300 readers a batch, three batches; the day is UTC's, whatever the request's zone.
    late = datetime(2026, 11, 20, 23, 59, 59, tzinfo=UTC)
    early = datetime(2026, 11, 20, 21, 0, 1, tzinfo=UTC).astimezone(
        timezone.get_fixed_timezone(-180))  # 18:00:01 in São Paulo, 21:00:01 UTC
    for batch in range(3):
        for n in range(access_counter.ROWS_PER_STATEMENT + 100):
            ip = f"10.{batch}.{n // 256}.{n % 256}"
            click(item, late if n % 2 else late + timedelta(seconds=2), ip)  # the 21st's, 22nd's
            click(other, early, ip, kind="download")
        assert access_counter.flush()
    per_day = access_counter.ROWS_PER_STATEMENT // 2 + 50
    assert daily(item) == {("2026-11-20", "acknowledgment"): 3 * per_day,
                           ("2026-11-21", "acknowledgment"): 3 * per_day}
    assert daily(other) == {("2026-11-20", "download"): 3 * (2 * per_day)}


@pytest.mark.django_db(transaction=True)
def test_a_batch_of_more_keys_than_one_statement_takes_is_written_whole(monkeypatch):
    # Three item-day-kind keys, one a statement: the atomic block of several statements (one
    # statement alone is written in autocommit on SQLite).
    monkeypatch.setattr(access_counter, "ROWS_PER_STATEMENT", 1)
    items = [make.item("a.pdf", title=f"Counted {n}") for n in range(3)]
    for n, item in enumerate(items):
        click(item, NOON, ip=f"10.0.0.{n}")
    assert access_counter.flush()
    assert [daily(item) for item in items] == [{("2026-11-20", "acknowledgment"): 1}] * 3


@pytest.mark.django_db(transaction=True)
def test_a_due_batch_is_written_when_the_next_request_finishes(client, monkeypatch):
    item = make.item("a.pdf", title="Counted")
    monkeypatch.setattr(access_counter, "BATCH_SECONDS", 0)  # every batch due at once
    assert client.get(f"/{item.ibi}", HTTP_USER_AGENT=FIREFOX).status_code == 302
    # Written after the response, by the request's own thread: no flush, no helper needed.
    assert DailyAccessCount.objects.get(item=item).n == 1


@pytest.mark.django_db(transaction=True)
def test_a_batch_no_request_comes_for_is_written_by_the_helper(monkeypatch):
    item = make.item("a.pdf", title="Counted")
    written = threading.Event()
    write = access_counter._write

    def observed(rows, searches=None):
        write(rows, searches)
        written.set()

    monkeypatch.setattr(access_counter, "_write", observed)
    monkeypatch.setattr(access_counter, "BATCH_SECONDS", 0.01)
    click(item, timezone.now())  # e.g. a Celery task's
    assert written.wait(timeout=10)
    assert DailyAccessCount.objects.get(item=item).n == 1


@pytest.mark.django_db(transaction=True)
def test_searches_wait_in_the_batch_and_the_helper_writes_them(monkeypatch):
    """Outside a transaction a search joins the pending batch (no write on the reader's path)
    and the helper writes it with the accesses: each day's searches added, a robot's none."""
    from archive.models import DailySearchCount

    written = threading.Event()
    write = access_counter._write

    def observed(rows, searches=None):
        write(rows, searches)
        if searches:
            written.set()

    monkeypatch.setattr(access_counter, "_write", observed)
    monkeypatch.setattr(access_counter, "BATCH_SECONDS", 0.01)
    day = timezone.now()
    for agent in ("Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
                  "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
                  "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"):
        access_counter.count_search(agent, day)
    assert written.wait(timeout=10)
    assert list(DailySearchCount.objects.values_list("n", flat=True)) == [2]
    access_counter.count_search("Mozilla/5.0 Firefox/128.0", day)
    assert access_counter.flush()
    assert DailySearchCount.objects.get().n == 3


@pytest.mark.django_db(transaction=True)
def test_a_forked_worker_counts_with_a_helper_of_its_own(monkeypatch):
    """What the counter forgets in a forked child (os.register_at_fork) leaves it counting:
    its batch empty, its helper thread started again at its first batch."""
    item = make.item("a.pdf", title="Counted")
    written = threading.Event()
    write = access_counter._write
    monkeypatch.setattr(access_counter, "_write",
                        lambda rows, searches=None: (write(rows, searches), written.set()))
    monkeypatch.setattr(access_counter, "BATCH_SECONDS", 0.01)
    access_counter._forget_in_child()  # as in a child
    access_counter._helper._forget()
    click(item, timezone.now())
    assert written.wait(timeout=10)
    assert DailyAccessCount.objects.get(item=item).n == 1


@pytest.mark.django_db(transaction=True)
def test_a_flush_inside_a_transaction_leaves_the_batch_for_later():
    item = make.item("a.pdf", title="Counted")
    click(item, timezone.now())
    with transaction.atomic():
        assert not access_counter.flush()  # a rollback here must not take the counts along
    assert access_counter.flush()
    assert DailyAccessCount.objects.get(item=item).n == 1


# -- COUNTER R5: double clicks ----------------------------------------------------------------

@pytest.mark.django_db(transaction=True)
def test_two_clicks_within_30_seconds_count_once_and_after_30_seconds_twice():
    item = make.item("a.pdf", title="Counted")
    click(item, NOON)
    click(item, NOON + timedelta(seconds=29))
    assert access_counter.flush()
    assert acknowledgments(item) == 1
    click(item, NOON + timedelta(seconds=29 + 30))  # 30 s after the previous click
    assert access_counter.flush()
    assert acknowledgments(item) == 2


@pytest.mark.django_db(transaction=True)
def test_the_window_runs_from_the_latest_click_within_one_batch_or_across_batches():
    item = make.item("a.pdf", title="Counted")
    for seconds in (0, 20, 40):  # each less than 30 s after the previous: one action
        click(item, NOON + timedelta(seconds=seconds))
    assert access_counter.flush()
    click(item, NOON + timedelta(seconds=65))  # 25 s after the last: the same action
    assert access_counter.flush()
    assert acknowledgments(item) == 1
    click(item, NOON + timedelta(seconds=100))
    assert access_counter.flush()
    assert acknowledgments(item) == 2


@pytest.mark.django_db(transaction=True)
def test_other_readers_urls_and_kinds_count_on_their_own():
    item = make.item("a.pdf", title="Counted")
    click(item, NOON)
    click(item, NOON, ip="10.0.0.2")  # another address
    click(item, NOON, agent=SAFARI)  # another browser at the same address
    click(item, NOON, relation=".metadata")  # another URL of the item
    click(item, NOON, relation="a.pdf", kind="download")
    click(item, NOON, ip="10.0.0.2")  # the second reader's double click
    assert access_counter.flush()
    assert make.counts(item.pk) == {"downloads": 1, "acknowledgments": 4, "total": 5}


@pytest.mark.django_db(transaction=True)
def test_two_gets_of_a_persistent_url_in_a_row_count_once(client):
    item = make.item("a.pdf", title="Counted")
    for _ in range(2):
        assert client.get(f"/{item.ibi}", HTTP_USER_AGENT=FIREFOX).status_code == 302
    for _ in range(2):
        assert client.get(f"/col/{item.ibi}/doc/a.pdf",
                          HTTP_USER_AGENT=FIREFOX).status_code == 200
    assert make.counts(item.pk) == {"downloads": 1, "acknowledgments": 1, "total": 2}


@pytest.mark.django_db(transaction=True)
def test_unique_item_requests_count_a_reader_once_per_item_kind_and_hour():
    item = make.item("a.pdf", title="Counted")
    click(item, NOON)
    click(item, NOON, relation=".metadata")  # another URL: a request, not a new session
    click(item, NOON + timedelta(minutes=40))  # no double click, the same session
    click(item, NOON + timedelta(minutes=41), relation="a.pdf", kind="download")
    click(item, NOON, ip="10.0.0.2")  # another reader
    assert access_counter.flush()
    click(item, NOON + timedelta(minutes=59))  # a later batch, the same session still
    assert access_counter.flush()
    assert make.counts(item.pk) == {"downloads": 1, "acknowledgments": 5, "total": 6}
    assert make.counts(item.pk, unique=True) == {
        "downloads": 1, "acknowledgments": 2, "total": 3}
    click(item, NOON + timedelta(minutes=61))  # 13:01: a new session
    assert access_counter.flush()
    assert make.counts(item.pk, unique=True)["acknowledgments"] == 3
    assert DailyAccessCount.objects.get(item=item, kind="acknowledgment").unique_n == 3


@pytest.mark.django_db(transaction=True)
def test_the_double_click_state_lives_in_the_shared_cache_only():
    item = make.item("a.pdf", title="Counted")
    click(item, NOON)
    assert access_counter.flush()
    click(item, NOON + timedelta(seconds=10))
    assert access_counter.flush()
    assert acknowledgments(item) == 1
    # Nothing in the process remembers the reader: with the cache emptied (what another
    # worker without the shared cache would see) the next double click counts again.
    cache.clear()
    click(item, NOON + timedelta(seconds=20))
    assert access_counter.flush()
    assert acknowledgments(item) == 2


@pytest.mark.django_db(transaction=True)
def test_the_cache_holds_hashes_for_30_seconds_and_the_hour_never_the_address(monkeypatch):
    item = make.item("a.pdf", title="Counted")
    stored = []
    add, set_many = cache.add, cache.set_many

    def seen(key, value, timeout=None, **kwargs):
        stored.append((key, value, timeout))
        return add(key, value, timeout, **kwargs)

    def seen_many(values, timeout=None, **kwargs):
        stored.extend((key, value, timeout) for key, value in values.items())
        return set_many(values, timeout, **kwargs)

    monkeypatch.setattr(cache, "add", seen)  # the day's secret
    monkeypatch.setattr(cache, "set_many", seen_many)
    click(item, NOON, ip="203.0.113.77")
    assert access_counter.flush()
    clicks = [t for k, _v, t in stored if k.startswith("accesses:click:")]
    sessions = [t for k, _v, t in stored if k.startswith("accesses:session:")]
    assert clicks == [filters.DOUBLE_CLICK_SECONDS]
    # The session's first of its kind, of the item (an investigation) and of its requests,
    # each kept to the end of the hour at most.
    assert len(sessions) == 3 and all(60 <= s <= 3601 for s in sessions)
    assert all("203.0.113.77" not in repr(entry) for entry in stored)


@pytest.mark.django_db(transaction=True)
def test_when_the_cache_fails_accesses_are_counted_unfiltered_rather_than_lost(monkeypatch):
    item = make.item("a.pdf", title="Counted")

    def down(*args, **kwargs):
        raise ConnectionError("cache unreachable")

    for name in ("add", "get", "get_many", "set_many"):
        monkeypatch.setattr(cache, name, down)
    click(item, NOON)
    click(item, NOON + timedelta(seconds=1))
    click(item, NOON, agent=GOOGLEBOT)  # the robots list needs no cache
    assert access_counter.flush()
    assert acknowledgments(item) == 2


@pytest.mark.django_db(transaction=True)
def test_a_process_reads_the_days_secret_from_the_cache_once_a_minute(monkeypatch):
    """A quiet worker writes a batch per access: the day's secret is kept in the process for
    SECRET_MEMO_SECONDS, not read from the cache for each batch. A secret the cache lost
    (Redis restarted) gives way within that time to the one every worker then reads."""
    item = make.item("a.pdf", title="Counted")
    clock = [1000.0]
    monkeypatch.setattr(filters.time, "monotonic", lambda: clock[0])
    reads = []
    get = cache.get

    def seen(key, *args, **kwargs):
        reads.append(key)
        return get(key, *args, **kwargs)

    monkeypatch.setattr(cache, "get", seen)
    for n in range(3):
        click(item, NOON + timedelta(seconds=n), ip=f"10.0.0.{n}")
        assert access_counter.flush()  # a batch each
    salts = [key for key in reads if key.startswith("accesses:salt:")]
    assert salts == ["accesses:salt:2026-11-20"] * 2  # the first batch's: get, add, get
    assert acknowledgments(item) == 3
    first = filters.day_secret(NOON.date(), cache)
    cache.clear()  # the cache forgets the secret, and another worker makes a new one
    clock[0] += filters.SECRET_MEMO_SECONDS - 1
    assert filters.day_secret(NOON.date(), cache) == first  # still this process's
    clock[0] += 1
    renewed = filters.day_secret(NOON.date(), cache)
    assert renewed != first and renewed == cache.get("accesses:salt:2026-11-20")
    assert list(filters._secrets) == [NOON.date()]


@pytest.mark.django_db(transaction=True)
def test_a_days_secret_is_dropped_from_the_process_a_minute_after_its_reading(monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(filters.time, "monotonic", lambda: clock[0])
    filters.day_secret(NOON.date(), cache)
    clock[0] += filters.SECRET_MEMO_SECONDS
    filters.day_secret(NOON.date() + timedelta(days=1), cache)  # past midnight
    assert list(filters._secrets) == [NOON.date() + timedelta(days=1)]


def test_a_secret_the_cache_does_not_keep_is_not_kept_by_the_process(monkeypatch):
    monkeypatch.setattr(cache, "get", lambda key, default=None, **kwargs: default)
    monkeypatch.setattr(cache, "add", lambda *args, **kwargs: False)
    assert filters.day_secret(NOON.date(), cache) != filters.day_secret(NOON.date(), cache)
    assert filters._secrets == {}


@pytest.mark.django_db(transaction=True)
def test_the_batch_statement_is_seen_where_queries_are_captured_and_counts_alike(monkeypatch):
    """On SQLite a batch of one statement goes straight to the driver, unless something looks
    at the queries (DEBUG, a test's capture, an execute wrapper): then through Django's cursor.
    Both add the same counts."""
    item = make.item("a.pdf", title="Counted")
    click(item, NOON)
    with CaptureQueriesContext(connection) as captured:
        assert access_counter.flush()
    assert len([query for query in captured.captured_queries
                if "archive_dailyaccesscount" in query["sql"]]) == 1
    click(item, NOON + timedelta(minutes=1), ip="10.0.0.2")
    with monkeypatch.context() as patched:
        if connection.vendor == "sqlite":  # the driver's own path: no cursor of Django's

            def no_cursor(*args, **kwargs):
                raise AssertionError("the batch went through Django's cursor")

            patched.setattr(connection, "cursor", no_cursor)
        assert access_counter.flush()
    assert daily(item) == {("2026-11-20", "acknowledgment"): 2}


# -- COUNTER R5: robots -----------------------------------------------------------------------

@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("agent", [
    GOOGLEBOT, "curl/8.5.0", "python-requests/2.32.3", "", "Wget/1.21.4",
    "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)"])
def test_a_robot_from_the_counter_list_counts_nothing(client, agent):
    item = make.item("a.pdf", title="Counted")
    assert client.get(f"/{item.ibi}", HTTP_USER_AGENT=agent).status_code == 302
    assert client.get(f"/col/{item.ibi}/doc/a.pdf", HTTP_USER_AGENT=agent).status_code == 200
    assert make.counts(item.pk)["total"] == 0


def test_the_robot_check_is_the_counter_list_remembered_per_user_agent():
    filters.is_robot.cache_clear()
    assert filters.is_robot(GOOGLEBOT) and not filters.is_robot(FIREFOX)
    assert filters.is_robot(GOOGLEBOT)
    assert filters.is_robot.cache_info().hits == 1


# -- LGPD: no address in the database ---------------------------------------------------------

@pytest.mark.django_db(transaction=True)
def test_no_ip_address_is_stored_anywhere_in_the_database_after_accesses(client):
    item = make.item("a.pdf", title="Counted")
    ips = ["203.0.113.77", "2001:db8::77"]
    for ip in ips:
        client.get(f"/{item.ibi}", REMOTE_ADDR=ip, HTTP_USER_AGENT=FIREFOX)
        client.get(f"/{item.ibi}.metadata", REMOTE_ADDR=ip, HTTP_USER_AGENT=FIREFOX)
        client.get(f"/col/{item.ibi}/doc/a.pdf", REMOTE_ADDR=ip, HTTP_USER_AGENT=FIREFOX)
        client.get(f"/{item.ibi}", REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR=ip,
                   HTTP_USER_AGENT=SAFARI)
    assert access_counter.flush()
    assert make.counts(item.pk)["total"] >= 4  # the accesses were counted…
    found = []
    with connection.cursor() as cursor:  # …and no column of any table names a reader
        for table in connection.introspection.table_names(cursor):
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")
            found += [(table, value) for row in cursor.fetchall() for value in row
                      if any(ip in _text(value) for ip in ips)]
    assert found == []


def _text(value) -> str:
    if isinstance(value, bytes | memoryview):
        return bytes(value).decode("latin-1")
    return str(value)  # text, numbers, dates, and JSON (a dict on PostgreSQL)


# -- Acknowledgments from other resolvers ------------------------------------------------------

@pytest.mark.django_db(transaction=True)
def test_an_acknowledgment_counts_once_per_urlkey_and_old_keys_are_swept(settings, monkeypatch):
    settings.IBI_URLKEY_MAX_AGE = 600
    item = make.item("a.pdf", title="Counted")
    monkeypatch.setattr(access_counter, "_swept", 0.0)
    first = dict(item_id=item.pk, relation="", at=NOON)
    assert access_counter.count_acknowledgment(urlkey="1-a", **first)
    assert not access_counter.count_acknowledgment(urlkey="1-a", **first)  # the same answer
    # Another answer to the same reader a second later: its own access (the sending
    # resolver filters double clicks: it sees the reader, this Archive does not).
    assert access_counter.count_acknowledgment(urlkey="1-b", **{**first, "at": NOON})
    assert acknowledgments(item) == 2
    # The keys stay while they could be sent again, then a later acknowledgment sweeps them.
    monkeypatch.setattr(access_counter, "_swept", 0.0)
    later = NOON + timedelta(seconds=600 + 121)
    assert access_counter.count_acknowledgment(urlkey="1-c", **{**first, "at": later})
    assert list(AcknowledgedUrlkey.objects.values_list("urlkey", flat=True)) == ["1-c"]
    assert acknowledgments(item) == 3


# -- The data migration -----------------------------------------------------------------------

@pytest.mark.django_db(transaction=True)
def test_the_migration_turns_access_rows_into_daily_counts_and_back(settings):
    before = [("archive", "0005_copy_origin_relations")]
    after = [("archive", "0008_daily_access_counts")]
    try:
        old = make.migrated_back(before)
        Item = old.get_model("archive", "Item")
        item, other = (Item.objects.create(ibi=f"archive.localhost/{n}", ibip=f"ip{n}", title=n,
                                           language="en") for n in ("counted", "other"))
        Access = old.get_model("archive", "Access")
        recent = timezone.now() - timedelta(seconds=10)
        Access.objects.bulk_create(
            [Access(item_id=item.pk, kind="download", client_ips="203.0.113.1",
                    at=datetime(2026, 11, 20, 23, 59, tzinfo=UTC)) for _ in range(3)]
            + [Access(item_id=item.pk, kind="download", client_ips="203.0.113.1",
                      at=datetime(2026, 11, 21, 0, 1, tzinfo=UTC))]
            + [Access(item_id=other.pk, kind="acknowledgment", relation=".metadata",
                      client_ips="203.0.113.2", at=datetime(2026, 11, 20, 8, tzinfo=UTC))
               for _ in range(2)]
            + [Access(item_id=other.pk, kind="acknowledgment", urlkey="1-fresh",
                      client_ips="203.0.113.3", at=recent),
               Access(item_id=other.pk, kind="acknowledgment", urlkey="2-stale",
                      client_ips="203.0.113.3", at=recent - timedelta(
                          seconds=settings.IBI_URLKEY_MAX_AGE + 600))])

        MigrationExecutor(connection).migrate(after)
        new = MigrationExecutor(connection).loader.project_state(after).apps
        rows = new.get_model("archive", "DailyAccessCount").objects.all()
        counts = {(row.item_id, row.day.isoformat(), row.kind): row.n for row in rows}
        # Sessions of old rows: address and hour (one reader's three downloads at 23:59: one).
        assert {(row.item_id, row.day.isoformat(), row.kind): row.unique_n for row in rows
                if row.day.isoformat() < "2026-11-22"} == {
            (item.pk, "2026-11-20", "download"): 1, (item.pk, "2026-11-21", "download"): 1,
            (other.pk, "2026-11-20", "acknowledgment"): 1}
        fresh_day, stale_day = recent.date(), (recent - timedelta(
            seconds=settings.IBI_URLKEY_MAX_AGE + 600)).date()
        expected = {(item.pk, "2026-11-20", "download"): 3, (item.pk, "2026-11-21", "download"): 1,
                    (other.pk, "2026-11-20", "acknowledgment"): 2}
        for day in (fresh_day, stale_day):
            key = (other.pk, day.isoformat(), "acknowledgment")
            expected[key] = expected.get(key, 0) + 1
        assert counts == expected
        keys = new.get_model("archive", "AcknowledgedUrlkey").objects.values_list("urlkey",
                                                                                  flat=True)
        assert list(keys) == ["1-fresh"]  # a key too old to be sent again is not kept
        assert "archive_access" not in connection.introspection.table_names()

        # Back again: each count becomes as many rows, with no address.
        MigrationExecutor(connection).migrate(before)
        Access = MigrationExecutor(connection).loader.project_state(before).apps.get_model(
            "archive", "Access")
        assert Access.objects.filter(item_id=item.pk, kind="download").count() == 4
        assert Access.objects.count() == 8
        assert set(Access.objects.values_list("client_ips", flat=True)) == {""}
    finally:
        make.back_to_latest()

