"""What the review reads: the roles a person holds in a collection, a collection's workflow,
the tasks in a person's pools and the submissions they may see. Pools are computed from the
roles at each query: a person given a role sees every task already waiting in it."""
from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import NamedTuple

from django.contrib.auth import get_user_model
from django.db.models import Q, QuerySet
from django.utils import timezone, translation

from ..models import (
    Collection,
    CollectionRole,
    PendingUpload,
    Submission,
    SubmissionCheck,
    Task,
    Transition,
    Workflow,
)
from . import checks, policy

REVIEWING = (policy.REVIEWER, policy.EDITOR, policy.ADMINISTRATOR)
# The steps' names by their place in a workflow (the three steps' names; one review's is the
# first): what the queue shows and filters by.
STEP_NAMES = tuple(name for name, _role in policy.STEPS["three"])
# The queue's orders: a name the page offers → the columns, the oldest first on a tie.
QUEUE_ORDERS = {
    "age": ("created", "id"),
    "-age": ("-created", "-id"),
    "collection": ("submission__collection__%(name)s", "created", "id"),
    "step": ("step", "created", "id"),
    "submitter": ("submission__owner__username", "created", "id"),
    "claimer": ("claimed_by__username", "created", "id"),
    "title": ("submission__title", "created", "id"),
}
CLAIMED = ("all", "mine", "unclaimed", "others")


# The largest id a row can have (a signed 64-bit integer's largest value).
LARGEST_ID = 9_223_372_036_854_775_807


def _held(user) -> Q:
    return Q(user=user) | Q(group__in=user.groups.all())


def roles_of(user, collection_id: int | None) -> frozenset[str]:
    """The roles `user` holds in the collection, through their groups or in their own name
    (an anonymous user holds none). A staff or superuser flag is no role."""
    if user is None or not getattr(user, "is_authenticated", False) or collection_id is None:
        return frozenset()
    return frozenset(CollectionRole.objects.filter(_held(user), collection_id=collection_id)
                     .values_list("role", flat=True))


def held_roles(user) -> QuerySet[CollectionRole]:
    """Every role `user` holds, in any collection, through a group or in their own name
    (a person's account page lists them), by collection."""
    if user is None or not getattr(user, "is_authenticated", False):
        return CollectionRole.objects.none()
    return (CollectionRole.objects.filter(_held(user)).select_related("collection")
            .order_by("collection__slug", "role", "pk"))


def roles_in(user, collection_ids: Iterable[int]) -> dict[int, frozenset[str]]:
    """The roles `user` holds in each of these collections, one query (a page of tasks)."""
    found: dict[int, set[str]] = {pk: set() for pk in collection_ids}
    if getattr(user, "is_authenticated", False) and found:
        for pk, role in CollectionRole.objects.filter(
                _held(user), collection_id__in=list(found)).values_list("collection_id",
                                                                       "role"):
            found[pk].add(role)
    return {pk: frozenset(roles) for pk, roles in found.items()}


def actor(user, collection_id: int | None) -> policy.Actor:
    """The rule's `Actor` for `user` in a collection."""
    return policy.Actor(getattr(user, "pk", None), roles_of(user, collection_id))


def workflow_kind(collection_id: int | None) -> str:
    """The collection's workflow ("none" when it has none)."""
    if collection_id is None:
        return Workflow.Kind.NONE
    return (Workflow.objects.filter(collection_id=collection_id)
            .values_list("kind", flat=True).first() or Workflow.Kind.NONE)


def may_publish_directly(user, collection: Collection) -> bool:
    """policy.may_publish_directly for a collection as stored: may `user` put content into it
    without a review (only where its workflow has no step, whoever asks)."""
    return policy.may_publish_directly(user, workflow_kind(collection.pk))


def workflow_kinds(collection_ids: Iterable[int | None]) -> list[str]:
    """The workflows of these collections, one query ("none" for each without one)."""
    ids = {pk for pk in collection_ids if pk is not None}
    found = dict(Workflow.objects.filter(collection_id__in=ids)
                 .values_list("collection_id", "kind"))
    return [found.get(pk, Workflow.Kind.NONE) for pk in ids]


def publish_on(collection_id: int):
    return (Workflow.objects.filter(collection_id=collection_id)
            .values_list("publish_on", flat=True).first())


