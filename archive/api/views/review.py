"""/api/submissions/ and /api/tasks/ (issue 35): a submitter's drafts and their submission,
withdrawal; a reviewer's pools and the tasks' claim, unclaim, approval and return. Thin: the
rule is archive/review/policy.py, the writes archive/review/services.py; a refusal is answered
with its status and reason (403 who may not, 409 a state or a stale version, 400 a field). A
transition's mails are owed by the services; the mailer is nudged after the commit."""
from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from ...models import Task
from ...refusals import Forbidden, NotFound, Refusal
from ...review import selectors, services, tasks
from ...web import nudges
from ..schema import errors, strict_data
from ..serializers.review import (
    SubmissionCreateSerializer,
    SubmissionSerializer,
    SubmissionUpdateSerializer,
    TaskSerializer,
    TransitionSerializer,
)


def _nudge() -> None:
    """The mailer, after the commit, off the request's thread (web/nudges.py)."""
    transaction.on_commit(lambda: nudges.soon(tasks.mail_review_notices))


def _id(pk: str) -> int:
    """A submission's or a task's id as the path gives it (urls.py any_id): a 404 for what is
    no id."""
    if not (pk.isascii() and pk.isdigit() and len(pk) <= 18):
        raise NotFound(_("%(id)r is no id here") % {"id": pk})
    return int(pk)


def _checked(submission):
    """The submission, its checks before review nudged once its change commits (they run in
    the background: tasks.py; the beat runs them if the nudge is lost)."""
    if submission.checks_due is not None:
        pk = submission.pk
        transaction.on_commit(lambda: nudges.soon(tasks.check_submission, pk))
    return submission


def _reread(submission):
    """The submission as it is now, with the checks a nudge in process ran (eager tasks)."""
    return selectors.submissions_for(submission.owner).get(pk=submission.pk)


def _metadata(data: dict) -> None:
    if "metadata" in data:
        data["metadata"] = [dict(row) for row in data["metadata"]]


class SubmissionList(generics.ListAPIView):
    """Your submissions (GET), or a new draft in a collection you submit to (POST)."""

    permission_classes = [IsAuthenticated]
    serializer_class = SubmissionSerializer

    def get_queryset(self):
        return selectors.submissions_for(self.request.user)

    @extend_schema(responses={200: SubmissionSerializer(many=True), **errors(400, 401, 404)})
    def get(self, request, *args, **kwargs) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(request=SubmissionCreateSerializer,
                   responses={201: SubmissionSerializer, **errors(400, 401, 403)})
    def post(self, request) -> Response:
        data = strict_data(SubmissionCreateSerializer, request.data)
        _metadata(data)
        submission = _checked(services.submission_create(user=request.user, **data))
        return Response(SubmissionSerializer(_reread(submission)).data,
                        status=status.HTTP_201_CREATED)


class _OwnSubmission(generics.GenericAPIView):
    permission_classes = [IsAuthenticated]
    serializer_class = SubmissionSerializer

    def submission(self, pk: str):
        """The submission, if it is the user's: another's is a 403, none a 404."""
        found = services.find_submission(_id(pk))
        if found.owner_id != self.request.user.pk:
            raise Forbidden(_("this submission is not yours"))
        return found


class SubmissionDetail(_OwnSubmission):
    """Your submission (GET), or a change of its draft (PATCH, naming the version read)."""

    @extend_schema(responses={200: SubmissionSerializer, **errors(401, 403, 404)})
    def get(self, request, pk: str) -> Response:
        return Response(SubmissionSerializer(self.submission(pk)).data)

    @extend_schema(request=SubmissionUpdateSerializer,
                   responses={200: SubmissionSerializer, **errors(400, 401, 403, 404, 409)})
    def patch(self, request, pk: str) -> Response:
        submission = self.submission(pk)
        data = strict_data(SubmissionUpdateSerializer, request.data)
        _metadata(data)
        version = data.pop("version")
        submission = _checked(services.submission_update(
            user=request.user, submission=submission, version=version, **data))
        return Response(SubmissionSerializer(_reread(submission)).data)


class SubmissionTransition(_OwnSubmission):
    """submit (a draft, or a returned submission again) or withdraw (before approval)."""

    transition = ""

    @extend_schema(request=TransitionSerializer,
                   responses={200: SubmissionSerializer, **errors(400, 401, 403, 404, 409)})
    def post(self, request, pk: str) -> Response:
        submission = self.submission(pk)
        data = strict_data(TransitionSerializer, request.data)
        if self.transition == "submit":
            submission = _checked(services.submit(user=request.user, submission=submission,
                                                  version=data.get("version")))
        else:
            submission = services.withdraw(user=request.user, submission=submission,
                                           version=data.get("version"), reason=data["reason"])
        _nudge()
        return Response(SubmissionSerializer(_reread(submission)).data)


class TaskList(generics.ListAPIView):
    """The open tasks in your pools (the roles you hold, computed now) and those you hold."""

    permission_classes = [IsAuthenticated]
    serializer_class = TaskSerializer

    def get_queryset(self):
        return selectors.tasks_for(self.request.user)

    @extend_schema(responses={200: TaskSerializer(many=True), **errors(400, 401, 404)})
    def get(self, request, *args, **kwargs) -> Response:
        return super().get(request, *args, **kwargs)


class TaskTransition(generics.GenericAPIView):
    """claim, unclaim, approve, return (with a reason), and, for the collection's
    administrator, release (to the pool) and reassign (to `assignee`)."""

    permission_classes = [IsAuthenticated]
    serializer_class = TaskSerializer
    transition = ""

    @extend_schema(request=TransitionSerializer,
                   responses={200: TaskSerializer, **errors(400, 401, 403, 404, 409)})
    def post(self, request, pk: str) -> Response:
        task = Task.objects.select_related("submission").filter(pk=_id(pk)).first()
        if task is None:
            raise NotFound(_("no task %(id)s") % {"id": pk})
        data = strict_data(TransitionSerializer, request.data)
        assignee = None
        if self.transition == "reassign":
            assignee = get_user_model().objects.filter(
                username=data.get("assignee", "")).first()
            if assignee is None:
                raise Refusal(_("assignee: no such user"))
        task = services.task_act(user=request.user, task=task, action=self.transition,
                                 version=data.get("version"), reason=data["reason"],
                                 assignee=assignee)
        _nudge()
        return Response(TaskSerializer(task).data)
