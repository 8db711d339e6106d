"""The review's mails (issue 35, 7): whoever must act next is told of each transition, and
each reviewer gets a daily digest of what waits in their pools.

Who, after a transition (`audience`, pure): a task entering a pool (submitted, resubmitted,
approved to the next step, unclaimed or returned to the pool) → the holders of the step's role
in the collection; a task given to someone (reassigned) → that person; returned → the
submitter, with the reason; approved or published → the submitter; withdrawn → whoever held
its task. Nobody is told of their own action, nor a submitter of the pool their own submission
waits in; an account without an email address is told nothing.

When: `announce` writes one ReviewNotice per person in the transition's transaction (the text
written then, in LANGUAGE_CODE); `mail_due` (the task `mail_review_notices`, nudged by the
edges after the commit and run by the beat) mails them. `digest` writes each reviewer's
digest of the day (the task `review_digest` in the morning, `manage.py reviewdigest`), at
most one per person and day. A mail server's failure leaves a notice owed: the next run tries
it again, each try waiting longer after a failure (`due`: 1, 2, 4 … minutes, at most
six hours), ATTEMPTS times at most (some three days of an unreachable server): a mail is late,
not lost.
"""
from __future__ import annotations

import logging
import smtplib
from datetime import date, datetime, timedelta

from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.db.models import F
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from ..db import leases
from ..deposit import links
from ..models import ReviewNotice, Submission, Task
from . import policy, selectors

logger = logging.getLogger(__name__)

ATTEMPTS = 20
LONGEST_WAIT = timedelta(hours=6)
DIGEST_LIST = 50  # the tasks a digest names; the others are counted

POOL, OWNER, ASSIGNEE, CLAIMER = "pool", "owner", "assignee", "claimer"


def audience(action: str, state: str) -> str | None:
    """Who is told after `action` left a submission in `state`: POOL, OWNER, ASSIGNEE,
    CLAIMER or nobody (None).

    >>> audience("submit", "in_review"), audience("approve", "in_review")
    ('pool', 'pool')
    >>> audience("approve", "published"), audience("approve", "approved")
    ('owner', 'owner')
    >>> audience("return", "returned"), audience("reassign", "in_review")
    ('owner', 'assignee')
    >>> audience("claim", "in_review"), audience("withdraw", "withdrawn")
    (None, 'claimer')
    """
    if action == "return":
        return OWNER
    if action == "reassign":
        return ASSIGNEE
    if action == "withdraw":
        return CLAIMER
    if action == "claim":
        return None
    if state == policy.IN_REVIEW:  # submit, resubmit, approve to the next step, unclaim, release
        return POOL
    if state in (policy.APPROVED, policy.PUBLISHED):
        return OWNER
    return None


def task_url(task: Task) -> str:
    return links.base_url(None) + reverse("archive:review_task", args=[task.pk])


def queue_url() -> str:
    return links.base_url(None) + reverse("archive:review_queue")


def step_name(step: int | None) -> str:
    """A step's name as people read it (its place in the workflow)."""
    names = {0: _("review"), 1: _("edit"), 2: _("final edit")}
    return names.get(step, "") if step is not None else ""


def _subject(who: str, submission: Submission) -> str:
    title = submission.title or str(submission)
    if who == POOL:
        text = _("Waiting for review: %(title)s")
    elif who == ASSIGNEE:
        text = _("A task given to you: %(title)s")
    elif who == CLAIMER:
        text = _("Withdrawn by its submitter: %(title)s")
    elif submission.state == policy.RETURNED:
        text = _("Returned to you: %(title)s")
    elif submission.state == policy.PUBLISHED:
        text = _("Published: %(title)s")
    else:
        text = _("Approved: %(title)s")
    return " ".join((text % {"title": title}).split())[:200]


