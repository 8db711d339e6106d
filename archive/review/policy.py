"""The review rule, in one place: who may do which transition of a submission, and whether a
write may publish into a collection without review. Every path asks here: the submission and
task services (services.py), the API and admin through them, and every deposit
(deposit/services.py `item_deposit`, through the app config's `check_deposit`).

The transitions, as DSpace's workflow and issue 35 name them::

    draft ──submit──▶ in review (step 1) ──approve──▶ … (step n) ──approve──▶ approved ──▶ published
      │                  │  ▲                                         (publish on a date)
      │               return│resubmit
      │                  ▼  │
      └────withdraw──── returned                     (withdraw: any state before approval)

Who may: the owner saves, submits, resubmits and withdraws their own submission (and submits
only while they hold the submitter role in its collection); a holder of a step's role (or
the collection's administrator) claims the step's task, never of their own submission; only
the claimer approves, returns (with a reason) or unclaims; the collection's administrator
returns a claimed task to the pool, reassigns it to a holder of its role, and publishes an
approved submission. Staff or superuser flags change none of it.

Pure: plain values in (`Actor`, `Case`), a refusal out (archive/refusals.py: 403 who may not,
409 a state that does not allow it, 400 a reason missing).

    >>> owner, reviewer = Actor(1, frozenset({SUBMITTER})), Actor(2, frozenset({REVIEWER}))
    >>> case = Case(owner=1, state=IN_REVIEW, task_role=REVIEWER)
    >>> allowed("claim", reviewer, case), allowed("claim", owner, case)
    (True, False)
    >>> held = case._replace(claimed_by=2)
    >>> allowed("approve", reviewer, case), allowed("approve", reviewer, held)
    (False, True)
    >>> may_publish_directly(None, workflow_kind="single"), may_publish_directly(None, "none")
    (False, True)
"""
from __future__ import annotations

from collections.abc import Iterable
from datetime import date, timedelta
from typing import Any, NamedTuple

from django.utils.translation import gettext as _

from ..refusals import Conflict, Forbidden, Refusal

SUBMITTER, REVIEWER, EDITOR, ADMINISTRATOR = "submitter", "reviewer", "editor", "administrator"
DRAFT, SUBMITTED, IN_REVIEW, RETURNED = "draft", "submitted", "in_review", "returned"
RESUBMITTED, APPROVED, PUBLISHED, WITHDRAWN = "resubmitted", "approved", "published", "withdrawn"

# Each workflow's steps: (step's name, the role whose pool its task waits in).
STEPS: dict[str, tuple[tuple[str, str], ...]] = {
    "none": (),
    "single": (("review", REVIEWER),),
    "three": (("review", REVIEWER), ("edit", EDITOR), ("final_edit", EDITOR)),
}

ACTIONS = ("save", "submit", "resubmit", "withdraw", "claim", "unclaim", "release",
           "reassign", "approve", "return", "publish")

_OWNERS = {"save", "submit", "resubmit", "withdraw"}
_BEFORE_APPROVAL = {DRAFT, SUBMITTED, IN_REVIEW, RETURNED, RESUBMITTED}


class Actor(NamedTuple):
    """Who asks: their user id and the roles they hold in the submission's collection."""

    id: int | None
    roles: frozenset[str] = frozenset()


class Case(NamedTuple):
    """The submission as the rule reads it: its owner and state; its open task's role and
    claimer (none: no open task)."""

    owner: int
    state: str
    task_role: str | None = None
    claimed_by: int | None = None


def check(action: str, actor: Actor, case: Case, *, reason: str = "",
          assignee: Actor | None = None) -> None:
    """Refuse what `actor` may not do to `case`: Forbidden (403) who may not, Conflict (409)
    a state that does not allow it, Refusal (400) a return without a reason or an unknown
    action. Nothing is refused for a staff or superuser flag's sake, nor allowed for it."""
    if action not in ACTIONS:
        raise Refusal(_("%(action)r is not a transition of a submission") % {"action": action})
    if action in _OWNERS:
        _check_owner(action, actor, case)
    elif action == "publish":
        if ADMINISTRATOR not in actor.roles:
            raise Forbidden(_("only the collection's administrator publishes an approved "
                              "submission"))
        if case.state != APPROVED:
            raise Conflict(_("only an approved submission is published; this one is %(state)s")
                           % {"state": case.state})
    else:
        _check_task(action, actor, case, reason, assignee)


def allowed(action: str, actor: Actor, case: Case, **kwargs: Any) -> bool:
    """Whether `check` lets it through."""
    try:
        check(action, actor, case, **kwargs)
    except Refusal:
        return False
    return True


def _check_owner(action: str, actor: Actor, case: Case) -> None:
    if actor.id is None or actor.id != case.owner:
        raise Forbidden(_("this submission is not yours"))
    wanted = {"save": {DRAFT, RETURNED}, "submit": {DRAFT}, "resubmit": {RETURNED},
              "withdraw": _BEFORE_APPROVAL}[action]
    if case.state not in wanted:
        raise Conflict(_("a submission %(state)s cannot be %(action)s") % {
            "state": case.state, "action": _verb(action)})
    if action == "submit" and not actor.roles & {SUBMITTER, ADMINISTRATOR}:
        raise Forbidden(_("you may not submit to this collection: you are not one of its "
                          "submitters"))