def submitter_collections(user) -> QuerySet[Collection]:
    """The collections `user` may submit to."""
    if not getattr(user, "is_authenticated", False):
        return Collection.objects.none()
    return Collection.objects.filter(
        pk__in=CollectionRole.objects.filter(
            _held(user), role__in=[policy.SUBMITTER, policy.ADMINISTRATOR])
        .values("collection_id"))


def tasks_for(user) -> QuerySet[Task]:
    """The open tasks in `user`'s pools (of a role they hold in the task's collection, or any
    of a collection they administer) and those they claimed. The roles are read once, here:
    the pools are plain lists of collections in the query."""
    if not getattr(user, "is_authenticated", False):
        return Task.objects.none()
    held: dict[str, list[int]] = {}
    for collection_id, role in CollectionRole.objects.filter(_held(user)).values_list(
            "collection_id", "role").distinct():
        held.setdefault(role, []).append(collection_id)
    pools = Q(claimed_by=user)
    for role in (policy.REVIEWER, policy.EDITOR):
        if held.get(role):
            pools |= Q(role=role, submission__collection_id__in=held[role])
    if held.get(policy.ADMINISTRATOR):
        pools |= Q(submission__collection_id__in=held[policy.ADMINISTRATOR])
    return (Task.objects.filter(closed__isnull=True).filter(pools)
            .select_related("submission__collection", "submission__owner", "claimed_by")
            .prefetch_related("submission__checks"))


def submissions_for(user) -> QuerySet[Submission]:
    """The submissions `user` owns."""
    if not getattr(user, "is_authenticated", False):
        return Submission.objects.none()
    return (Submission.objects.filter(owner=user).select_related("collection")
            .prefetch_related("checks"))


def open_task(submission: Submission) -> Task | None:
    return submission.tasks.filter(closed__isnull=True).first()


def case_of(submission: Submission, task: Task | None) -> policy.Case:
    return policy.Case(owner=submission.owner_id, state=submission.state,
                       task_role=task.role if task is not None else None,
                       claimed_by=task.claimed_by_id if task is not None else None)


def checks_of(submission: Submission) -> list[SubmissionCheck]:
    """The results of the checks before review kept for the submission's content as it is
    now (none while they are due); its `checks` prefetched, no query."""
    current = checks.fingerprint(submission)
    return [row for row in submission.checks.all() if row.fingerprint == current]


class CheckShown(NamedTuple):
    """One check's result as a page shows it, in the active language: the check's name, its
    outcome (pass, warn, fail, not_run) and that outcome's name, its message, the file it is
    about ("" for the submission as a whole)."""

    check: str
    outcome: str
    outcome_label: str
    message: str
    file_name: str


# Failures first, then what needs a look, then what passed.
_SHOWN_ORDER = {SubmissionCheck.Outcome.FAIL: 0, SubmissionCheck.Outcome.WARN: 1,
                SubmissionCheck.Outcome.NOT_RUN: 2, SubmissionCheck.Outcome.PASS: 3}


def check_results(submission: Submission) -> list[CheckShown]:
    """The results of `checks_of`, each with its message in the active language (the
    submitter's and the reviewer's pages): failures first, then warnings, checks not run and
    passes; the submission's own before its files'. Its `checks` prefetched: no query."""
    rows = sorted(checks_of(submission), key=lambda r: (
        _SHOWN_ORDER.get(r.outcome, 4), r.file_name, checks.CHECKS.index(r.name)
        if r.name in checks.CHECKS else len(checks.CHECKS), r.pk))
    return [CheckShown(row.get_name_display(), row.outcome, row.get_outcome_display(),
                       checks.translated(row.message, row.params), row.file_name)
            for row in rows]


def history(submission: Submission) -> QuerySet[Transition]:
    """Every transition of the submission, oldest first."""
    return Transition.objects.filter(submission=submission).order_by("at", "id")


def return_reasons(submissions: Iterable[Submission]) -> dict[int, str]:
    """The reason of each returned submission's last return, by its id (one query)."""
    ids = [s.pk for s in submissions if s.state == Submission.State.RETURNED]
    found: dict[int, str] = {}
    for pk, reason in (Transition.objects.filter(submission_id__in=ids, action="return")
                       .order_by("at", "id").values_list("submission_id", "reason")):
        found[pk] = reason  # the last one wins
    return found


