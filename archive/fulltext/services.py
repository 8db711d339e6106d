"""A file's text, page by page, and its thumbnail: extracted in the sandbox, recorded.

`extract(file_id)` reads the file's text (its text layer, its XML, its bytes), OCRs the PDF
pages and images that have none, and records how it went, once (FileExtraction): done, empty
(no text at all: flagged), failed (the reason: flagged), skipped (a kind without text). OCR
that reads garbage on a page (too few common words, low confidence: text.garbage) keeps
nothing of that page and flags the file with the page's reason: never a silent success. A
file that came from DSpace with a TEXT bundle beside it (`<name>.txt`, as DSpace names it)
keeps that text as its own (source "bundle"), unless it is empty: then the file is read.

`make_thumbnail(file_id)` keeps DSpace's THUMBNAIL (`<name>.jpg`) where there is one, else
renders the first page of a PDF or an image as WebP (400 pixels the longer side) under
thumbnails/<repository name>/<file id>.webp, outside col/ (no download path, no copy, no
fsck orphan: a thumbnail is derived, made again by `manage.py thumbnails`).

Both are idempotent: a second run replaces what the first recorded.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from ..deposit import storage
from ..models import Bundle, FileExtraction, FilePage, ItemFile
from . import sandbox, text

State, Source = FileExtraction.State, FilePage.Source
THUMBNAILS = "thumbnails"
DSPACE_THUMBNAILS = (".jpg", ".jpeg", ".png", ".gif", ".webp")
STALE = timedelta(hours=1)  # a claim older than this was a worker's that died
MAX_BUNDLE_BYTES = text.MAX_FILE_CHARS


@dataclass
class Outcome:
    pages: list[tuple[int, str, str]] = field(default_factory=list)  # number, text, source
    method: str = ""
    problems: list[str] = field(default_factory=list)
    failed: str = ""
    skipped: str = ""


def timeout() -> float:
    return float(settings.IBI_EXTRACT_TIMEOUT)


def extract(file_id: int) -> FileExtraction | None:
    """The file's text extracted and recorded; None for no such file (an original)."""
    found = ItemFile.objects.select_related("item").filter(pk=file_id).first()
    if found is None:
        return None
    row, _new = FileExtraction.objects.get_or_create(file=found)
    FileExtraction.objects.filter(pk=row.pk).update(state=State.PENDING, started=timezone.now(),
                                                    finished=None)
    kind = text.kind_of(found.name, found.content_type)
    outcome = _bundled(found) or _read(found, kind)
    return _record(row.pk, found, outcome)


def _bundled(found: ItemFile) -> Outcome | None:
    """The text DSpace extracted from the file (its TEXT bundle's `<name>.txt`), or None when
    there is none or it is empty."""
    bundled = ItemFile.every_bundle.filter(item=found.item, bundle=Bundle.TEXT,
                                           name=f"{found.name}.txt").first()
    if bundled is None:
        return None
    with storage.open_file(found.item.ibi, bundled.name, Bundle.TEXT) as opened:
        pages = text.paginate(text.decode(opened.read(MAX_BUNDLE_BYTES)))
    if not pages:
        return None
    return Outcome(pages=[(n, t, Source.BUNDLE) for n, t in enumerate(pages, 1)],
                   method="dspace TEXT bundle")


def _read(found: ItemFile, kind: str | None) -> Outcome:
    if kind is None:
        return Outcome(skipped=f"no text to extract from {found.content_type}")
    with storage.open_file(found.item.ibi, found.name) as source, \
            sandbox.workspace(source) as work:
        answer = sandbox.run(work, "text", kind, timeout=timeout())
        if answer.error:
            return Outcome(failed=answer.error)
        numbered = list(enumerate(answer.data.get("pages", []), 1))
        outcome = Outcome(pages=[(n, t, Source.LAYER) for n, t in numbered if text.has_text(t)],
                          method=answer.data.get("method", kind))
        blank = answer.data.get("blank", [])
        if blank and settings.IBI_OCR:
            _ocr(work, kind, blank, outcome)
    outcome.pages.sort()
    return outcome


