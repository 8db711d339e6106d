"""The transitions of a submission, each atomic: the submission's row is locked, the rule
(policy.py) asked, a stale `version` refused (409), the transition kept in the history, and on
publication the item deposited (deposit/services.py) — its IBI minted then, never before, so a
withdrawn or returned submission burns none. Every refusal is a Refusal (archive/refusals.py)
and nothing is changed by one."""
from __future__ import annotations

import uuid
from collections.abc import Iterable
from datetime import date
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from ..deposit import pending
from ..deposit import services as deposit
from ..models import (
    Collection,
    Item,
    PendingUpload,
    Provenance,
    Submission,
    Task,
    Transition,
)
from ..preservation import events
from ..refusals import Conflict, Forbidden, NotFound, Refusal
from ..registry.names import Qualified
from . import checking, checks, notices, policy, selectors

State = Submission.State
_EDITABLE = ("title", "language", "metadata", "files", "licence_text", "licence_accepted",
             "access_rights", "embargo_until")


def _locked(submission: Submission) -> Submission:
    return Submission.objects.select_for_update().get(pk=submission.pk)


def _fresh(submission: Submission, version: int | None) -> None:
    if version is not None and version != submission.version:
        raise Conflict(_("version: this submission was changed meanwhile (version %(now)d, "
                         "not %(given)d); reload it") % {"now": submission.version,
                                                         "given": version})


def _record(submission: Submission, user, action: str, to: str, step: int | None,
            reason: str = "") -> None:
    Transition.objects.create(
        submission=submission, action=action, actor=user if getattr(user, "pk", None) else None,
        actor_name=getattr(user, "username", "") or "", step=step,
        from_state=submission.state, to_state=to, reason=reason)
    submission.state = to


def _dc(metadata: list[dict]) -> dict[str, list[Qualified]]:
    dc: dict[str, list[Qualified]] = {}
    for row in metadata:
        dc.setdefault(row["field"], []).append(Qualified(
            row["value"], row.get("language", ""), row.get("authority", ""),
            int(row.get("confidence", -1))))
    return dc


def _clean_metadata(metadata: Any) -> list[dict]:
    """The values as kept: a list of {"field", "value", "language", "authority",
    "confidence"}, each checked as a deposit checks it (the registry's fields, dates, ids);
    a 400 naming the field otherwise."""
    if not isinstance(metadata, list) or not all(
            isinstance(row, dict) and isinstance(row.get("field"), str)
            and isinstance(row.get("value"), str) for row in metadata):
        raise Refusal(_("metadata: a list of values, each with a field and a value"))
    kept = [{"field": row["field"], "value": row["value"],
             "language": str(row.get("language") or ""),
             "authority": str(row.get("authority") or ""),
             "confidence": row.get("confidence", -1)} for row in metadata]
    deposit.clean_metadata(_dc(kept))
    return kept


def _clean_files(user, files: Any) -> list[str]:
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        raise Refusal(_("files: a list of the ids of your uploads"))
    owned = {str(pk) for pk in PendingUpload.objects.filter(pk__in=_uuids(files), owner=user)
             .values_list("pk", flat=True)}
    if missing := [f for f in files if f not in owned]:
        raise Refusal(_("files: %(ids)s is not an upload of yours") % {"ids": missing[0]})
    return list(dict.fromkeys(files))


def _uuids(values: Iterable[str]) -> list[str]:
    found = []
    for value in values:
        try:
            found.append(str(uuid.UUID(value)))
        except ValueError:
            continue
    return found


