"""Celery tasks of the resolver: the acknowledgments owed to other Archives (RTC-11 §8.2 step 5).

Thin: what is owed is in the database (outbox.py), written with the resolution; these tasks
send it. `send_acknowledgments` runs when a resolution nudges it (web/nudges.py: off the
reader's thread, one message a second per process at most) and every
IBI_ACKNOWLEDGMENTS_EVERY seconds from the beat, which sends what a lost nudge or a failed
attempt left. Task names keep the ``archive.tasks.`` prefix they had before the code moved
into packages: messages already queued name them so.
"""
from __future__ import annotations

import logging

from celery import shared_task

from ..web import nudges
from . import outbox

logger = logging.getLogger(__name__)


@shared_task(name="archive.tasks.send_acknowledgments")
def send_acknowledgments() -> str:
    """Every acknowledgment that is due, sent (outbox.py); returns what happened."""
    return str(outbox.send_due())


def acknowledge(archive_id: int, pairs: dict[str, str]) -> None:
    """For the view, with the resolution: the acknowledgment owed, and a worker nudged."""
    outbox.owe(archive_id, pairs)
    nudges.soon(send_acknowledgments)


@shared_task(name="archive.tasks.send_acknowledgment")
def send_acknowledgment(archive_id: int, pairs: dict[str, str]) -> str:
    """A message queued by an older version, which sent one acknowledgment per task: now
    owed like any other, and sent with them."""
    outbox.owe(archive_id, pairs)
    return send_acknowledgments()
