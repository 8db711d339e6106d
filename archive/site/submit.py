"""/submit/: the submitter's own pages (issue 35, 2), outside the admin, for people who are not
staff: their submissions and the collections they may submit to (`submissions`, which also
starts a new one), and one submission's page (`submission`): the form of its collection's
submission profile, its files (resumable uploads by tus through static/archive/uploader.js;
without JavaScript, a plain upload kept in the same pending-upload store), the collection's
deposit licence to accept, access and embargo within the collection's rules; save as a draft,
submit (again, once returned), withdraw; and its history.

Thin: every write is archive/review/services.py's, which asks the one rule (review/policy.py);
once it commits, the checks before review (their results listed on the page) and the mailer
are nudged, as the API does.
A refusal changes nothing and is answered with its status and reason: 403 another's
submission or a collection one does not submit to, 409 a stale form (the submission changed
meanwhile) or a state that allows no change, 400 a field (the form again, the field named).
"""
from __future__ import annotations

import uuid
from datetime import timedelta

from django import forms
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import add_never_cache_headers, patch_cache_control
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods

from ..deposit import pending
from ..models import AccessRights, Collection, PendingUpload, Submission
from ..profiles import selectors as profiles
from ..profiles.check import Entry, ProfileRefusal, entry_of
from ..refusals import Forbidden, Refusal
from ..review import policy, selectors, services, tasks
from ..web import nudges, profile_fields
from ..web.pending_uploads import PendingUploadsField

# What a redirect after a write says on the page it lands on (?done=…): words of this page,
# never the request's own.
DONE = {"created": gettext_lazy("A new draft: fill it in, save it, and submit it when ready."),
        "saved": gettext_lazy("Saved as a draft."),
        "submitted": gettext_lazy("Submitted: it waits for review now."),
        "published": gettext_lazy("Submitted and published."),
        "withdrawn": gettext_lazy("Withdrawn.")}

# The form's fields a refusal of the services names by the first word of its reason.
_NAMED = {"title": "title", "language": "language", "files": "pending",
          "licence_accepted": "accept_licence", "licence_text": "accept_licence",
          "embargo_until": "embargo_until"}

# The values of the profile that have fields of their own here.
_OWN_FIELDS = {"dc.title"}


def _shown(entries: list[Entry]) -> list[Entry]:
    """The profile's entries with a field of their own in the form."""
    return [e for e in entries if e.language or e.name not in _OWN_FIELDS]


def _label(entry: Entry) -> str:
    return f"{entry.label} [{entry.language}]" if entry.language else entry.label


def _described(submission: Submission) -> list[tuple[str, list[str]]]:
    """(label, values) of the submission's metadata, in its profile's order, as the form
    names them; a value no entry of the profile takes (the profile changed meanwhile) under
    its field's name."""
    entries = profiles.entries_of(profiles.profile_of(submission.collection))
    found: dict[str, list[str]] = {}
    for row in submission.metadata:
        entry = entry_of(entries, row["field"], row.get("language", ""))
        label = _label(entry) if entry is not None else row["field"]
        authority = row.get("authority", "")
        found.setdefault(label, []).append(
            f"{row['value']} ({authority})" if authority else row["value"])
    order = [_label(e) for e in entries]
    return sorted(found.items(), key=lambda pair: (
        order.index(pair[0]) if pair[0] in order else len(order)))


def _private(response: HttpResponse) -> HttpResponse:
    add_never_cache_headers(response)
    patch_cache_control(response, private=True)
    return response


class FilesInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class FilesField(forms.FileField):
    """Files sent with the form itself (without JavaScript)."""

    widget = FilesInput

    def clean(self, data, initial=None) -> list:
        files = data if isinstance(data, list | tuple) else [data] if data else []
        return [super(FilesField, self).clean(file, initial) for file in files]


