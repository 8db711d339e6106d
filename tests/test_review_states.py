"""No illegal transition is ever accepted (issue 35): hypothesis drives the review's services
with every role (and none, and a staff superuser, and a reviewer of another collection) ×
every transition, against the issue's own table of who may do what, written here apart from
archive/review/policy.py. A refused transition changes nothing; an accepted one does exactly
what the table says; an item (and its IBI) exists exactly when the submission is published."""
from __future__ import annotations

import itertools

import pytest
from django.contrib.auth.models import User
from django.db import transaction
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

from archive.models import CollectionRole, Item, Submission, Task, Transition, Workflow
from archive.refusals import Refusal
from archive.review import services as review
from tests import factories as make

pytestmark = pytest.mark.django_db

ACTORS = ("owner", "reviewer", "editor", "admin", "other_reviewer", "superuser", "stranger")
ACTIONS = ("save", "submit", "withdraw", "claim", "unclaim", "release", "reassign", "approve",
           "return")
# The roles each actor holds in the collection under test (the table).
ROLES = {"owner": {"submitter"}, "reviewer": {"reviewer"}, "editor": {"editor"},
         "admin": {"administrator"}}
STEP_ROLES = {"single": ["reviewer"], "three": ["reviewer", "editor", "editor"]}
_RUN = itertools.count()
PROBED: set[tuple] = set()  # the states whose every move was probed, in this run


class _Undo(Exception):
    """Rolls an accepted probe back."""


def expected(model: dict, actor: str, action: str, reason: str, assignee: str) -> bool:
    """Whether the issue allows it, from the model's state."""
    state, claimed = model["state"], model["claimed"]
    role = STEP_ROLES[model["kind"]][model["step"]] if state == "in_review" else None
    holds = ROLES.get(actor, set())
    if action == "save":
        return actor == "owner" and state in ("draft", "returned")
    if action == "submit":
        return actor == "owner" and state in ("draft", "returned")
    if action == "withdraw":
        return actor == "owner" and state in ("draft", "in_review", "returned")
    if state != "in_review":
        return False
    if action == "claim":
        return (role in holds or "administrator" in holds) and actor != "owner" \
            and claimed is None
    if action in ("unclaim", "approve"):
        return claimed == actor
    if action == "return":
        return claimed == actor and bool(reason.strip())
    if action == "release":
        return "administrator" in holds and claimed is not None
    # reassign
    target = ROLES.get(assignee, set())
    return ("administrator" in holds and assignee != "owner"
            and (role in target or "administrator" in target))


def after(model: dict, actor: str, action: str, assignee: str) -> None:
    steps = len(STEP_ROLES[model["kind"]])
    if action == "submit":
        model.update(state="in_review", step=0, claimed=None)
    elif action == "withdraw":
        model.update(state="withdrawn", claimed=None)
    elif action == "claim":
        model["claimed"] = actor
    elif action in ("unclaim", "release"):
        model["claimed"] = None
    elif action == "reassign":
        model["claimed"] = assignee
    elif action == "return":
        model.update(state="returned", claimed=None)
    elif action == "approve":
        if model["step"] + 1 < steps:
            model.update(step=model["step"] + 1, claimed=None)
        else:
            model.update(state="published", claimed=None)


@pytest.fixture
def people():
    users = {name: User.objects.create(username=f"sm-{name}") for name in ACTORS}
    users["superuser"].is_staff = users["superuser"].is_superuser = True
    users["superuser"].save()
    return users


