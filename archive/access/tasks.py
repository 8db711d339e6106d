"""Celery tasks of access: thin, idempotent, plain values in.

`lift_embargoes` runs shortly after midnight in TIME_ZONE (CELERY_BEAT_SCHEDULE); a second
run finds nothing to lift. `mail_answer` mails the answer to a request for a copy, retried
while the mail server fails; run in process (no broker) a failure is logged, and the admin
shows the answer as not mailed.
"""
from __future__ import annotations

import logging
import smtplib

from celery import shared_task
from django.db import transaction

from . import services

logger = logging.getLogger(__name__)


@shared_task(name="archive.tasks.lift_embargoes")
def lift_embargoes() -> int:
    """Open every item whose embargo has come to its end."""
    return len(services.lift_embargoes())


@shared_task(name="archive.tasks.mail_access_answer", bind=True, max_retries=8)
def mail_answer(self, request_id: int, url: str | None) -> str:
    try:
        services.mail_answer(request_id=request_id, url=url)
    except (smtplib.SMTPException, OSError) as exc:
        if self.request.is_eager:
            logger.error("access: the answer to request %s was not mailed: %s", request_id, exc)
            return f"failed: {exc}"
        raise self.retry(exc=exc, countdown=min(60 * 2 ** self.request.retries, 3600)) \
            from None
    return "mailed"


def mail_after_commit(request_id: int, url: str | None) -> None:
    """Enqueue `mail_answer` once the answer is committed."""
    def enqueue() -> None:
        try:
            mail_answer.delay(request_id, url)
        except Exception:  # a broker outage: the admin shows the answer as not mailed
            logger.exception("access: the answer to request %s was not enqueued", request_id)
    transaction.on_commit(enqueue)
