"""Fixity: hash the stored bytes again and compare them with what each file row recorded.

Files are checked oldest-checked first (never-checked ones before all others), so repeated
partial runs (`--oldest N`, the daily task) cycle through the whole collection. Each checked
row gets `checked_at` and `fixity_problem` (empty when the bytes are intact), which the admin
lists; a later good check clears an old problem (e.g. after a copy fetched the file again).
Every bundle's files are checked: the work's, and those an item from DSpace keeps beside them
(its TEXT, THUMBNAIL and LICENSE, under col/<rep>/bundles/).
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone

from ..deposit import storage
from ..models import ItemFile
from . import events


@dataclass(frozen=True)
class Finding:
    key: str  # col/<rep>/doc/<name>, or col/<rep>/bundles/<bundle>/<name>
    problem: str  # "" when intact

    @property
    def ok(self) -> bool:
        return not self.problem


BATCH = 200


def due(since) -> QuerySet[ItemFile]:
    """Files not checked since `since`, oldest-checked first, never-checked ones first."""
    return (ItemFile.every_bundle.select_related("item")
            .only("name", "size", "sha256", "checked_at", "fixity_problem", "bundle",
                  "item__ibi")
            .filter(Q(checked_at__isnull=True) | Q(checked_at__lt=since))
            .order_by(F("checked_at").asc(nulls_first=True), "pk"))


def problem_of(row: ItemFile) -> str:
    """What is wrong with the stored bytes of one file row, or ""."""
    key = storage.file_key(row.item.ibi, row.name, row.bundle)
    if not default_storage.exists(key):
        return "missing"
    try:
        with default_storage.open(key, "rb") as stored:
            sha, size = storage.sha256_of(stored)
    except FileNotFoundError:  # removed between the two calls
        return "missing"
    if sha != row.sha256:
        return f"changed: sha256 {sha} ({size} bytes), recorded {row.sha256} ({row.size} bytes)"
    if size != row.size:  # the same digest and another size cannot happen; say it if it does
        return f"changed: {size} bytes, recorded {row.size}"
    return ""


def record(row: ItemFile, problem: str) -> None:
    """Stamp one row with the outcome of its check, and record the check (a PREMIS event)."""
    with transaction.atomic():
        ItemFile.every_bundle.filter(pk=row.pk).update(checked_at=timezone.now(),
                                                  fixity_problem=problem[:255])
        events.record(events.Type.FIXITY_CHECK, ibi=row.item.ibi, file=row.name,
                      outcome=events.Outcome.FAILURE if problem else events.Outcome.SUCCESS,
                      detail=f"SHA-256 {row.sha256}, {row.size} bytes", outcome_detail=problem)


def check(limit: int | None = None) -> Iterator[Finding]:
    """Check up to `limit` files (all when None), oldest-checked first; record and yield each.

    Batches are taken afresh, so the rows this run has stamped drop out of the order it
    walks, and files added meanwhile wait for the next run.
    """
    start, done = timezone.now(), 0
    while limit is None or done < limit:
        size = BATCH if limit is None else min(BATCH, limit - done)
        batch = list(due(start)[:size])
        if not batch:
            return
        for row in batch:
            problem = problem_of(row)
            record(row, problem)
            yield Finding(key=storage.file_key(row.item.ibi, row.name, row.bundle),
                          problem=problem)
        done += len(batch)
