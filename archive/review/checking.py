"""The checks before review, run and kept (issue 35, 6): the profile's required fields, each
file's format from its content, a PDF's text layer, a virus scan, a likely duplicate.

They run off the request: a change of a submission's content (and its submission) marks its
checks due (`Submission.checks_due`, written by services.py in the change's transaction);
the edge nudges the task (tasks.py `check_submission`) once the change commits, and the beat
runs whatever a lost nudge left (`run_due`). `run` keeps the results for the content it
checked (`checks.fingerprint`); a result for an older content is never kept over a newer one.

A failing check stops a submission only where the collection's workflow names it blocking
(`Workflow.blocking_checks`): `refuse_blocked`, which `submit` asks, reads the results kept
for the submission's content; with none kept yet (the nudge has not reached a worker), it
runs the blocking checks now; and it runs the duplicate check again, whose answer depends on
others' content. Claims and approvals never run a check.
"""
from __future__ import annotations

import contextlib
import logging
import uuid
from collections.abc import Iterable
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from ..deposit import pending
from ..models import (
    DcValue,
    Item,
    PendingUpload,
    Submission,
    SubmissionCheck,
    Workflow,
    accepted_formats,
)
from ..profiles import selectors as profile_selectors
from ..refusals import Refusal
from ..search import selectors as search
from . import checks, tools
from .checks import Result

State = Submission.State
OPEN = (State.DRAFT, State.SUBMITTED, State.IN_REVIEW, State.RETURNED, State.RESUBMITTED,
        State.APPROVED)
CANDIDATES = 50  # items a title's search brings to compare, at most

logger = logging.getLogger(__name__)


class BlockingCheck(Refusal):
    """A submission stopped by a check its collection makes blocking (a 400 naming it)."""


def mark_due(submission: Submission) -> None:
    """The submission's checks are owed (saved by the caller, in its transaction)."""
    submission.checks_due = timezone.now()


def _workflow(submission: Submission) -> tuple[list[str], list[str]]:
    """(accepted formats, blocking checks) of the submission's collection's workflow."""
    found = Workflow.objects.filter(collection_id=submission.collection_id).values_list(
        "accepted_formats", "blocking_checks").first()
    if found is None:
        return [], []
    try:
        accepted = accepted_formats(found[0])
    except ValueError:  # a librarian's typo, kept by raw SQL: any format, rather than none
        accepted = []
    return accepted, list(found[1] or [])


# -- The checks ------------------------------------------------------------------------------

def _required(submission: Submission) -> Result:
    entries = profile_selectors.entries_of(profile_selectors.profile_of(submission.collection))
    return checks.required_result(submission.title, entries, submission.metadata)


def _uploads(submission: Submission) -> list[PendingUpload]:
    found = {str(u.pk): u for u in PendingUpload.objects.filter(
        pk__in=[f for f in submission.files if _is_uuid(f)], owner_id=submission.owner_id)}
    return [found[f] for f in submission.files if f in found]


def _is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def _files(submission: Submission, names: set[str], accepted: list[str]) -> list[Result]:
    """The file checks of `names` for each of the submission's uploads: one local path each
    (a copy with S3), one virus scan for them all."""
    results: list[Result] = []
    with contextlib.ExitStack() as stack:
        paths: dict[str, PendingUpload] = {}
        for upload in _uploads(submission):
            if not upload.complete:
                results.append(checks.unfinished_result(upload.name, file=str(upload.pk)))
                continue
            path = stack.enter_context(pending.local_path(upload))
            paths[str(path)] = upload
            results.extend(_one_file(upload, Path(path), names, accepted))
        if checks.VIRUS in names and paths:
            scans = tools.scan({path: str(u.pk) for path, u in paths.items()})
            for upload in paths.values():
                results.append(checks.virus_result(upload.name, scans[str(upload.pk)],
                                                   file=str(upload.pk)))
    return results


def _one_file(upload: PendingUpload, path: Path, names: set[str],
              accepted: list[str]) -> list[Result]:
    results = []
    found = tools.identify(path)
    if checks.FORMAT in names:
        results.append(checks.format_result(upload.name, found, accepted, file=str(upload.pk)))
    if checks.TEXT_LAYER in names and checks.is_pdf(found):
        text, pages = tools.pdf_text(path)
        results.append(checks.text_layer_result(upload.name, text, file=str(upload.pk),
                                                pages=pages))
    return results


def _creators(metadata: Iterable[dict]) -> list[str]:
    return [row["value"] for row in metadata
            if row.get("field") in ("dc.creator", "dc.contributor.author")]