def queue(user, *, collection: int | None = None, step: int | None = None,
          claimed: str = "all", older_than_days: int | None = None, order: str = "age",
          now: datetime | None = None) -> QuerySet[Task]:
    """The reviewer's queue (/review/): the open tasks in `user`'s pools (`tasks_for`), of one
    collection, at one step (0: the first), claimed by them ("mine"), by nobody
    ("unclaimed"), by someone else ("others") or "all", waiting at least `older_than_days`
    days, in one of QUEUE_ORDERS (the values are the page's form's, checked there)."""
    tasks = tasks_for(user)
    if collection is not None:
        tasks = tasks.filter(submission__collection_id=collection)
    if step is not None:
        tasks = tasks.filter(step=step)
    if claimed == "mine":
        tasks = tasks.filter(claimed_by=user)
    elif claimed == "unclaimed":
        tasks = tasks.filter(claimed_by__isnull=True)
    elif claimed == "others":
        tasks = tasks.filter(claimed_by__isnull=False).exclude(claimed_by=user)
    if older_than_days:
        tasks = tasks.filter(created__lte=(now or timezone.now())
                             - timedelta(days=older_than_days))
    return tasks.order_by(*(column % {"name": _name_field()} for column in QUEUE_ORDERS[order]))


def _name_field() -> str:
    """A collection's name column in the active language (Collection.name's first)."""
    return "name_pt_br" if (translation.get_language() or "").lower().startswith("pt") \
        else "name_en"


def reviewing_collections(user) -> QuerySet[Collection]:
    """The collections where `user` holds a reviewing role (the queue's filter offers them)."""
    if not getattr(user, "is_authenticated", False):
        return Collection.objects.none()
    return Collection.objects.filter(pk__in=CollectionRole.objects.filter(
        _held(user), role__in=REVIEWING).values("collection_id")).order_by(_name_field(), "pk")


def task_seen_by(user, pk: int) -> Task | None:
    """The task (open or closed), if `user` may see it: they hold a reviewing role in its
    collection, or hold it; None otherwise, as for a task that does not exist."""
    if not 0 < pk <= LARGEST_ID:  # no row has it (a database's integer holds no more)
        return None
    task = (Task.objects.select_related("submission__collection", "submission__owner",
                                        "claimed_by").filter(pk=pk).first())
    if task is None:
        return None
    if task.claimed_by_id == user.pk or roles_of(user, task.submission.collection_id) \
            & set(REVIEWING):
        return task
    return None


def holders(collection_id: int, roles: Iterable[str]):
    """The active accounts holding one of `roles` in the collection, in their own name or
    through a group."""
    held = CollectionRole.objects.filter(collection_id=collection_id, role__in=list(roles))
    return (get_user_model().objects.filter(is_active=True)
            .filter(Q(pk__in=held.values("user_id")) | Q(groups__in=held.values("group_id")))
            .distinct().order_by("username", "pk"))


def assignees(task: Task):
    """Who an administrator may give the task to: the holders of its role or of the
    collection's administration, but its submitter."""
    return holders(task.submission.collection_id, {task.role, policy.ADMINISTRATOR}).exclude(
        pk=task.submission.owner_id)


def reviewers():
    """The active accounts holding a reviewing role in some collection (the digest's
    readers)."""
    held = CollectionRole.objects.filter(role__in=REVIEWING)
    return (get_user_model().objects.filter(is_active=True)
            .filter(Q(pk__in=held.values("user_id")) | Q(groups__in=held.values("group_id")))
            .distinct().order_by("pk"))


def files_of(submission: Submission) -> list[PendingUpload]:
    """The submission's uploads, in its order (one gone is left out)."""
    found = {str(u.pk): u for u in PendingUpload.objects.filter(
        pk__in=submission.files, owner_id=submission.owner_id)}  # ids the services checked
    return [found[f] for f in submission.files if f in found]


def check_summaries(submissions: Iterable[Submission]) -> dict[int, dict[str, int]]:
    """Per submission (by id), how many of the checks before review kept for its content as
    it is now passed, warned (a check not run is a warning) and failed: {"pass": 2, "warn": 1,
    "fail": 0}, for the queue's column and the task's page; none for a submission not checked
    yet. Its `checks` prefetched: no query."""
    found: dict[int, dict[str, int]] = {}
    for submission in submissions:
        rows = checks_of(submission)
        if rows:
            counts = found[submission.pk] = {"pass": 0, "warn": 0, "fail": 0}
            for row in rows:
                counts["warn" if row.outcome == SubmissionCheck.Outcome.NOT_RUN
                       else row.outcome] += 1
    return found
