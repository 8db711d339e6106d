"""Leased, retried work: the one shape of every queue kept in the database (#40, 4).

The acknowledgments owed (resolver/outbox.py), the access answers owed by mail
(access/services.py `mail_owed`) and the copy jobs (preservation/jobs.py) are rows that say
what must be done; a worker

1. `take`s the rows that are due, in one transaction, skipping those another worker holds,
   and leases them (each queue says how: its due time moved past the lease, or a heartbeat;
   one attempt more), so that a worker killed afterwards leaves them to the next once the
   lease is over;
2. renews the lease of what it still holds along a long run, once a third of it has passed
   (`Renewal`): a live worker never loses its rows, a killed one's are due again soon;
3. gives back a row that failed, due again after a `backoff` (`postpone`), or ends it.

Which fields hold the due time and the attempts is each queue's: the helpers take them as
arguments, not as a base model (the tables exist; #40 changes no schema).
"""
from __future__ import annotations

import time
from datetime import timedelta

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

# More doublings than this would overflow a timedelta; 2**32 × any first wait is past any
# longest one.
_DOUBLINGS = 32


def backoff(attempt: int, *, first: timedelta, longest: timedelta) -> timedelta:
    """How long a row waits after its `attempt`-th try failed: `first`, doubling at each try,
    at most `longest`.

    >>> [backoff(n, first=timedelta(minutes=1), longest=timedelta(hours=1)).seconds // 60
    ...  for n in (1, 2, 3, 6, 7, 1000)]
    [1, 2, 4, 32, 60, 60]
    """
    return min(first * 2 ** min(max(attempt - 1, 0), _DOUBLINGS), longest)


def take(rows: QuerySet, *, order_by: str, limit: int, **lease) -> list:
    """At most `limit` of `rows` (in `order_by` order) that no other worker holds, each given
    `lease` (the field values that put it out of reach) in the same transaction; returned as
    they were before (their attempts not counting this one)."""
    with transaction.atomic():
        taken = list(rows.select_for_update(skip_locked=True).order_by(order_by)[:limit])
        if taken and lease:
            rows.filter(pk__in=[row.pk for row in taken]).update(**lease)
    return taken


def postpone(rows: QuerySet, *, due: str, wait: timedelta, **fields) -> None:
    """`rows` due again `wait` from now (the `due` field), with `fields` set: a lease renewed
    (`wait`: the lease), or a try that failed given back (`wait`: its `backoff`)."""
    rows.update(**{due: timezone.now() + wait}, **fields)


class Renewal:
    """When a lease held along a long run is renewed: `due()` is true once a third of it has
    passed since it was taken or last renewed (and starts the next third)."""

    def __init__(self, lease: timedelta | float) -> None:
        self.every = (lease.total_seconds() if isinstance(lease, timedelta) else lease) / 3
        self.last = time.monotonic()

    def due(self) -> bool:
        if time.monotonic() - self.last < self.every:
            return False
        self.last = time.monotonic()
        return True