def _apply(submission: Submission, user, fields: dict[str, Any]) -> None:
    unknown = set(fields) - set(_EDITABLE)
    if unknown:
        raise Refusal(_("cannot change %(fields)s") % {"fields": ", ".join(sorted(unknown))})
    if "title" in fields:
        submission.title = deposit._clean_text("title", fields["title"] or "")
    if "language" in fields:
        submission.language = deposit.clean_language(fields["language"])
    if "metadata" in fields:
        submission.metadata = _clean_metadata(fields["metadata"])
    if "files" in fields:
        submission.files = _clean_files(user, fields["files"])
    if "licence_text" in fields:
        submission.licence_text = fields["licence_text"] or ""
        submission.licence_accepted_at = None  # a new text is accepted anew
    if "licence_accepted" in fields:
        submission.licence_accepted_at = timezone.now() if fields["licence_accepted"] else None
    if "access_rights" in fields or "embargo_until" in fields:
        rights = fields.get("access_rights", submission.access_rights)
        day = fields.get("embargo_until", submission.embargo_until)
        if rights:
            level, day, _reason = deposit.clean_access(rights=rights, embargo_until=day)
            policy.check_embargo(day, timezone.localdate(),
                                 submission.collection.max_embargo_days)
            submission.access_rights, submission.embargo_until = level, day
        else:
            submission.access_rights, submission.embargo_until = "", None


@transaction.atomic
def submission_create(*, user, collection: Collection, previous_edition: Item | None = None,
                      translation_of: Item | None = None, **fields: Any) -> Submission:
    """A draft in `collection`, owned by `user`, who must hold its submitter role."""
    roles = selectors.roles_of(user, collection.pk)
    if not roles & {policy.SUBMITTER, policy.ADMINISTRATOR}:
        raise Forbidden(_("you may not submit to this collection: you are not one of its "
                          "submitters"))
    for linked in (previous_edition, translation_of):
        if linked is not None and (linked.is_deleted or linked.state != Item.State.ORIGINAL
                                   or linked.is_archive_service):
            raise Refusal(_("%(ibi)s is not an Original of this Archive") % {"ibi": linked.ibi})
    submission = Submission(owner=user, collection=collection, previous_edition=previous_edition,
                            translation_of=translation_of)
    _apply(submission, user, fields)
    checking.mark_due(submission)
    submission.save()
    Transition.objects.create(submission=submission, action="create", actor=user,
                              actor_name=user.username, from_state=State.DRAFT,
                              to_state=State.DRAFT)
    return submission


@transaction.atomic
def submission_update(*, user, submission: Submission, version: int | None,
                      **fields: Any) -> Submission:
    """The owner's change of a draft or a returned submission."""
    submission = _locked(submission)
    policy.check("save", selectors.actor(user, submission.collection_id),
                 selectors.case_of(submission, None))
    _fresh(submission, version)
    before = checks.fingerprint(submission)
    _apply(submission, user, fields)
    if checks.fingerprint(submission) != before:
        checking.mark_due(submission)
    submission.version += 1
    submission.save()
    return submission


def _check_complete(submission: Submission) -> None:
    """What a submission lacks to be submitted: a title, the profile's required fields, the
    licence accepted (a 400 naming it)."""
    if not submission.title.strip():
        raise Refusal(_("title is required"))
    if submission.licence_text and submission.licence_accepted_at is None:
        raise Refusal(_("licence_accepted: the licence is to be accepted before submitting"))
    if not submission.licence_text:
        raise Refusal(_("licence_text: the licence accepted is kept with the submission"))
    rows = deposit.clean_metadata(_dc(submission.metadata))
    deposit.check_profile(collection=submission.collection, rows=rows)


@transaction.atomic
def submit(*, user, submission: Submission, version: int | None = None) -> Submission:
    """Submit a draft, or resubmit a returned submission: it enters the workflow's first step
    (a task in the pool of its role), or, in a collection without review, is published."""
    submission = _locked(submission)
    action = "resubmit" if submission.state == State.RETURNED else "submit"
    policy.check(action, selectors.actor(user, submission.collection_id),
                 selectors.case_of(submission, None))
    _fresh(submission, version)
    _check_complete(submission)
    checking.refuse_blocked(submission)
    checking.mark_due(submission)  # checked again as submitted: a duplicate may have come
    kind = selectors.workflow_kind(submission.collection_id)
    steps = policy.STEPS[kind]
    submission.steps = [role for _name, role in steps]
    _record(submission, user, action,
            State.SUBMITTED if action == "submit" else State.RESUBMITTED, None)
    submission = _advance(submission, user, action)
    notices.announce(submission, action, actor=user)
    return submission


