"""Celery tasks of what is inside the files: thin, idempotent, plain values in.

`extract_files(*file_ids)` reads the text and makes the thumbnails of new files, nudged once
their deposit commits (apps.py `files_stored`, which deposit/services.py calls on commit);
`extract_due`, run by the beat every IBI_EXTRACT_EVERY seconds, those a lost nudge left, and
every file that came in another way (a copy, a rebuilt bag). Each file's work runs in the
sandbox (sandbox.py): a hostile file fails alone, recorded, and the worker goes on.
"""
from __future__ import annotations

from celery import shared_task

from . import services

BATCH = 50  # files a run of extract_due takes, so that a run stays short


@shared_task(name="archive.tasks.extract_files")
def extract_files(*file_ids: int) -> int:
    """The files' text and thumbnails; how many files were there."""
    return sum(services.process(pk) is not None for pk in file_ids)


@shared_task(name="archive.tasks.extract_due")
def extract_due() -> int:
    """The files due, extracted; how many."""
    ids = list(services.due().values_list("pk", flat=True)[:BATCH])
    return extract_files(*ids)
