"""Celery tasks of preservation: thin, idempotent, plain values in (ids and strings).

Task names keep the ``archive.tasks.`` prefix they had before the code moved into packages:
messages already queued, and the beat schedule, name them so.

Copies are jobs in the database (jobs.py): `run_copy_job` runs one (a second message for it
finds it claimed, or done, and does nothing); `resume_copy_jobs`, from the beat and when a
worker starts, runs those due, and those whose worker was killed. `refresh_copies` (hourly)
asks for a job per Copy; `check_fixity` (daily) hashes stored files again; `identify_files`
reads new files' formats once their deposit commits, `identify_due` those a nudge missed. Tasks are
acknowledged late (settings): a message whose worker died is delivered again by the broker,
and finds its work done.
"""
from __future__ import annotations

import logging
import uuid

from celery import shared_task
from celery.signals import worker_ready
from django.core.cache import cache

from ..db import leases
from ..refusals import Refusal, StorageFull
from . import copies, fixity, formats, jobs

logger = logging.getLogger(__name__)


@shared_task(name="archive.tasks.run_copy_job")
def run_copy_job(job_id: int) -> str:
    """Copy or refresh one item from the Archive its job names (jobs.py)."""
    job = jobs.claim(job_id)
    if job is None:
        return "not due, done, or at work in another worker"
    jobs.sweep(job)
    try:
        result = copies.copy_item(ibi=job.ibi, source=job.source, watch=jobs.watch(job))
    except (copies.PeerFailed, StorageFull) as exc:
        return jobs.failed(job, str(exc), retry=True)  # the peer, or room here, may mend
    except Refusal as exc:  # refused for good: retrying changes nothing
        return jobs.failed(job, str(exc), retry=False)
    except Exception as exc:
        jobs.failed(job, f"{type(exc).__name__}: {exc}", retry=True)
        raise
    return jobs.finished(job, result.outcome)


@shared_task(name="archive.tasks.resume_copy_jobs")
def resume_copy_jobs() -> int:
    """Run every copy job that is due, or whose worker is gone (jobs.at_work)."""
    found = jobs.at_work()
    for job_id in found:
        run_copy_job.delay(job_id)
    return len(found)


@worker_ready.connect
def resume_when_a_worker_starts(sender=None, **kwargs) -> None:
    """A worker back from a crash picks up at once what is due (the beat does the rest)."""
    try:
        resume_copy_jobs.delay()
    except Exception:  # a broker that failed at this instant: the beat's run does it
        logger.exception("copy jobs not resumed at start")


@shared_task(name="archive.tasks.copy_item")
def copy_item(ibi: str, source: str) -> str:
    """A message queued by an older version: the copy asked for as a job, and run."""
    return run_copy_job(jobs.request(ibi=ibi, source=source).pk)


@shared_task(name="archive.tasks.refresh_copies")
def refresh_copies() -> int:
    """Ask for a copy job for every Copy from its source, least recently copied first."""
    found = copies.copies_to_refresh()
    for ibi, source in found:
        run_copy_job.delay(jobs.request(ibi=ibi, source=source).pk)
    return len(found)


FIXITY_RUN = "ibi:fixity:run"  # held in the shared cache while a run works
FIXITY_LEASE = 300  # seconds, longer than a large file's hashing; renewed between files


@shared_task(name="archive.tasks.check_fixity")
def check_fixity() -> str:
    """Today's fixity slice (fixity.daily: every file within IBI_FIXITY_PERIOD_DAYS), the
    history's months kept, and the alarm mailed when there is one. A failed check is a
    finding, not an exception. One run at a time: a second message (the first one put back
    by the broker while its run works, IBI_TASK_REDELIVERY) finds the run's lease and does
    nothing; a run killed mid-way leaves its lease to expire, and the message put back does
    the rest (each check is kept as it is done: the slice goes on from the longest
    unverified)."""
    own = uuid.uuid4().hex
    if not cache.add(FIXITY_RUN, own, FIXITY_LEASE):
        return "at work in another worker"
    renewal = leases.Renewal(FIXITY_LEASE)

    def renew() -> None:
        if renewal.due():
            cache.touch(FIXITY_RUN, FIXITY_LEASE)

    try:
        day = fixity.daily(between=renew)
        if day.alarms:
            fixity.mail_alarms(day.alarms)
    finally:
        if cache.get(FIXITY_RUN) == own:  # its own lease only, not a later run's
            cache.delete(FIXITY_RUN)
    return f"{day.files} files checked: {len(day.failed)} changed or missing"


@shared_task(name="archive.tasks.identify_files")
def identify_files(*file_ids: int) -> int:
    """The files' formats from their content (formats.py), each with its event."""
    return formats.identify(file_ids)


@shared_task(name="archive.tasks.identify_due")
def identify_due() -> int:
    """Files never identified (a nudge lost, a copy, a rebuilt bag), a batch of them."""
    return formats.identify(formats.due().values_list("pk", flat=True)[:formats.BATCH])
