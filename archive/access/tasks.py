"""Celery tasks of access: thin, idempotent, plain values in.

`lift_embargoes` runs shortly after midnight in TIME_ZONE (CELERY_BEAT_SCHEDULE); a second
run finds nothing to lift. `mail_access_answers` mails the answers owed to readers
(services.py `mail_owed`: kept in the database until mailed), nudged when a librarian answers
(web/nudges.py: off the librarian's thread) and run by the beat every
IBI_ACCESS_MAILS_EVERY seconds, which sends what a lost nudge or a failed try left. Without a
broker (tasks in process) the nudge runs it at once, in the librarian's request.
`erase_access_requests` runs every night: requests' personal data are kept
IBI_ACCESS_REQUEST_DAYS days (services.py `erase_old_requests`). `mail_request_notices` tells
the librarians of new requests (notices.py): nudged when a reader asks, run by the beat for the
digests and the retries.
"""
from __future__ import annotations

from celery import shared_task

from . import notices, services


@shared_task(name="archive.tasks.lift_embargoes")
def lift_embargoes() -> int:
    """Open every item whose embargo has come to its end."""
    return len(services.lift_embargoes())


@shared_task(name="archive.tasks.mail_access_answers")
def mail_access_answers() -> str:
    """Every answer owed to a reader and due, mailed; what happened."""
    return str(services.mail_owed())


@shared_task(name="archive.tasks.mail_access_answer")
def mail_answer(*args) -> str:
    """A message queued by an older version (one answer per task, its link's URL in the
    message): the answers owed are in the database now, and mailed with the others."""
    return mail_access_answers()


@shared_task(name="archive.tasks.erase_access_requests")
def erase_access_requests() -> int:
    """The personal data of requests past IBI_ACCESS_REQUEST_DAYS erased; how many."""
    return services.erase_old_requests()


@shared_task(name="archive.tasks.mail_request_notices")
def mail_request_notices() -> int:
    """The notices of new requests owed and due, mailed; how many requests they named."""
    return notices.mail_due()
