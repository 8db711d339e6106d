"""The reviewer's queue outside the admin (issue 35, 7 and 9), for people who are not staff.

/review/: the open tasks in the pools of the roles one holds (computed now, across every
collection: archive/review/selectors.py `queue`), with their step, claimer, collection,
submitter, age and checks; filtered by collection, step, who holds them and age, sorted by
any of these, paged. /review/<task id>/: the submission's metadata, files and history (every
transition with who, when, the step and the reason), and the actions the rule
(archive/review/policy.py) allows the reader: claim, unclaim, approve, return with a reason,
and for the collection's administrator release and reassign.

Thin: every write is archive/review/services.py `task_act`; a refusal (403, 409, 400) is the
page again with its reason as a message and its status, nothing changed. A task of a
collection where one holds no reviewing role is a 404, as one that does not exist. A done
action redirects (a reload does nothing twice) and nudges the mailer after the commit.
"""
from __future__ import annotations

from urllib.parse import urlencode

from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.cache import add_never_cache_headers, patch_cache_control
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from ..models import Task
from ..refusals import Refusal
from ..review import notices, policy, selectors, services, tasks
from ..web import nudges

PAGE_SIZE = 50
ACTIONS = ("claim", "unclaim", "approve", "return", "release", "reassign")
DONE = {"claim": gettext_lazy("You hold this task now."),
        "unclaim": gettext_lazy("The task is back in its pool."),
        "release": gettext_lazy("The task is back in its pool."),
        "reassign": gettext_lazy("The task was given to its new holder."),
        "approve": gettext_lazy("Approved."),
        "return": gettext_lazy("Returned to the submitter, with your reason.")}
# The history's words for the transitions (Transition.action): what someone did.
ACTION_NAMES = {
    "create": pgettext_lazy("review history", "created"),
    "save": pgettext_lazy("review history", "changed"),
    "submit": pgettext_lazy("review history", "submitted"),
    "resubmit": pgettext_lazy("review history", "resubmitted"),
    "withdraw": pgettext_lazy("review history", "withdrew"),
    "claim": pgettext_lazy("review history", "claimed"),
    "unclaim": pgettext_lazy("review history", "unclaimed"),
    "release": pgettext_lazy("review history", "returned the task to the pool"),
    "reassign": pgettext_lazy("review history", "reassigned"),
    "approve": pgettext_lazy("review history", "approved"),
    "return": pgettext_lazy("review history", "returned to the submitter"),
    "publish": pgettext_lazy("review history", "published")}
# The sortable columns: the column → its order ascending (the descending one is "-" + it,
# where the selectors offer it).
COLUMNS = (("title", gettext_lazy("Submission")), ("step", gettext_lazy("Step")),
           ("claimer", gettext_lazy("Held by")), ("collection", gettext_lazy("Collection")),
           ("submitter", gettext_lazy("Submitter")), ("age", gettext_lazy("Waiting")))