def announce(submission: Submission, action: str, *, actor, task: Task | None = None,
             reason: str = "", assignee=None, claimer=None) -> list[ReviewNotice]:
    """The notices owed after `action` (see above); `task` is the submission's open task (or
    the one just closed), `claimer` who held it before a withdrawal."""
    who = audience(action, submission.state)
    if who is None:
        return []
    if who == POOL:
        task = task if task is not None and task.closed is None else selectors.open_task(
            submission)
        people = list(selectors.holders(submission.collection_id, [task.role])
                      .exclude(pk=submission.owner_id)) if task is not None else []
    else:
        people = [{OWNER: submission.owner, ASSIGNEE: assignee, CLAIMER: claimer}[who]]
    actor_id = getattr(actor, "pk", None)
    people = [p for p in people if p is not None and p.pk != actor_id and p.email
              and p.is_active]
    if not people:
        return []
    with translation.override(settings.LANGUAGE_CODE):
        context = {
            "who": who, "submission": submission, "collection": submission.collection,
            "task": task, "step": step_name(task.step if task is not None else None),
            "reason": reason, "actor": getattr(actor, "username", "") or "",
            "url": task_url(task) if task is not None and who != OWNER else "",
            "persistent_url": (links.persistent_url(submission.item.ibi)
                               if submission.item_id else ""),
            "publish_on": (selectors.publish_on(submission.collection_id)
                           if submission.state == policy.APPROVED else None)}
        subject = _subject(who, submission)
        body = render_to_string("archive/review/mail_transition.txt", context)
    return ReviewNotice.objects.bulk_create([
        ReviewNotice(kind=ReviewNotice.Kind.TRANSITION, user=p, email=p.email,
                     submission=submission, subject=subject, body=body) for p in people])


def digest(today: date | None = None) -> int:
    """Each reviewer's digest of the day owed (what waits in their pools and what they hold),
    unless written already or nothing waits; how many were written."""
    today = today or timezone.localdate()
    done = set(ReviewNotice.objects.filter(digest_of=today).values_list("user_id", flat=True))
    made = 0
    for user in selectors.reviewers().exclude(email="").exclude(pk__in=done):
        tasks = selectors.tasks_for(user).order_by("created", "id")
        total = tasks.count()
        if not total:
            continue
        with translation.override(settings.LANGUAGE_CODE):
            body = render_to_string("archive/review/mail_digest.txt", {
                "tasks": [{"task": t, "step": step_name(t.step), "url": task_url(t)}
                          for t in tasks[:DIGEST_LIST]],
                "total": total, "more": max(0, total - DIGEST_LIST), "day": today,
                "queue_url": queue_url(), "user": user})
            subject = ngettext("%(count)d submission waits in your review pools",
                               "%(count)d submissions wait in your review pools",
                               total) % {"count": total}
        made += len(ReviewNotice.objects.bulk_create(
            [ReviewNotice(kind=ReviewNotice.Kind.DIGEST, user=user, email=user.email,
                          digest_of=today, subject=subject, body=body)],
            ignore_conflicts=True))
    return made


def due(attempts: int, tried_at: datetime | None, now: datetime) -> bool:
    """Whether a notice owed is tried now: at once, then 1, 2, 4 … minutes after each failed
    try, LONGEST_WAIT at most.

    >>> from datetime import datetime
    >>> at = datetime(2026, 1, 1, 12, 0)
    >>> due(0, None, at), due(1, at, at + timedelta(seconds=59)), due(3, at, at.replace(minute=4))
    (True, False, True)
    >>> due(15, at, at.replace(hour=17)), due(15, at, at.replace(hour=18))
    (False, True)
    """
    if tried_at is None or attempts == 0:
        return True
    return now >= tried_at + leases.backoff(attempts, first=timedelta(minutes=1),
                                            longest=LONGEST_WAIT)


def mail_due(*, now: datetime | None = None) -> int:
    """Every notice owed and due mailed, each on its own (one that fails stays owed, its
    attempts counted); how many were mailed."""
    now = now or timezone.now()
    owed = ReviewNotice.objects.filter(sent_at=None, attempts__lt=ATTEMPTS)
    sent = 0
    for pk, attempts, tried_at in list(owed.order_by("pk").values_list(
            "pk", "attempts", "tried_at")):
        if due(attempts, tried_at, now):
            sent += _send(pk, now)
    return sent


def _send(pk: int, now: datetime) -> int:
    with transaction.atomic():
        notice = (ReviewNotice.objects.select_for_update(skip_locked=True)
                  .filter(pk=pk, sent_at=None, attempts__lt=ATTEMPTS).first())
        if notice is None:  # another worker has it, or sent it meanwhile
            return 0
        try:
            send_mail(notice.subject, notice.body, None, [notice.email])
        except (smtplib.SMTPException, OSError) as exc:
            logger.warning("review: the notice %s to %s is not mailed yet: %s", pk,
                           notice.email, exc)
            ReviewNotice.objects.filter(pk=pk).update(attempts=F("attempts") + 1, tried_at=now)
            return 0
        ReviewNotice.objects.filter(pk=pk).update(sent_at=now)
        return 1
