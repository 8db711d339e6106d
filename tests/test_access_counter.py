"""Accesses counted off the reader's request (archive/accesses/counter.py)."""
from __future__ import annotations

import io
import threading
from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import transaction
from django.utils import timezone

from archive.accesses import counter as access_counter
from archive.deposit import services
from archive.deposit.services import Upload
from archive.models import Access


@pytest.fixture(autouse=True)
def granularity(settings):
    settings.IBI_GRANULARITY = Decimal("0.001")


def deposit():
    return services.item_deposit(
        title="Counted", uploads=[Upload(name="a.pdf", file=io.BytesIO(b"%PDF"),
                                         content_type="application/pdf")])


@pytest.mark.django_db(transaction=True)
def test_the_writer_counts_what_the_requests_hand_over(client):
    item = deposit()
    for n in range(20):
        assert client.get(f"/{item.ibi}", REMOTE_ADDR=f"10.0.0.{n}").status_code == 302
    assert access_counter.flush()
    rows = Access.objects.filter(item=item)
    assert rows.count() == 20
    assert sorted(rows.values_list("client_ips", flat=True)) == sorted(
        f"10.0.0.{n}" for n in range(20))
    assert set(rows.values_list("kind", "relation", "urlkey")) == {("acknowledgment", "", None)}


@pytest.mark.django_db(transaction=True)
def test_an_access_to_an_item_gone_meanwhile_costs_the_others_nothing():
    item = deposit()
    now = timezone.now()
    access_counter.count(item.pk + 1000, ["10.0.0.1"], "", now)  # no such item
    access_counter.count(item.pk, ["10.0.0.2"], ".metadata", now)
    assert access_counter.flush()
    assert list(Access.objects.values_list("item_id", "relation", "client_ips")) == [
        (item.pk, ".metadata", "10.0.0.2")]


@pytest.mark.django_db(transaction=True)
def test_inside_a_transaction_the_count_commits_or_rolls_back_with_it():
    item = deposit()
    with pytest.raises(RuntimeError), transaction.atomic():
        access_counter.count(item.pk, ["10.0.0.1"], "", timezone.now())
        assert Access.objects.count() == 1  # written at once, in this transaction
        raise RuntimeError("roll back")
    assert access_counter.flush()
    assert Access.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_a_batch_larger_than_one_statement_is_written_whole_with_its_times():
    item = deposit()
    start = timezone.now()
    times = [start + timedelta(microseconds=n) for n in range(
        access_counter.ROWS_PER_STATEMENT * 2 + 7)]
    for n, at in enumerate(times):
        access_counter.count(item.pk, [f"10.0.{n // 256}.{n % 256}"], "", at)
    assert access_counter.flush()
    assert sorted(Access.objects.filter(item=item).values_list("at", flat=True)) == times


@pytest.mark.django_db(transaction=True)
def test_a_due_batch_is_written_when_the_next_request_finishes(client, monkeypatch):
    item = deposit()
    monkeypatch.setattr(access_counter, "BATCH_SECONDS", 0)  # every batch due at once
    assert client.get(f"/{item.ibi}").status_code == 302
    # Written after the response, by the request's own thread: no flush, no helper needed.
    assert Access.objects.filter(item=item).count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_batch_no_request_comes_for_is_written_by_the_helper(monkeypatch):
    item = deposit()
    written = threading.Event()
    write = access_counter._write

    def observed(rows):
        write(rows)
        written.set()

    monkeypatch.setattr(access_counter, "_write", observed)
    monkeypatch.setattr(access_counter, "BATCH_SECONDS", 0.01)
    access_counter.count(item.pk, ["10.0.0.1"], "", timezone.now())  # e.g. a Celery task's
    assert written.wait(timeout=10)
    assert Access.objects.filter(item=item).count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_flush_inside_a_transaction_leaves_the_batch_for_later():
    item = deposit()
    access_counter.count(item.pk, ["10.0.0.1"], "", timezone.now())
    with transaction.atomic():
        assert not access_counter.flush()  # a rollback here must not take the counts along
    assert access_counter.flush()
    assert Access.objects.filter(item=item).count() == 1