class QueueFilter(forms.Form):
    """The queue's filters and order, from the query (an unknown value: 400 with its field)."""

    collection = forms.TypedChoiceField(label=gettext_lazy("Collection"), coerce=int,
                                        required=False, empty_value=None)
    step = forms.TypedChoiceField(label=gettext_lazy("Step"), coerce=int, required=False,
                                  empty_value=None)
    claimed = forms.ChoiceField(label=gettext_lazy("Held by"), required=False, choices=[
        ("all", gettext_lazy("anyone or nobody")), ("mine", gettext_lazy("me")),
        ("unclaimed", gettext_lazy("nobody (in the pool)")),
        ("others", gettext_lazy("someone else"))])
    age = forms.TypedChoiceField(label=gettext_lazy("Waiting"), coerce=int, required=False,
                                 empty_value=None, choices=[
                                     ("", gettext_lazy("any time")),
                                     ("1", gettext_lazy("a day or more")),
                                     ("7", gettext_lazy("a week or more")),
                                     ("30", gettext_lazy("a month or more"))])
    order = forms.ChoiceField(label=gettext_lazy("Sorted by"), required=False, choices=[
        ("age", gettext_lazy("oldest first")), ("-age", gettext_lazy("newest first")),
        ("collection", gettext_lazy("collection")), ("step", gettext_lazy("step")),
        ("submitter", gettext_lazy("submitter")), ("claimer", gettext_lazy("holder")),
        ("title", gettext_lazy("title"))])
    page = forms.IntegerField(min_value=1, required=False, widget=forms.HiddenInput)

    def __init__(self, *args, collections, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["collection"].choices = [("", _("all of mine"))] + [
            (str(c.pk), c.name) for c in collections]
        self.fields["step"].choices = [("", _("any step"))] + [
            (str(i), notices.step_name(i)) for i in range(len(selectors.STEP_NAMES))]


def _private(response: HttpResponse) -> HttpResponse:
    add_never_cache_headers(response)
    patch_cache_control(response, private=True)
    return response


@login_required
def queue(request: HttpRequest) -> HttpResponse:
    form = QueueFilter(request.GET or None,
                       collections=list(selectors.reviewing_collections(request.user)))
    if request.GET and not form.is_valid():
        return _private(render(request, "archive/review/queue.html",
                               {"form": form, "page": None, "rows": []}, status=400))
    wanted = form.cleaned_data if request.GET else {}
    order = wanted.get("order") or "age"
    found = selectors.queue(request.user, collection=wanted.get("collection"),
                            step=wanted.get("step"), claimed=wanted.get("claimed") or "all",
                            older_than_days=wanted.get("age"), order=order)
    page = Paginator(found, PAGE_SIZE).get_page(wanted.get("page"))
    shown = list(page.object_list)
    checks = selectors.check_summaries([t.submission for t in shown])
    roles = selectors.roles_in(request.user, {t.submission.collection_id for t in shown})
    rows = [{"task": t, "step": notices.step_name(t.step), "checks": checks.get(t.submission_id),
             "mine": t.claimed_by_id == request.user.pk,
             "may": _may(policy.Actor(request.user.pk, roles[t.submission.collection_id]), t,
                         ("claim", "unclaim"))} for t in shown]
    kept = {k: v for k, v in request.GET.items() if k not in ("page", "order") and v}
    return _private(render(request, "archive/review/queue.html", {
        "form": form, "page": page, "rows": rows, "order": order,
        "columns": [_column(name, label, order, kept) for name, label in COLUMNS],
        "paging": urlencode({**kept, "order": order}),
        "back": request.get_full_path()}))


def _column(name: str, label, order: str, kept: dict) -> dict:
    """A column's header: its link sorts by it (again: the other way, for the age), and
    aria-sort says how the table is sorted now."""
    now = "ascending" if order == name else "descending" if order == "-" + name else "none"
    if name == "age":
        now = {"age": "descending", "-age": "ascending"}.get(order, "none")  # oldest: longest
        target = "-age" if order == "age" else "age"
    else:
        target = name
    return {"name": name, "label": label, "sort": now,
            "url": "?" + urlencode({**kept, "order": target})}


def _may(actor: policy.Actor, task: Task, actions) -> list[str]:
    """The actions the rule allows `actor` on the task now (a return: given its reason; a
    reassignment: to someone who may take it)."""
    case = selectors.case_of(task.submission, task if task.closed is None else None)
    anyone = policy.Actor(-1, frozenset({policy.ADMINISTRATOR}))
    return [a for a in actions if policy.allowed(a, actor, case, reason="-", assignee=anyone)]


@login_required
def task_page(request: HttpRequest, pk: int) -> HttpResponse:
    task = selectors.task_seen_by(request.user, pk)
    if task is None:
        raise Http404(_("No task of yours has this number."))
    status = 200
    if request.method == "POST":
        done, status = _act(request, task)
        if done:
            return redirect(_back(request) or reverse("archive:review_task", args=[task.pk]))
        task = selectors.task_seen_by(request.user, pk) or task
    submission = task.submission
    history = list(submission.transitions.select_related("actor").order_by("at", "id"))
    may = _may(selectors.actor(request.user, submission.collection_id), task, ACTIONS)
    return _private(render(request, "archive/review/task.html", {
        "task": task, "submission": submission, "step": notices.step_name(task.step),
        "files": selectors.files_of(submission),
        "checks": selectors.check_summaries([submission]).get(submission.pk),
        "results": selectors.check_results(submission),
        "history": [{"t": t, "step": notices.step_name(t.step),
                     "action": ACTION_NAMES.get(t.action, t.action)} for t in history],
        "may": may, "reason": request.POST.get("reason", "") if status != 200 else "",
        "assignees": (list(selectors.assignees(task)) if "reassign" in may else []),
        "back": _back(request)}, status=status))


def _back(request: HttpRequest) -> str:
    """The queue's address the reader came from (with its filters), if it is one: a page of
    this site's queue, never another's address nor a script."""
    back = request.POST.get("back") or request.GET.get("back") or ""
    queue_path = reverse("archive:review_queue")
    if (back.startswith(queue_path) and url_has_allowed_host_and_scheme(
            back, {request.get_host()}, require_https=request.is_secure())):
        return back
    return ""


def _act(request: HttpRequest, task: Task) -> tuple[bool, int]:
    """The action posted, through the services: (done, the status to answer otherwise)."""
    action = request.POST.get("action", "")
    try:
        if action not in ACTIONS:
            raise Refusal(_("%(action)r is not an action on a task") % {"action": action})
        version = request.POST.get("version", "")
        if not version.isdigit():
            raise Refusal(_("version: the page's version is missing; reload it"))
        assignee = None
        if action == "reassign":
            named = request.POST.get("assignee", "")
            assignee = get_user_model().objects.filter(pk=int(named)).first() if (
                named.isascii() and named.isdigit() and len(named) <= 18) else None
            if assignee is None:
                raise Refusal(_("to whom: name the person the task goes to"))
        services.task_act(user=request.user, task=task, action=action, version=int(version),
                          reason=request.POST.get("reason", ""), assignee=assignee)
    except Refusal as exc:
        messages.error(request, str(exc))
        return False, exc.status
    transaction.on_commit(lambda: nudges.soon(tasks.mail_review_notices))
    messages.success(request, str(DONE[action]))
    return True, 200