def _duplicate(submission: Submission) -> Result:
    """Items whose title a phrase search finds, and other open submissions, compared."""
    key = checks.duplicate_key(submission.title)
    candidates: list[checks.Candidate] = []
    if key:
        others = Item.objects.exclude(state=Item.State.DELETED).exclude(is_archive_service=True)
        # A new edition has its earlier editions' title and creators, on purpose; a
        # translation, the original's creators.
        if submission.previous_edition_id is not None:
            others = others.exclude(edition_family=submission.previous_edition.edition_family)
        if submission.translation_of_id is not None:
            others = others.exclude(pk=submission.translation_of_id)
        items, _ranked = search.matching(others, f'"{submission.title.replace(chr(34), " ")}"')
        found = list(items.values_list("pk", "ibi", "title")[:CANDIDATES])
        creators: dict[int, list[str]] = {}
        for item_id, value in DcValue.objects.filter(
                item_id__in=[pk for pk, _ibi, _title in found], element="creator").values_list(
                "item_id", "value"):
            creators.setdefault(item_id, []).append(value)
        candidates += [checks.Candidate("item", ibi, title, tuple(creators.get(pk, ())))
                       for pk, ibi, title in found]
        # Open submissions are few beside items, and their titles are not indexed: compared
        # here, their metadata read only for those of the same title.
        same = [pk for pk, title in Submission.objects.filter(state__in=OPEN).exclude(
            pk=submission.pk).values_list("pk", "title") if checks.duplicate_key(title) == key]
        candidates += [checks.Candidate("submission", str(pk), title, tuple(_creators(meta)))
                       for pk, title, meta in Submission.objects.filter(pk__in=same)
                       .values_list("pk", "title", "metadata")]
    return checks.duplicate_result(submission.title, _creators(submission.metadata),
                                   candidates)


def results_of(submission: Submission, names: Iterable[str] = checks.CHECKS) -> list[Result]:
    """The checks of `names` run now on the submission as it is."""
    names = set(names)
    results = []
    if checks.REQUIRED in names:
        results.append(_required(submission))
    if names & set(checks.FILE_CHECKS):
        accepted, _blocking = _workflow(submission)
        results += _files(submission, names, accepted)
    if checks.DUPLICATE in names:
        results.append(_duplicate(submission))
    return results


def _rows(submission: Submission, print_: str, results: Iterable[Result]
          ) -> list[SubmissionCheck]:
    return [SubmissionCheck(submission=submission, name=r.name, file=r.file,
                            file_name=r.file_name[:255], outcome=r.outcome, message=r.message,
                            params=r.params, details=r.details, fingerprint=print_)
            for r in results]


def run(submission_id: int) -> list[SubmissionCheck] | None:
    """Every check of the submission, kept in place of the earlier ones: None when there is
    no such open submission, or its content changed while it was checked (the change made the
    checks due again, and their next run keeps its own)."""
    submission = Submission.objects.select_related("collection", "previous_edition").filter(
        pk=submission_id).first()
    if submission is None:
        return None
    if submission.state not in OPEN:  # published (its files are the item's now) or withdrawn
        Submission.objects.filter(pk=submission_id).update(checks_due=None)
        return None
    print_ = checks.fingerprint(submission)
    results = results_of(submission)  # the tools' time: outside any transaction
    with transaction.atomic():
        locked = Submission.objects.select_for_update().filter(pk=submission_id).first()
        if locked is None or checks.fingerprint(locked) != print_:
            return None
        SubmissionCheck.objects.filter(submission=locked).delete()
        kept = SubmissionCheck.objects.bulk_create(_rows(locked, print_, results))
        Submission.objects.filter(pk=locked.pk).update(checks_due=None)
    return kept


def run_due(limit: int = 100) -> int:
    """The checks of the open submissions whose checks are due, oldest first (the beat's
    run); how many were kept."""
    due = list(Submission.objects.filter(checks_due__isnull=False, state__in=OPEN)
               .order_by("checks_due").values_list("pk", flat=True)[:limit])
    kept = 0
    for pk in due:
        try:
            kept += run(pk) is not None
        except Exception:  # one submission's trouble stops not the others'; it stays due
            logger.exception("the checks of submission %s failed", pk)
    return kept


def refuse_blocked(submission: Submission) -> None:
    """Refuse (BlockingCheck, a 400 naming the check) a submission that a check blocking in
    its collection fails, or, with settings.IBI_VIRUS_SCAN_REQUIRED, could not run."""
    _accepted, blocking = _workflow(submission)
    blocking = [name for name in blocking if name != checks.REQUIRED]  # submit checks them
    if not blocking:
        return
    # A run keeps every result for a content at once (the required fields and the duplicate
    # check always give one): none kept for this content, and the blocking checks run now.
    stored = [Result(r.name, r.outcome, r.message, r.params, r.file, r.file_name)
              for r in submission.checks.filter(fingerprint=checks.fingerprint(submission))]
    if stored:
        again = {checks.DUPLICATE} & set(blocking)
        results = [r for r in stored if r.name not in again] + results_of(submission, again)
    else:
        results = results_of(submission, blocking)
    found = checks.blocking(results, blocking, unscanned_blocks=settings.IBI_VIRUS_SCAN_REQUIRED)
    if found is not None:
        raise BlockingCheck(_("%(check)s: %(reason)s (this collection does not take a "
                              "submission that fails this check)") % {
            "check": found.name, "reason": found.text()})
