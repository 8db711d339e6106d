"""Celery tasks of usage: thin, idempotent.

`roll_up_months` runs on day 1 of every month, shortly after midnight UTC (CELERY_BEAT_SCHEDULE),
and rolls up the month that ended (and any missed): month M is in the COUNTER reports by day 2
of M+1. A second run finds nothing due.
"""
from __future__ import annotations

from datetime import UTC, datetime

from celery import shared_task

from . import counter, rollup


@shared_task(name="archive.tasks.roll_up_months")
def roll_up_months() -> int:
    """Roll up every month due; how many."""
    counter.flush()
    due = rollup.months_due(datetime.now(UTC).date())
    for month in due:
        rollup.roll_up(month)
    return len(due)