def _publishes_at_once(submission: Submission, today: date | None = None) -> bool:
    day = selectors.publish_on(submission.collection_id)
    return day is None or day <= (today or timezone.localdate())


def _advance(submission: Submission, user, action: str) -> Submission:
    state, step = policy.next_state(action, submission.state, submission.step,
                                    len(submission.steps), _publishes_at_once(submission))
    if state == State.IN_REVIEW:
        _record(submission, user, action, state, step)
        submission.step = step
        Task.objects.create(submission=submission, step=step, role=submission.steps[step])
    else:
        # The step it was approved at, kept in the history (none: approved on submission).
        _record(submission, user, action, State.APPROVED, submission.step)
        submission.step = None
        if state == State.PUBLISHED:
            _publish(submission, user)
    submission.version += 1
    submission.save()
    return submission


def _publish(submission: Submission, user) -> None:
    """Deposit the approved submission as an item (its IBI minted now) and record it."""
    uploads = list(PendingUpload.objects.filter(pk__in=_uuids(submission.files),
                                                owner=submission.owner))
    if len(uploads) != len(submission.files):
        raise Conflict(_("files: an upload of this submission is gone; the submitter sends "
                         "it again"))
    # Reviewed only if it passed a step: published on submit in a collection without review,
    # it is new content there, and a new edition or translation of a reviewed collection's
    # item is refused as any other deposit would be (InvenioRDM #2383).
    provenance = Provenance.REVIEWED if submission.steps else Provenance.NEW
    access = (deposit.Access(rights=submission.access_rights,
                             embargo_until=submission.embargo_until)
              if submission.access_rights else None)
    with pending.opened(uploads) as files:
        item = deposit.item_deposit(
            title=submission.title, uploads=files, language=submission.language,
            dc=_dc(submission.metadata), previous_edition=submission.previous_edition,
            translation_of=submission.translation_of, access=access,
            collection=submission.collection, by_profile=True,
            provenance=provenance, on_saved=pending.consumed(uploads))
    submission.item = item
    _record(submission, user, "publish", State.PUBLISHED, None)
    agent = events.person(user) if user is not None else events.software()
    _virus_checks(submission, item, uploads)
    events.record(events.Type.ACCESSION, ibi=item.ibi, agent=agent,
                  detail=f"published after review: submission {submission.pk} ({provenance})")


# A check's outcome as a PREMIS event's: a scan that could not run is a warning.
_OUTCOMES = {checks.PASS: events.Outcome.SUCCESS, checks.FAIL: events.Outcome.FAILURE,
             checks.WARN: events.Outcome.WARNING, checks.NOT_RUN: events.Outcome.WARNING}


def _virus_checks(submission: Submission, item: Item, uploads: list[PendingUpload]) -> None:
    """The virus scans of the published content (checking.py ran them before its IBI was
    minted), as the item's files' events, at the time each ran."""
    scans = {c.file: c for c in submission.checks.filter(
        name=checks.VIRUS, fingerprint=checks.fingerprint(submission)).order_by("at", "pk")}
    for upload in uploads:
        scan = scans.get(str(upload.pk))
        if scan is not None:
            events.record(events.Type.VIRUS_CHECK, ibi=item.ibi, file=upload.name,
                          agent=events.software(), at=scan.at,
                          outcome=_OUTCOMES[scan.outcome], detail="ClamAV clamscan",
                          outcome_detail=scan.message % scan.params if scan.params
                          else scan.message)


@transaction.atomic
def withdraw(*, user, submission: Submission, version: int | None = None,
             reason: str = "") -> Submission:
    """The owner withdraws their submission before it is approved; its task closes."""
    submission = _locked(submission)
    task = selectors.open_task(submission)
    policy.check("withdraw", selectors.actor(user, submission.collection_id),
                 selectors.case_of(submission, task))
    _fresh(submission, version)
    if task is not None:
        task.closed = timezone.now()
        task.save(update_fields=["closed"])
    _record(submission, user, "withdraw", State.WITHDRAWN, submission.step, reason)
    submission.step = None
    submission.version += 1
    submission.save()
    notices.announce(submission, "withdraw", actor=user, task=task,
                     claimer=task.claimed_by if task is not None else None)
    return submission