class SubmissionForm(forms.Form):
    """A submission's values: its title and language, its collection's profile's fields, its
    files, its access, the licence accepted. A draft is saved with fields still empty; to
    submit (`submitting`), what the profile requires is required, and named when missing."""

    use_required_attribute = False  # "save as draft" sends an unfinished form

    version = forms.IntegerField(widget=forms.HiddenInput)
    title = forms.CharField(label=gettext_lazy("Title"), max_length=1000, required=False,
                            widget=forms.TextInput(attrs={"size": 60}))
    language = forms.CharField(
        label=gettext_lazy("Language of the work"), max_length=35, required=False,
        help_text=gettext_lazy("A language tag (BCP 47), e.g. pt-BR or en"),
        widget=forms.TextInput(attrs={"size": 10}))
    pending = PendingUploadsField(label=gettext_lazy("Files uploaded"), required=False)
    upload = FilesField(label=gettext_lazy("Add files"), required=False)
    access_rights = forms.ChoiceField(label=gettext_lazy("Access to the files"), required=False)
    embargo_until = forms.DateField(
        label=gettext_lazy("Embargoed until"), required=False,
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"))
    accept_licence = forms.BooleanField(
        label=gettext_lazy("I have read the deposit licence above and accept it"),
        required=False)

    def __init__(self, *args, entries: list[Entry], collection: Collection,
                 uploads: list[PendingUpload], submitting: bool = False, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.entries = entries
        self.shown = _shown(entries)
        profile = {profile_fields.field_name(e): profile_fields.form_field(e)
                   for e in self.shown}
        self.described = ["title", "language", *profile]
        self.fields.update(profile)
        self.order_fields(["version", *self.described])
        self.fields["pending"].widget.uploads = uploads
        default = AccessRights(collection.default_access_rights).label
        levels = list(AccessRights.choices)
        last = timezone.localdate() + timedelta(days=collection.max_embargo_days)
        embargo = self.fields["embargo_until"]
        if collection.max_embargo_days:
            embargo.help_text = _("Only with the access embargoed: the first day the files "
                                  "are open to all, %(last)s at the latest") % {
                "last": last.isoformat()}
            embargo.widget.attrs.update(min=(timezone.localdate() + timedelta(days=1))
                                        .isoformat(), max=last.isoformat())
        else:
            levels.remove((AccessRights.EMBARGOED, AccessRights.EMBARGOED.label))
            del self.fields["embargo_until"]
        self.fields["access_rights"].choices = [
            ("", _("The collection's default (%(level)s)") % {"level": default}), *levels]
        needed = {"title", "accept_licence",
                  *(profile_fields.field_name(e) for e in self.shown if e.required)}
        for name in needed:
            field = self.fields[name]
            field.needed = True  # marked on the page; required when submitting
            field.required = submitting
            field.widget.attrs["aria-required"] = "true"

    def described_fields(self) -> list[forms.BoundField]:
        """The fields of the work's description: its title, language and profile's."""
        return [self[name] for name in self.described]

    def clean(self) -> dict:
        cleaned = super().clean()
        metadata = []
        for entry in self.shown:
            name = profile_fields.field_name(entry)
            if name not in cleaned:  # its own error already
                continue
            try:
                values = profile_fields.clean(entry, cleaned[name])
            except forms.ValidationError as exc:
                self.add_error(name, exc)
                continue
            metadata += [{"field": entry.name, "value": v.value, "language": v.language,
                          "authority": v.authority, "confidence": v.confidence}
                         for v in values]
        cleaned["metadata"] = metadata
        if cleaned.get("access_rights") != AccessRights.EMBARGOED:
            cleaned["embargo_until"] = None  # a date goes with an embargo only
        elif not cleaned.get("embargo_until") and "embargo_until" not in self.errors:
            self.add_error("embargo_until", _("an embargo needs the day it ends"))
        return cleaned

    def changes(self) -> dict:
        """What the services are given of the form's values (files and licence aside)."""
        data = self.cleaned_data
        return {"title": data["title"], "language": data["language"],
                "metadata": data["metadata"], "access_rights": data["access_rights"],
                "embargo_until": data.get("embargo_until")}

    def named(self, refusal: Refusal) -> bool:
        """The services' refusal as the error of the field it names, if the form shows it."""
        name = None
        if isinstance(refusal, ProfileRefusal):
            name = "title" if refusal.field in _OWN_FIELDS else next(
                (profile_fields.field_name(e) for e in self.shown if e.key == refusal.field),
                None)
        else:
            head = str(refusal).split(" ", 1)[0].rstrip(":")
            name = _NAMED.get(head)
        if name is None or name not in self.fields:
            return False
        self.add_error(name, str(refusal))
        return True


def _initial(submission: Submission, entries: list[Entry], shown: list[Entry]) -> dict:
    stored = [profile_fields.Stored(row["field"], row["value"], row.get("language", ""),
                                    row.get("authority", ""))
              for row in submission.metadata]
    licence = submission.collection.deposit_licence
    return {"version": submission.version, "title": submission.title,
            "language": submission.language, "access_rights": submission.access_rights,
            "embargo_until": submission.embargo_until,
            "pending": list(submission.files),
            "accept_licence": bool(submission.licence_accepted_at
                                   and submission.licence_text == licence),
            **profile_fields.initial_of(shown, entries, stored)}


def _uploads(submission: Submission, ids: list[str] | None = None) -> list[PendingUpload]:
    """The owner's uploads of these ids (the submission's files unless given), in order."""
    ids = list(submission.files) if ids is None else ids
    found = {str(u.pk): u for u in PendingUpload.objects.filter(
        pk__in=[pk for pk in ids if _is_uuid(pk)], owner_id=submission.owner_id)}
    return [found[pk] for pk in dict.fromkeys(ids) if pk in found]


def _is_uuid(text: str) -> bool:
    try:
        uuid.UUID(text)
    except ValueError:
        return False
    return True


def _form(submission: Submission, data=None, files=None, submitting=False) -> SubmissionForm:
    entries = profiles.entries_of(profiles.profile_of(submission.collection))
    # A form sent back lists the files it was sent with (those uploaded meanwhile too).
    shown = _uploads(submission, data.getlist("pending") if data is not None else None)
    form = SubmissionForm(data, files, entries=entries, collection=submission.collection,
                          uploads=shown, submitting=submitting)
    if data is None:
        form.initial = _initial(submission, entries, form.shown)
    return form


def _refused(request: HttpRequest, refusal: Refusal,
             submission: Submission | None = None) -> HttpResponse:
    """The refusal's page, with its status and reason (nothing was changed), and the way back
    to the submission it was about."""
    back = reverse("archive:submission", args=[submission.pk]) if submission else ""
    return _private(render(request, "archive/submit/refused.html",
                           {"reason": str(refusal), "status": refusal.status, "back": back},
                           status=refusal.status))


def _own(user, pk: int) -> Submission:
    """The user's submission of that id: 404 none, 403 another's."""
    found = services.find_submission(pk)
    if found.owner_id != user.pk:
        raise Forbidden(_("this submission is not yours"))
    return found


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def submissions(request: HttpRequest) -> HttpResponse:
    """GET: the person's submissions and the collections they may submit to; POST: a new
    draft in the collection chosen."""
    if request.method == "POST":
        collection = Collection.objects.filter(
            slug=request.POST.get("collection", "")).first()
        if collection is None:
            return _refused(request, Refusal(_("collection: choose one of the list")))
        try:
            made = services.submission_create(user=request.user, collection=collection)
        except Refusal as exc:
            return _refused(request, exc)
        return redirect(reverse("archive:submission", args=[made.pk]) + "?done=created")
    own = list(selectors.submissions_for(request.user))
    reasons = selectors.return_reasons(own)
    rows = [(s, reasons.get(s.pk, "")) for s in own]
    return _private(render(request, "archive/submit/list.html", {
        "rows": rows, "collections": selectors.submitter_collections(request.user)}))


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def submission(request: HttpRequest, pk: int) -> HttpResponse:
    """GET: the submission (its form while it may be changed); POST: save, submit, withdraw."""
    try:
        found = _own(request.user, pk)
    except Refusal as exc:
        return _refused(request, exc)
    if request.method == "POST":
        action = request.POST.get("action", "")
        if action == "withdraw":
            return _withdraw(request, found)
        if action in ("save", "submit"):
            return _save(request, found, submitting=action == "submit")
        return _refused(request, Refusal(_("action: save, submit or withdraw")), found)
    form = _form(found) if _may(request.user, found, "save") else None
    return _page(request, found, form)


def _may(user, submission: Submission, action: str) -> bool:
    """Whether the rule lets `user` do `action` to the submission (the buttons shown)."""
    return policy.allowed(action, selectors.actor(user, submission.collection_id),
                          selectors.case_of(submission, selectors.open_task(submission)))


def _page(request: HttpRequest, submission: Submission, form: SubmissionForm | None,
          status: int = 200) -> HttpResponse:
    history = list(selectors.history(submission))
    returns = [t.reason for t in history if t.action == "return"]
    context = {
        "submission": submission, "form": form, "history": history,
        "returned": submission.state == Submission.State.RETURNED,
        "return_reason": returns[-1] if returns else "",
        "licence": submission.collection.deposit_licence,
        "files": _uploads(submission) if form is None else (),
        "described": _described(submission) if form is None else (),
        "may_withdraw": _may(request.user, submission, "withdraw"),
        "results": selectors.check_results(submission),
        "done": DONE.get(request.GET.get("done", "")),
    }
    return _private(render(request, "archive/submit/submission.html", context, status=status))


def _save(request: HttpRequest, submission: Submission, submitting: bool) -> HttpResponse:
    form = _form(submission, request.POST, request.FILES, submitting=submitting)
    if not form.is_valid():
        if "version" in form.errors:
            return _refused(request, Refusal(_("version: the form is incomplete; reload it")),
                            submission)
        return _page(request, submission, form, status=400)
    licence = submission.collection.deposit_licence
    accepted = form.cleaned_data["accept_licence"]
    fields = form.changes()
    if submission.licence_text != licence:
        fields["licence_text"] = licence  # a new text is accepted anew
        fields["licence_accepted"] = accepted
    elif accepted != (submission.licence_accepted_at is not None):
        fields["licence_accepted"] = accepted
    try:
        # One transaction: a refusal (a stale version, a field the submission lacks) leaves
        # the submission as it was, and the files sent with the form unkept.
        with transaction.atomic():
            kept = [str(pending.keep(owner=request.user, file=file).pk)
                    for file in form.cleaned_data["upload"]]
            saved = services.submission_update(
                user=request.user, submission=submission,
                version=form.cleaned_data["version"],
                files=[*form.cleaned_data["pending"], *kept], **fields)
            if submitting:
                saved = services.submit(user=request.user, submission=saved,
                                        version=saved.version)
    except Refusal as exc:
        if exc.status == 400 and form.named(exc):
            return _page(request, submission, form, status=400)
        return _refused(request, exc, submission)
    _nudge(saved, mails=submitting)
    done = ("saved" if not submitting else "published"
            if saved.state == Submission.State.PUBLISHED else "submitted")
    return redirect(reverse("archive:submission", args=[submission.pk]) + f"?done={done}")


def _withdraw(request: HttpRequest, submission: Submission) -> HttpResponse:
    version = request.POST.get("version", "")
    if not version.isdigit():
        return _refused(request, Refusal(_("version: the form is incomplete; reload it")),
                        submission)
    try:
        services.withdraw(user=request.user, submission=submission, version=int(version),
                          reason=request.POST.get("reason", "").strip())
    except Refusal as exc:
        return _refused(request, exc, submission)
    _nudge(submission, mails=True)
    return redirect(reverse("archive:submission", args=[submission.pk]) + "?done=withdrawn")


def _nudge(submission: Submission, *, mails: bool) -> None:
    """Off the request's thread (web/nudges.py), once the change committed: the submission's
    checks when its content changed (the beat runs them if the nudge is lost), and the mailer
    after a transition (the reviewers' pool notice; the beat's run retries)."""
    if submission.checks_due is not None:
        pk = submission.pk
        transaction.on_commit(lambda: nudges.soon(tasks.check_submission, pk))
    if mails:
        transaction.on_commit(lambda: nudges.soon(tasks.mail_review_notices))
