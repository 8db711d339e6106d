"""The acknowledgments this resolver owes other Archives (RTC-11 §8.2 step 5), kept in the
database until they are sent: a broker that is down or hangs delays them and loses none.

1. `owe`, with the resolution (resolver/views/persistent_urls.py): one INSERT of the Table 8.11
   pairs, nothing more on the reader's path. Every resolution owes its own (§8.2 step 5),
   with the urlkey its own answer brought.
2. `send_due`, in a worker (resolver/tasks.py, nudged after the resolution and run by the beat
   every IBI_ACKNOWLEDGMENTS_EVERY seconds): takes the rows that are due, moving them out of
   reach for LEASE (archive/db/leases.py: a worker killed mid-send leaves them to the next),
   and sends each:
   delivered → done; refused by the Archive (4xx) → done, a retry changes nothing; not
   answered → due again after a backoff (5 s, doubling, at most an hour), and given up after
   GIVE_UP_AFTER, logged. An Archive that does not answer is not asked again in the same
   batch. Each row is delivered once; one delivered twice (a worker killed after the
   delivery, before it was marked) repeats a urlkey the Archive has seen, which it does not
   count again.
3. Done rows are kept while their urlkey could still be sent, IBI_URLKEY_MAX_AGE plus two
   minutes, then swept by `send_due`.
"""
from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db.models import F
from django.utils import timezone

from ..db import leases
from ..models import OwedAcknowledgment, RegisteredArchive
from ..protocol import client as resolver_client

logger = logging.getLogger(__name__)

BATCH = 100
LEASE = timedelta(seconds=30)  # renewed along a batch (db/leases.py): a killed worker's rows
#                                are due again this soon
FIRST_RETRY = timedelta(seconds=5)
LONGEST_RETRY = timedelta(hours=1)
GIVE_UP_AFTER = timedelta(days=1)


def owe(archive_id: int, pairs: dict[str, str]) -> None:
    """Record the acknowledgment one resolution owes the Archive `archive_id`: one INSERT."""
    OwedAcknowledgment.objects.create(archive_id=archive_id, key=secrets.token_hex(32),
                                      pairs=pairs)


@dataclass
class Sent:
    """What one `send_due` did, for the worker's log."""

    delivered: int = 0
    refused: int = 0
    retried: int = 0
    dropped: int = 0  # the Archive excluded or unusable, or given up

    def __str__(self) -> str:
        return (f"{self.delivered} delivered, {self.refused} refused, {self.retried} to retry, "
                f"{self.dropped} dropped")


def _take(now) -> list[OwedAcknowledgment]:
    """The rows due now (at most BATCH), each leased from the moment it is taken (a long run
    leases each batch anew): no other worker takes them meanwhile."""
    return leases.take(OwedAcknowledgment.objects.filter(done_at=None, due__lte=now),
                       order_by="due", limit=BATCH, due=timezone.now() + LEASE,
                       attempts=F("attempts") + 1)


def _done(row: OwedAcknowledgment, outcome: str) -> None:
    OwedAcknowledgment.objects.filter(pk=row.pk).update(done_at=timezone.now(),
                                                         outcome=outcome[:255])


def _again(row: OwedAcknowledgment, outcome: str, attempts: int) -> None:
    leases.postpone(OwedAcknowledgment.objects.filter(pk=row.pk), due="due",
                    wait=leases.backoff(attempts, first=FIRST_RETRY, longest=LONGEST_RETRY),
                    outcome=outcome[:255])


def send_due() -> Sent:
    """Send every acknowledgment that is due (see the module docstring)."""
    sent = Sent()
    now = timezone.now()
    OwedAcknowledgment.objects.filter(done_at__lt=now - timedelta(
        seconds=settings.IBI_URLKEY_MAX_AGE + 120)).delete()
    while rows := _take(now):
        archives = RegisteredArchive.objects.in_bulk({row.archive_id for row in rows})
        silent: dict[int, str] = {}  # Archives that did not answer in this batch
        renewal, left = leases.Renewal(LEASE), {row.pk for row in rows}
        for row in rows:
            left.discard(row.pk)
            if left and renewal.due():  # the rest kept a while longer, the batch being long
                leases.postpone(OwedAcknowledgment.objects.filter(pk__in=left, done_at=None),
                                due="due", wait=LEASE)
            archive = archives.get(row.archive_id)
            if archive is None or not archive.included or not archive.address:
                _done(row, "not sent: the Archive is no longer included")
                sent.dropped += 1
                continue
            if row.archive_id in silent:  # not asked again now: it just did not answer
                _again(row, silent[row.archive_id], row.attempts + 1)
                sent.retried += 1
                continue
            try:
                base = resolver_client.archive_base(archive.address,
                                                    archive.archive_service_ibi)
            except resolver_client.AddressError:
                _done(row, "not sent: the Archive's address is unusable")
                sent.dropped += 1
                continue
            reply = resolver_client.get_pairs(base, row.pairs)
            if reply.ok:
                _done(row, "delivered")
                sent.delivered += 1
            elif reply.status is not None and 400 <= reply.status < 500:
                logger.warning("acknowledgment refused by %s: %s",
                               archive.archive_service_ibi, reply.error)
                _done(row, f"refused: {reply.error}")
                sent.refused += 1
            elif now - row.created >= GIVE_UP_AFTER:
                logger.error("acknowledgment to %s given up after %s: %s",
                             archive.archive_service_ibi, GIVE_UP_AFTER, reply.error)
                _done(row, f"given up: {reply.error}")
                sent.dropped += 1
            else:
                silent[row.archive_id] = f"not delivered: {reply.error}"
                _again(row, silent[row.archive_id], row.attempts + 1)
                sent.retried += 1
    return sent
