"""Celery tasks of the review: thin, idempotent, plain values in.

`publish_approved` runs shortly after midnight in TIME_ZONE (CELERY_BEAT_SCHEDULE): the
approved submissions of collections publishing on a day that has come are published
(services.py `publish_due`, as `manage.py publishapproved`); a second run finds none.

`check_submission` runs the checks before review of one submission (checking.py `run`),
nudged by the edges once a change of its content commits; `check_submissions`, run by the
beat every IBI_SUBMISSION_CHECKS_EVERY seconds, those whose checks a lost nudge left due.
Both are idempotent: a run keeps the results for the content it read, in place of others.

`mail_review_notices` mails the notices owed (notices.py): nudged by the edges after a
transition, run by the beat every IBI_ACCESS_MAILS_EVERY seconds for the retries.
`review_digest` writes each reviewer's digest of the day in the morning and mails it (as
`manage.py reviewdigest`); a second run the same day writes none.
"""
from __future__ import annotations

from celery import shared_task

from . import checking, notices, services


@shared_task(name="archive.tasks.publish_approved")
def publish_approved() -> int:
    """Publish what is due; how many were published."""
    published, _refused = services.publish_due()
    return len(published)


@shared_task(name="archive.tasks.check_submission")
def check_submission(submission_id: int) -> int:
    """The submission's checks run and kept; how many results (0: none kept, the content
    changed meanwhile or it is no longer open)."""
    return len(checking.run(submission_id) or [])


@shared_task(name="archive.tasks.check_submissions")
def check_submissions() -> int:
    """The checks due, run; for how many submissions."""
    return checking.run_due()


@shared_task(name="archive.tasks.mail_review_notices")
def mail_review_notices() -> int:
    """The review's notices owed, mailed; how many."""
    return notices.mail_due()


@shared_task(name="archive.tasks.review_digest")
def review_digest() -> int:
    """Today's digests written and every notice owed mailed; how many mails went."""
    notices.digest()
    return notices.mail_due()