def _check_task(action: str, actor: Actor, case: Case, reason: str,
                assignee: Actor | None) -> None:
    role = case.task_role
    admin = ADMINISTRATOR in actor.roles
    if role is None or case.state != IN_REVIEW:
        # Who may not act on the collection's tasks at all learns nothing of its state.
        if not actor.roles & {REVIEWER, EDITOR, ADMINISTRATOR}:
            raise Forbidden(_("you hold no reviewing role in this collection"))
        raise Conflict(_("this submission has no open task: it is %(state)s")
                       % {"state": case.state})
    if role not in actor.roles and not admin:
        raise Forbidden(_("this task waits for the %(role)s role, which you do not hold in "
                          "this collection") % {"role": role})
    if action == "claim":
        if actor.id == case.owner:
            raise Forbidden(_("no one reviews their own submission"))
        if case.claimed_by is not None:
            raise Conflict(_("this task is claimed already"))
    elif action in ("release", "reassign"):
        if not admin:
            raise Forbidden(_("only the collection's administrator returns a task to the "
                              "pool or gives it to someone"))
        if action == "release" and case.claimed_by is None:
            raise Conflict(_("this task is in the pool already"))
        if action == "reassign":
            if assignee is None or assignee.id is None:
                raise Refusal(_("to whom: name the person the task goes to"))
            if assignee.id == case.owner:
                raise Forbidden(_("no one reviews their own submission"))
            if role not in assignee.roles and ADMINISTRATOR not in assignee.roles:
                raise Forbidden(_("that person does not hold the %(role)s role in this "
                                  "collection") % {"role": role})
    else:  # unclaim, approve, return: the claimer's
        if case.claimed_by != actor.id:
            raise Forbidden(_("you do not hold this task: claim it first")
                            if case.claimed_by is None else _("someone else holds this task"))
        if action == "return" and not reason.strip():
            raise Refusal(_("reason: a submission is returned with a reason"))


def _verb(action: str) -> str:
    return {"save": _("changed"), "submit": _("submitted"), "resubmit": _("resubmitted"),
            "withdraw": _("withdrawn")}[action]


def next_state(action: str, state: str, step: int | None, steps: int,
               publishes_at_once: bool) -> tuple[str, int | None]:
    """(state, step) after `action` (which `check` allowed): a submission submitted enters
    the first step (or, with no step, is approved); an approval moves it to the next step, or
    approves it at the last; approved and published at once unless the collection publishes
    on a date.

    >>> next_state("approve", IN_REVIEW, 0, 3, True), next_state("approve", IN_REVIEW, 2, 3, True)
    (('in_review', 1), ('published', None))
    """
    if action in ("submit", "resubmit"):
        return (IN_REVIEW, 0) if steps else (PUBLISHED if publishes_at_once else APPROVED, None)
    if action == "approve":
        if step is not None and step + 1 < steps:
            return IN_REVIEW, step + 1
        return (PUBLISHED if publishes_at_once else APPROVED), None
    if action == "return":
        return RETURNED, None
    if action == "withdraw":
        return WITHDRAWN, None
    if action == "publish":
        return PUBLISHED, None
    return state, step  # claim, unclaim, release, reassign, save


def check_embargo(embargo_until: date | None, today: date, max_days: int) -> None:
    """Refuse (Refusal, 400) an embargo a submitter chooses past the collection's longest,
    `max_days` from `today` (0: none at all).

    >>> check_embargo(date(2027, 1, 1), date(2026, 1, 1), 730)
    >>> check_embargo(date(2029, 1, 1), date(2026, 1, 1), 730)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    archive.refusals.Refusal: embargo_until: ... of 730 days at most, until 2028-01-01
    """
    if embargo_until is None:
        return
    if max_days <= 0:
        raise Refusal(_("embargo_until: this collection allows no embargo"))
    last = today + timedelta(days=max_days)
    if embargo_until > last:
        raise Refusal(_("embargo_until: this collection allows an embargo of %(days)d days at "
                        "most, until %(last)s") % {"days": max_days, "last": last.isoformat()})


def is_reviewed(workflow_kind: str | None) -> bool:
    """A collection whose deposits pass a review (a workflow with steps)."""
    return bool(STEPS.get(workflow_kind or "none", ()))


def may_publish_directly(user: Any, workflow_kind: str | None) -> bool:
    """The one question every write path asks: may `user` put content into a collection with
    this workflow (None: none) without a review? Only where it has no step; there, the
    caller's own permissions (a librarian's, a submitter's) decide as before. The user is
    given, and ignored on purpose: no role, staff or superuser flag publishes unreviewed
    content (InvenioRDM #2383)."""
    return not is_reviewed(workflow_kind)


def check_deposit(kinds: Iterable[str | None], provenance: str) -> None:
    """Refuse (Forbidden) a deposit of new content where one of `kinds` (the workflows of its
    collection and of the items it is an edition or translation of) reviews: it goes through
    a submission. An approved submission ("reviewed") and content a librarian says was
    published elsewhere ("elsewhere": imports, harvests, restores) pass."""
    if provenance not in ("new", "reviewed", "elsewhere"):
        raise Refusal(_("%(value)r is not a provenance of a deposit") % {"value": provenance})
    if provenance == "new" and not all(may_publish_directly(None, kind) for kind in kinds):
        raise Forbidden(_("this collection reviews what is deposited into it (and a new "
                          "edition or translation of its items): submit it through "
                          "/api/submissions/; an import of content published elsewhere "
                          "says so explicitly"))
