"""The one helper for leased, retried work (archive/db/leases.py, #40 4): the backoff every
queue waits by, a batch taken once, and a lease renewed once a third of it has passed."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from archive.db import leases
from archive.models import CopyJob

MINUTE, HOUR = timedelta(minutes=1), timedelta(hours=1)


def test_the_backoff_doubles_from_the_first_wait_up_to_the_longest():
    waits = [leases.backoff(n, first=MINUTE, longest=HOUR) for n in range(0, 9)]
    assert waits == [MINUTE, MINUTE, 2 * MINUTE, 4 * MINUTE, 8 * MINUTE, 16 * MINUTE,
                     32 * MINUTE, HOUR, HOUR]
    assert leases.backoff(30_000, first=HOUR, longest=timedelta(days=2)) == timedelta(days=2)


@pytest.mark.django_db
def test_rows_taken_are_leased_once_and_returned_as_they_were():
    for n in range(3):
        CopyJob.objects.create(ibi=f"ibi:{n}", source="http://a.example")
    later = timezone.now() + HOUR
    due = CopyJob.objects.filter(due__lte=timezone.now())

    taken = leases.take(due, order_by="pk", limit=2, due=later, attempts=1)

    assert [job.ibi for job in taken] == ["ibi:0", "ibi:1"]
    assert [job.attempts for job in taken] == [0, 0]  # before this attempt
    assert [job.ibi for job in leases.take(due, order_by="pk", limit=5, due=later)] == [
        "ibi:2"]
    assert leases.take(due, order_by="pk", limit=5, due=later) == []
    leases.postpone(CopyJob.objects.filter(ibi="ibi:0"), due="due", wait=-HOUR, outcome="x")
    assert [(job.ibi, job.outcome) for job in leases.take(due, order_by="pk", limit=5)] == [
        ("ibi:0", "x")]


def test_a_lease_is_renewed_once_a_third_of_it_has_passed(monkeypatch):
    clock = [100.0]
    monkeypatch.setattr(leases.time, "monotonic", lambda: clock[0])
    renewal = leases.Renewal(timedelta(seconds=30))
    clock[0] = 109.9
    assert not renewal.due()
    clock[0] = 110.0
    assert renewal.due()
    assert not renewal.due()  # the next third begins now
    clock[0] = 120.0
    assert renewal.due() and leases.Renewal(3.0).every == 1.0