def _ocr(work: str, kind: str, blank: list[int], outcome: Outcome) -> None:
    """OCR of the pages without text, each in a sandbox of its own, the first
    IBI_OCR_MAX_PAGES of them: past those the file is flagged, its other pages unread (a
    worker is not held for hours by one long scan)."""
    read, cap = 0, settings.IBI_OCR_MAX_PAGES
    if len(blank) > cap:
        outcome.problems.append(f"OCR stopped after {cap} pages (IBI_OCR_MAX_PAGES): "
                                f"{len(blank) - cap} pages without text not read, "
                                f"from page {blank[cap]}")
    for number in blank[:cap]:
        answer = sandbox.run(work, "ocr", kind, str(number), timeout=timeout())
        why = answer.error or text.garbage(answer.data.get("words", []),
                                           answer.data.get("confidences", []))
        if why:
            outcome.problems.append(f"OCR of page {number}: {why}")
            continue
        outcome.pages.append((number, answer.data["text"], Source.OCR))
        read += 1
    if read:
        outcome.method = "ocr" if outcome.method in ("ocr", "") or len(outcome.pages) == read \
            else f"{outcome.method} and ocr"


def _record(pk: int, found: ItemFile, outcome: Outcome) -> FileExtraction:
    if outcome.failed:
        state, reason = State.FAILED, outcome.failed
    elif outcome.skipped:
        state, reason = State.SKIPPED, outcome.skipped
    elif outcome.pages:
        state, reason = State.DONE, "; ".join(outcome.problems)
    else:
        state, reason = State.EMPTY, "; ".join(outcome.problems) or "no text found"
    with transaction.atomic():
        row = FileExtraction.objects.select_for_update().get(pk=pk)
        FilePage.objects.filter(file=found).delete()
        FilePage.objects.bulk_create(
            [FilePage(file=found, number=n, text=t, source=s) for n, t, s in outcome.pages],
            batch_size=500)
        row.state, row.reason = state, reason[:10_000]
        row.method = outcome.method[:32]
        row.pages = len(outcome.pages)
        row.flagged = state in (State.FAILED, State.EMPTY) or bool(outcome.problems)
        row.finished = timezone.now()
        row.save(update_fields=["state", "reason", "method", "pages", "flagged", "finished"])
    return row


# -- Thumbnails -----------------------------------------------------------------------------

def thumbnail_key(found: ItemFile) -> str:
    return f"{THUMBNAILS}/{found.item.ibi}/{found.pk}.webp"


def make_thumbnail(file_id: int) -> FileExtraction | None:
    """The file's thumbnail kept (DSpace's) or made, and recorded; None for no such file."""
    found = ItemFile.objects.select_related("item").filter(pk=file_id).first()
    if found is None:
        return None
    row, _new = FileExtraction.objects.get_or_create(file=found)
    key, problem = _dspace_thumbnail(found), ""
    kind = text.kind_of(found.name, found.content_type)
    if not key and text.thumbnailed(kind):
        key, problem = _render(found, kind)
    FileExtraction.objects.filter(pk=row.pk).update(thumbnail=key, thumbnail_problem=problem)
    row.thumbnail, row.thumbnail_problem = key, problem
    return row


def _dspace_thumbnail(found: ItemFile) -> str:
    names = [found.name + suffix for suffix in DSPACE_THUMBNAILS]
    kept = ItemFile.every_bundle.filter(item=found.item, bundle=Bundle.THUMBNAIL,
                                        name__in=names).order_by("name").first()
    return storage.file_key(found.item.ibi, kept.name, Bundle.THUMBNAIL) if kept else ""


def _render(found: ItemFile, kind: str) -> tuple[str, str]:
    """(storage key, "") of the thumbnail rendered, or ("", why not)."""
    key = thumbnail_key(found)
    with storage.open_file(found.item.ibi, found.name) as source, \
            sandbox.workspace(source) as work:
        made = os.path.join(work, "thumbnail.webp")
        answer = sandbox.run(work, "thumbnail", kind, made, timeout=timeout())
        if answer.error:
            return "", answer.error[:500]
        default_storage.delete(key)
        with open(made, "rb") as image:
            saved = default_storage.save(key, File(image))
    return saved, ""


# -- What is due ----------------------------------------------------------------------------

def due() -> QuerySet[ItemFile]:
    """The originals never extracted, or whose extraction a dead worker left claimed."""
    stale = timezone.now() - STALE
    return ItemFile.objects.filter(
        Q(extraction__isnull=True)
        | Q(extraction__state=State.PENDING)
        & (Q(extraction__started__lt=stale) | Q(extraction__started__isnull=True))
    ).order_by("pk")


def process(file_id: int) -> FileExtraction | None:
    """A file's text and thumbnail, as after its deposit."""
    extract(file_id)
    return make_thumbnail(file_id)
