"""Celery tasks of the review: thin, idempotent, plain values in.

`publish_approved` runs shortly after midnight in TIME_ZONE (CELERY_BEAT_SCHEDULE): the
approved submissions of collections publishing on a day that has come are published
(services.py `publish_due`, as `manage.py publishapproved`); a second run finds none.
"""
from __future__ import annotations

from celery import shared_task

from . import services


@shared_task(name="archive.tasks.publish_approved")
def publish_approved() -> int:
    """Publish what is due; how many were published."""
    published, _refused = services.publish_due()
    return len(published)
