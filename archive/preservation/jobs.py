"""Copy jobs: a copy asked for is kept in the database until it is done (issue #30, 6 and 12).

A Celery message only says "run job n now"; the job is the row (models.CopyJob), so that:

* the admin reports a copy as queued, and shows its progress, from the row, never from a
  result backend (there is none);
* a worker killed mid-copy (`kill -9`, a lost machine) loses nothing: the job's heartbeat,
  renewed as its bytes arrive (archive/db/leases.py, as every queue's lease), stops; once
  it is IBI_COPY_LEASE old the job is at work again (`at_work`), the beat sends it to a
  worker, and that run first sweeps the temporary files the killed one left (`sweep`: they
  are named after the job) and copies again, keeping every file already stored whole
  (copies.py). Redone within IBI_COPY_LEASE and a half of a worker being back; the broker's
  own return of the killed message (after its visibility timeout) then finds the job done
  and does nothing;
* one job at a time per IBI (a unique constraint), however often it is asked for; a second
  message for it, or a second worker, finds it claimed (`claim`) and leaves it;
* a failure the other Archive may mend (not reachable, a checksum wrong) or a full storage is
  tried again after a backoff (a minute, doubling, at most an hour), up to MAX_ATTEMPTS; a
  refusal (an Original here, a tombstone) ends it.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone

from ..db import leases
from ..identifiers import ibi as ibilib
from ..models import CopyJob

logger = logging.getLogger(__name__)

MAX_ATTEMPTS = 8
FIRST_RETRY = timedelta(minutes=1)
LONGEST_RETRY = timedelta(hours=1)
AT_WORK = (CopyJob.State.QUEUED, CopyJob.State.RUNNING)


def _lease() -> timedelta:
    return timedelta(seconds=settings.IBI_COPY_LEASE)


def request(*, ibi: str, source: str) -> CopyJob:
    """The job copying `ibi` from `source`: the one at work for that IBI, or a new one."""
    canonical = str(ibilib.parse(ibi))  # ValueError for what is no IBI
    for _attempt in (1, 2):
        found = CopyJob.objects.filter(ibi=canonical, state__in=AT_WORK).first()
        if found is not None:
            return found
        try:
            with transaction.atomic():
                return CopyJob.objects.create(ibi=canonical, source=source)
        except IntegrityError:  # asked for at the same moment elsewhere: that one
            continue
    return CopyJob.objects.get(ibi=canonical, state__in=AT_WORK)


def claim(job_id: int) -> CopyJob | None:
    """The job, now running for this worker; None when it is not due, done, or at work in
    another worker whose heartbeat is fresh."""
    now = timezone.now()
    taken = leases.take(CopyJob.objects.filter(pk=job_id).filter(
        Q(state=CopyJob.State.QUEUED, due__lte=now)
        | Q(state=CopyJob.State.RUNNING, heartbeat__lt=now - _lease())
    ), order_by="pk", limit=1, state=CopyJob.State.RUNNING, heartbeat=now,
        attempts=F("attempts") + 1, done_bytes=0)
    return CopyJob.objects.get(pk=job_id) if taken else None


def at_work() -> list[int]:
    """Jobs a worker should run now: queued and due for a lease (a nudge would have started
    them), or running with a heartbeat older than the lease (their worker is gone)."""
    stale = timezone.now() - _lease()
    return list(CopyJob.objects.filter(
        Q(state=CopyJob.State.QUEUED, due__lte=stale)
        | Q(state=CopyJob.State.RUNNING, heartbeat__lt=stale)).values_list("pk", flat=True))


def temporary_prefix(job: CopyJob) -> str:
    return f"copy-{job.pk}-"


def sweep(job: CopyJob) -> int:
    """Remove the temporary files an earlier run of the job left (a worker killed)."""
    swept = 0
    for path in Path(settings.FILE_UPLOAD_TEMP_DIR).glob(f"{temporary_prefix(job)}*"):
        path.unlink(missing_ok=True)
        swept += 1
    if swept:
        logger.info("copy job %s: %d temporary files of an earlier run swept", job.pk, swept)
    return swept


@dataclass
class Watch:
    """What a copy tells its job while it works (peer.download, copies.py): the bytes it
    will fetch, and each chunk as it arrives; the heartbeat and progress are written at most
    every third of a lease."""

    job: CopyJob
    prefix: str = ""
    done: int = 0
    renewal: leases.Renewal = field(
        default_factory=lambda: leases.Renewal(settings.IBI_COPY_LEASE))

    def planned(self, total: int) -> None:
        CopyJob.objects.filter(pk=self.job.pk).update(total_bytes=total,
                                                      heartbeat=timezone.now())

    def arrived(self, count: int) -> None:
        self.done += count
        if self.renewal.due():
            CopyJob.objects.filter(pk=self.job.pk).update(done_bytes=self.done,
                                                          heartbeat=timezone.now())


def watch(job: CopyJob) -> Watch:
    return Watch(job, temporary_prefix(job))


def finished(job: CopyJob, outcome: str) -> str:
    CopyJob.objects.filter(pk=job.pk).update(state=CopyJob.State.DONE, outcome=outcome,
                                             finished=timezone.now(), done_bytes=F("total_bytes"))
    return outcome


def failed(job: CopyJob, reason: str, *, retry: bool) -> str:
    """The run failed: the job waits for its next attempt, or (`retry` false, or attempts
    exhausted) ends as failed."""
    now = timezone.now()
    if retry and job.attempts < MAX_ATTEMPTS:
        wait = leases.backoff(job.attempts, first=FIRST_RETRY, longest=LONGEST_RETRY)
        leases.postpone(CopyJob.objects.filter(pk=job.pk), due="due", wait=wait,
                        state=CopyJob.State.QUEUED, outcome=reason[:1000])
        logger.warning("copy of %s from %s failed (attempt %d, again in %s): %s", job.ibi,
                       job.source, job.attempts, wait, reason)
        return f"failed: {reason}"
    CopyJob.objects.filter(pk=job.pk).update(state=CopyJob.State.FAILED, outcome=reason[:1000],
                                             finished=now)
    logger.warning("copy of %s from %s refused or given up: %s", job.ibi, job.source, reason)
    return f"refused: {reason}" if not retry else f"failed: {reason}"
