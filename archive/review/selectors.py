"""What the review reads: the roles a person holds in a collection, a collection's workflow,
the tasks in a person's pools and the submissions they may see. Pools are computed from the
roles at each query: a person given a role sees every task already waiting in it."""
from __future__ import annotations

from collections.abc import Iterable

from django.db.models import Q, QuerySet

from ..models import (
    Collection,
    CollectionRole,
    Submission,
    SubmissionCheck,
    Task,
    Transition,
    Workflow,
)
from . import checks, policy


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
    of a collection they administer) and those they claimed."""
    if not getattr(user, "is_authenticated", False):
        return Task.objects.none()
    held = CollectionRole.objects.filter(_held(user))
    admin = held.filter(role=policy.ADMINISTRATOR).values("collection_id")
    pools = Q()
    for role in (policy.REVIEWER, policy.EDITOR):
        pools |= Q(role=role, submission__collection__in=held.filter(role=role)
                   .values("collection_id"))
    return (Task.objects.filter(closed__isnull=True)
            .filter(pools | Q(submission__collection__in=admin) | Q(claimed_by=user))
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
