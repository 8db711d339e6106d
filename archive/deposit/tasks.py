"""Celery tasks of deposit: thin, idempotent, plain values in.

`sweep_uploads` runs every hour (CELERY_BEAT_SCHEDULE): the pending uploads past their expiry
go with their bytes, and so do bytes in the upload folder (or the bucket's uploads/) that no
upload claims once STRAY_AGE old, the sweep `manage.py fsck` also does. A second run finds
nothing to remove.
"""
from __future__ import annotations

from celery import shared_task

from . import pending

STRAY_AGE = 3600  # seconds: younger bytes may be an upload being created (fsck's --min-age)


@shared_task(name="archive.tasks.sweep_uploads")
def sweep_uploads() -> int:
    """Every expired upload, and every stray, removed; how many."""
    return len(pending.sweep(STRAY_AGE))