def test_no_illegal_transition_is_ever_accepted(people):
    PROBED.clear()
    unit = make.community("states")
    other = make.collection("states-other", unit)
    CollectionRole.objects.create(collection=other, role="reviewer",
                                  user=people["other_reviewer"])

    class Review(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            self.collection = None

        @rule(kind=st.sampled_from(sorted(STEP_ROLES)))
        def start(self, kind: str) -> None:
            """A new collection of this workflow and a complete draft in it."""
            if self.collection is not None:
                return
            self.collection = make.collection(f"states-{next(_RUN)}", unit)
            Workflow.objects.create(collection=self.collection, kind=kind)
            for actor, roles in ROLES.items():
                for role in roles:
                    CollectionRole.objects.create(collection=self.collection, role=role,
                                                  user=people[actor])
            self.submission = make.submission(people["owner"], self.collection)
            self.model = {"kind": kind, "state": "draft", "step": 0, "claimed": None}

        @rule(actor=st.sampled_from(ACTORS), action=st.sampled_from(ACTIONS),
              reason=st.sampled_from(["", " ", "falta o resumo"]),
              assignee=st.sampled_from(ACTORS))
        def act(self, actor: str, action: str, reason: str, assignee: str) -> None:
            if self.collection is None:
                return
            allowed = expected(self.model, actor, action, reason, assignee)
            before = Submission.objects.get(pk=self.submission.pk)
            history = Transition.objects.filter(submission=before).count()
            try:
                self._do(people[actor], action, reason, people[assignee])
            except Refusal:
                assert not allowed, (self.model, actor, action, reason, assignee)
                now = Submission.objects.get(pk=self.submission.pk)
                assert (now.state, now.version) == (before.state, before.version)
                assert Transition.objects.filter(submission=now).count() == history
                return
            assert allowed, (self.model, actor, action, reason, assignee)
            after(self.model, actor, action, assignee)

        @rule()
        def progress(self) -> None:
            """The move that takes the submission on (so that every state is visited and
            probed by `act`): the owner submits, the step's role claims, the claimer approves."""
            if self.collection is None:
                return
            state, claimed = self.model["state"], self.model["claimed"]
            if state in ("draft", "returned"):
                self.act("owner", "submit", "", "owner")
            elif state == "in_review" and claimed is None:
                role = STEP_ROLES[self.model["kind"]][self.model["step"]]
                self.act(role, "claim", "", "owner")
            elif state == "in_review":
                self.act(claimed, "approve", "", "owner")

        @rule()
        def probe_every_move(self) -> None:
            """Every actor × every transition from this state (once per state seen): each
            one the table forbids is refused, each one it allows is accepted (then undone)."""
            if self.collection is None:
                return
            model = self.model
            key = (model["kind"], model["state"], model["step"], model["claimed"])
            if key in PROBED:
                return
            PROBED.add(key)
            for actor, action in itertools.product(ACTORS, ACTIONS):
                reasons = ("", "falta o resumo") if action == "return" else ("",)
                assignees = ACTORS if action == "reassign" else ("owner",)
                for reason, assignee in itertools.product(reasons, assignees):
                    try:
                        with transaction.atomic():
                            self.act(actor, action, reason, assignee)
                            raise _Undo
                    except _Undo:
                        self.model = dict(model)

        def _do(self, user, action: str, reason: str, assignee) -> None:
            submission = Submission.objects.get(pk=self.submission.pk)
            if action == "save":
                review.submission_update(user=user, submission=submission, version=None,
                                         title="Outro título")
            elif action == "submit":
                review.submit(user=user, submission=submission)
            elif action == "withdraw":
                review.withdraw(user=user, submission=submission)
            else:
                task = (Task.objects.filter(submission=submission).order_by("-id").first())
                if task is None:
                    raise Refusal("no task yet")  # nothing to act on: refused as the API would
                review.task_act(user=user, task=task, action=action, reason=reason,
                                assignee=assignee)

        @invariant()
        def the_database_says_what_the_model_says(self) -> None:
            if self.collection is None:
                return
            submission = Submission.objects.get(pk=self.submission.pk)
            assert submission.state == self.model["state"]
            open_tasks = list(Task.objects.filter(submission=submission, closed__isnull=True))
            assert len(open_tasks) == (self.model["state"] == "in_review")
            if open_tasks:
                task = open_tasks[0]
                assert task.step == self.model["step"]
                assert task.role == STEP_ROLES[self.model["kind"]][self.model["step"]]
                claimed = self.model["claimed"]
                assert task.claimed_by_id == (people[claimed].pk if claimed else None)
            published = self.model["state"] == "published"
            assert (submission.item_id is not None) == published
            assert Item.objects.filter(collection=self.collection).count() == published

    run_state_machine_as_test(Review, settings=settings(
        max_examples=12, stateful_step_count=20, deadline=None,
        suppress_health_check=[HealthCheck.too_slow]))