def _task_locked(task: Task) -> tuple[Task, Submission]:
    submission = _locked(task.submission)
    task = Task.objects.select_for_update().get(pk=task.pk)
    if task.closed is not None:
        raise Conflict(_("this task is closed: its step ended"))
    return task, submission


@transaction.atomic
def task_act(*, user, task: Task, action: str, version: int | None = None, reason: str = "",
             assignee=None) -> Task:
    """claim, unclaim, release (to the pool), reassign (to `assignee`), approve or return (with
    `reason`) the task, as the rule allows."""
    if action not in ("claim", "unclaim", "release", "reassign", "approve", "return"):
        raise Refusal(_("%(action)r is not an action on a task") % {"action": action})
    # Who may not see the task's collection at all is refused before its state is told.
    roles = selectors.roles_of(user, task.submission.collection_id)
    if not roles & {policy.REVIEWER, policy.EDITOR, policy.ADMINISTRATOR}:
        raise Forbidden(_("you hold no reviewing role in this collection"))
    task, submission = _task_locked(task)
    actor = selectors.actor(user, submission.collection_id)
    target = (selectors.actor(assignee, submission.collection_id)
              if assignee is not None else None)
    policy.check(action, actor, selectors.case_of(submission, task), reason=reason,
                 assignee=target)
    _fresh(submission, version)
    if action in ("claim", "unclaim", "release", "reassign"):
        task.claimed_by = {"claim": user, "reassign": assignee}.get(action)
        task.save(update_fields=["claimed_by"])
        Transition.objects.create(
            submission=submission, action=action, actor=user, actor_name=user.username,
            step=task.step, from_state=submission.state, to_state=submission.state,
            reason=getattr(assignee, "username", "") if action == "reassign" else "")
        submission.version += 1
        submission.save(update_fields=["version", "updated"])
        notices.announce(submission, action, actor=user, task=task, assignee=assignee)
        return task
    task.closed = timezone.now()
    task.save(update_fields=["closed"])
    if action == "return":
        _record(submission, user, "return", State.RETURNED, task.step, reason.strip())
        submission.step = None
        submission.version += 1
        submission.save()
    else:
        _advance(submission, user, "approve")
    notices.announce(submission, action, actor=user, task=task, reason=reason.strip())
    return task


@transaction.atomic
def publish(*, user, submission: Submission, version: int | None = None) -> Submission:
    """The collection's administrator publishes an approved submission before its day."""
    submission = _locked(submission)
    policy.check("publish", selectors.actor(user, submission.collection_id),
                 selectors.case_of(submission, None))
    _fresh(submission, version)
    _publish(submission, user)
    submission.version += 1
    submission.save()
    notices.announce(submission, "publish", actor=user)
    return submission


def publish_due(today: date | None = None) -> tuple[list[Submission], list[tuple[int, str]]]:
    """The approved submissions whose collection's publication day has come, published, each
    in its own transaction (`manage.py publishapproved`): (those published, (id, reason) of
    those refused, which stay approved and are tried again at the next run)."""
    today = today or timezone.localdate()
    published, refused = [], []
    for submission in Submission.objects.filter(state=State.APPROVED).select_related(
            "collection"):
        if not _publishes_at_once(submission, today):
            continue
        try:
            with transaction.atomic():
                locked = _locked(submission)
                if locked.state == State.APPROVED:
                    _publish(locked, None)
                    locked.version += 1
                    locked.save()
                    notices.announce(locked, "publish", actor=None)
                    published.append(locked)
        except Refusal as exc:
            refused.append((submission.pk, str(exc)))
    return published, refused


def find_submission(pk: Any) -> Submission:
    found = Submission.objects.select_related("collection").filter(pk=pk).first() \
        if str(pk).isdigit() else None
    if found is None:
        raise NotFound(_("no submission %(id)s") % {"id": pk})
    return found

