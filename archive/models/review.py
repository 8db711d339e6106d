"""Review before publication (issue 35): who holds which role in a collection, the collection's
workflow, the submissions on their way to it, the tasks of its steps and every transition.

A submission is not an item: it has no IBI, no persistent URL, and nothing that reads items
(search, OAI-PMH, sitemaps, the resolver) sees it. The item is deposited, and its IBI minted,
when the workflow publishes it (archive/review/services.py `publish`); a withdrawn or
returned-for-good submission never burns an IBI. Who may do what is decided in one module,
archive/review/policy.py; these models only hold the state.

Pools are never kept per person: a task waits for a step's role in its collection, and who
sees it is computed from the roles when asked (archive/review/selectors.py), so a person given
a role later sees every task already waiting (DSpace #3175 by design)."""
from __future__ import annotations

import re

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from .access import AccessRights
from .collections import Collection
from .items import Item


class Role(models.TextChoices):
    SUBMITTER = "submitter", _("submitter")
    REVIEWER = "reviewer", _("reviewer")
    EDITOR = "editor", _("editor")
    ADMINISTRATOR = "administrator", _("collection administrator")


class Provenance(models.TextChoices):
    """Why an item may be deposited (archive/deposit/services.py `item_deposit` asks
    review/policy.py with it): content new here must pass the collection's workflow; an
    approved submission has; content already published elsewhere (an import, a harvest, a
    restore) comes in only on a librarian's explicit word, given with the import."""

    NEW = "new", _("new content")
    REVIEWED = "reviewed", _("an approved submission")
    PUBLISHED_ELSEWHERE = "elsewhere", _("published elsewhere before")


class CollectionRole(models.Model):
    """A role in a collection, held by a group (the usual way: people join and leave groups)
    or by one user."""

    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="roles",
                                   verbose_name=_("collection"))
    role = models.CharField(_("role"), max_length=16, choices=Role.choices)
    group = models.ForeignKey("auth.Group", null=True, blank=True, on_delete=models.CASCADE,
                              related_name="collection_roles", verbose_name=_("group"))
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                             on_delete=models.CASCADE, related_name="collection_roles",
                             verbose_name=_("user"))

    class Meta:
        verbose_name = _("collection role")
        verbose_name_plural = _("collection roles")
        constraints = [
            models.CheckConstraint(
                condition=Q(group__isnull=False, user__isnull=True)
                | Q(group__isnull=True, user__isnull=False),
                name="role_held_by_a_group_or_a_user",
                violation_error_message=_("a role is held by a group or by a user, one of "
                                          "them")),
            models.UniqueConstraint(fields=["collection", "role", "group"],
                                    condition=Q(group__isnull=False),
                                    name="one_role_per_group"),
            models.UniqueConstraint(fields=["collection", "role", "user"],
                                    condition=Q(user__isnull=False),
                                    name="one_role_per_user"),
        ]

    def __str__(self) -> str:
        return f"{self.collection}: {self.get_role_display()} ({self.group or self.user})"


_PRONOM = re.compile(r"(x-)?fmt/[0-9]+")
_MIME = re.compile(r"[a-z0-9][a-z0-9!#$&^_.+-]*/[a-z0-9][a-z0-9!#$&^_.+-]*")


def accepted_formats(text: str) -> list[str]:
    """The accepted formats as a librarian writes them: PRONOM ids and MIME types, one a
    line or separated by commas or spaces; a word that is neither is refused (ValueError).

    >>> accepted_formats("fmt/276, application/PDF\\nx-fmt/111")
    ['fmt/276', 'application/pdf', 'x-fmt/111']
    """
    found: list[str] = []
    for word in (text or "").replace(",", " ").replace(";", " ").split():
        word = word.strip().lower()
        if not (_PRONOM.fullmatch(word) or _MIME.fullmatch(word)):
            raise ValueError(word)
        if word not in found:
            found.append(word)
    return found



class CheckName(models.TextChoices):
    """The checks before review (archive/review/checks.py)."""

    REQUIRED = "required_fields", _("required fields")
    FORMAT = "format", _("file format")
    TEXT_LAYER = "text_layer", _("text layer of a PDF")
    VIRUS = "virus", _("virus scan")
    DUPLICATE = "duplicate", _("likely duplicate")


class Workflow(models.Model):
    """A collection's workflow, as data: none (published on submit, as before), one review,
    or DSpace's three steps (review → edit → final edit). A collection without one has none."""

    class Kind(models.TextChoices):
        NONE = "none", _("none: published on submit")
        SINGLE = "single", _("single review")
        THREE_STEPS = "three", _("review, edit, final edit")

    collection = models.OneToOneField(Collection, on_delete=models.CASCADE,
                                      related_name="workflow", verbose_name=_("collection"))
    kind = models.CharField(_("workflow"), max_length=8, choices=Kind.choices,
                            default=Kind.SINGLE)
    publish_on = models.DateField(
        _("publish on"), null=True, blank=True,
        help_text=_("empty: an approved submission is published at once; a day: approved "
                    "submissions wait until then (approved, not yet published)"))
    # The checks before review (archive/review/checks.py): what its files may be, and which
    # checks' failure stops a submission (the others only warn the submitter and reviewer).
    accepted_formats = models.TextField(
        _("accepted formats"), blank=True, default="", db_default="",
        help_text=_("PRONOM ids (fmt/276) or MIME types (application/pdf) of the files "
                    "accepted, identified from their content; one a line or separated by "
                    "commas; empty: any format"))
    blocking_checks = models.JSONField(
        _("blocking checks"), default=list, blank=True,
        help_text=_("the checks whose failure stops a submission; the others only warn"))

    class Meta:
        verbose_name = _("workflow")
        verbose_name_plural = _("workflows")

    def __str__(self) -> str:
        return f"{self.collection}: {self.get_kind_display()}"

    def clean(self) -> None:
        errors = {}
        try:
            accepted_formats(self.accepted_formats)
        except ValueError as exc:
            errors["accepted_formats"] = _("%(word)s is neither a PRONOM id (fmt/276) nor a "
                                           "MIME type (application/pdf)") % {"word": exc}
        if not isinstance(self.blocking_checks, list) or set(self.blocking_checks) - set(
                CheckName.values):
            errors["blocking_checks"] = _("a list of checks among %(names)s") % {
                "names": ", ".join(CheckName.values)}
        if errors:
            raise ValidationError(errors)


class Submission(models.Model):
    """What a submitter deposits into a reviewed collection, until it is published: its
    metadata as qualified values ({"field", "value", "language", "authority", "confidence"},
    DcValue's shape), the files waiting (pending uploads' ids), the licence text accepted,
    the access chosen. `version` grows at each write: a write naming an older one is stale
    (409)."""

    class State(models.TextChoices):
        DRAFT = "draft", _("draft")
        SUBMITTED = "submitted", _("submitted")
        IN_REVIEW = "in_review", _("in review")
        RETURNED = "returned", _("returned to the submitter")
        RESUBMITTED = "resubmitted", _("resubmitted")
        APPROVED = "approved", _("approved, not yet published")
        PUBLISHED = "published", _("published")
        WITHDRAWN = "withdrawn", _("withdrawn")

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                              related_name="submissions", verbose_name=_("submitter"))
    collection = models.ForeignKey(Collection, on_delete=models.PROTECT,
                                   related_name="submissions", verbose_name=_("collection"))
    title = models.CharField(_("title"), max_length=1000, blank=True, default="")
    language = models.CharField(_("language"), max_length=35, blank=True, default="")
    metadata = models.JSONField(_("metadata"), default=list, blank=True)
    files = models.JSONField(_("files waiting"), default=list, blank=True)
    licence_text = models.TextField(_("licence accepted"), blank=True, default="")
    licence_accepted_at = models.DateTimeField(_("licence accepted at"), null=True, blank=True)
    access_rights = models.CharField(_("access"), max_length=16, choices=AccessRights.choices,
                                     blank=True, default="")
    embargo_until = models.DateField(_("embargo until"), null=True, blank=True)
    previous_edition = models.ForeignKey(
        Item, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
        verbose_name=_("new edition of"))
    translation_of = models.ForeignKey(
        Item, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
        verbose_name=_("translation of"))
    state = models.CharField(_("state"), max_length=12, choices=State.choices,
                             default=State.DRAFT, db_index=True)
    # The workflow's step it waits in (0: the first), while in review.
    step = models.PositiveSmallIntegerField(_("step"), null=True, blank=True)
    # The workflow's steps when it was submitted: a collection's workflow changed meanwhile
    # does not move a submission between steps it was never in.
    steps = models.JSONField(_("steps"), default=list, blank=True)
    version = models.PositiveIntegerField(_("version"), default=1)
    # Since when its checks before review are owed (its content changed, it was submitted);
    # None once they are kept for its content (archive/review/checking.py): the beat runs
    # those a lost nudge left.
    checks_due = models.DateTimeField(_("checks due since"), null=True, blank=True,
                                      db_index=True)
    item = models.OneToOneField(Item, null=True, blank=True, on_delete=models.PROTECT,
                                related_name="submission", verbose_name=_("published as"))
    created = models.DateTimeField(_("created"), auto_now_add=True)
    updated = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        ordering = ["-updated", "-id"]
        verbose_name = _("submission")
        verbose_name_plural = _("submissions")

    def __str__(self) -> str:
        return self.title or _("submission %(id)s") % {"id": self.pk}


class Task(models.Model):
    """The task of a submission's step, in the pool of the step's role in its collection until
    a member claims it; closed when the step ends (approved, returned, withdrawn)."""

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="tasks",
                                   verbose_name=_("submission"))
    step = models.PositiveSmallIntegerField(_("step"))
    role = models.CharField(_("role"), max_length=16, choices=Role.choices)
    claimed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="review_tasks",
                                   verbose_name=_("claimed by"))
    created = models.DateTimeField(_("created"), auto_now_add=True)
    closed = models.DateTimeField(_("closed"), null=True, blank=True, db_index=True)

    class Meta:
        ordering = ["created", "id"]
        verbose_name = _("task")
        verbose_name_plural = _("tasks")
        constraints = [models.UniqueConstraint(fields=["submission"],
                                               condition=Q(closed__isnull=True),
                                               name="one_open_task_per_submission")]
        # The reviewer's queue, oldest (or newest) first: the open tasks in that order, read
        # until a page is full, with no sort of every task waiting (bench/review_queue.py).
        indexes = [models.Index(fields=["closed", "created", "id"], name="task_by_age")]

    def __str__(self) -> str:
        return f"{self.submission}: {self.role} ({self.step + 1})"


class Transition(models.Model):
    """One transition of a submission: who, when, at which step, from which state to which,
    and why (a return's reason). Kept forever, after publication too."""

    submission = models.ForeignKey(Submission, on_delete=models.PROTECT,
                                   related_name="transitions", verbose_name=_("submission"))
    action = models.CharField(_("action"), max_length=16)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                              on_delete=models.SET_NULL, related_name="+",
                              verbose_name=_("who"))
    # The name at the time: the history stays readable when an account is deleted.
    actor_name = models.CharField(_("who (name)"), max_length=150, blank=True, default="")
    at = models.DateTimeField(_("when"), auto_now_add=True)
    step = models.PositiveSmallIntegerField(_("step"), null=True, blank=True)
    from_state = models.CharField(_("from"), max_length=12, choices=Submission.State.choices)
    to_state = models.CharField(_("to"), max_length=12, choices=Submission.State.choices)
    reason = models.TextField(_("reason"), blank=True, default="")

    class Meta:
        ordering = ["at", "id"]
        verbose_name = _("transition")
        verbose_name_plural = _("transitions")

    def __str__(self) -> str:
        return f"{self.submission}: {self.from_state} → {self.to_state}"


class SubmissionCheck(models.Model):
    """One check's result for a submission's content (`fingerprint`: its title, metadata and
    files when checked), for the submission as a whole or one of its files. The message is
    kept in English with its values, and shown in the reader's language
    (archive/review/checks.py `translated`)."""

    class Outcome(models.TextChoices):
        PASS = "pass", pgettext_lazy("check outcome", "pass")
        WARN = "warn", pgettext_lazy("check outcome", "warning")
        FAIL = "fail", pgettext_lazy("check outcome", "fail")
        NOT_RUN = "not_run", pgettext_lazy("check outcome", "not run")

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="checks",
                                   verbose_name=_("submission"))
    name = models.CharField(pgettext_lazy("submission check", "check"), max_length=16,
                            choices=CheckName.choices)
    file = models.CharField(_("file"), max_length=64, blank=True, default="",
                            help_text=_("the upload's id; empty: the submission as a whole"))
    file_name = models.CharField(_("file name"), max_length=255, blank=True, default="")
    outcome = models.CharField(_("outcome"), max_length=8, choices=Outcome.choices)
    message = models.TextField(_("message"))
    params = models.JSONField(_("message's values"), default=dict, blank=True)
    details = models.JSONField(_("details"), default=dict, blank=True)
    fingerprint = models.CharField(_("content checked"), max_length=64)
    at = models.DateTimeField(_("checked at"), auto_now_add=True)

    class Meta:
        ordering = ["submission", "id"]
        verbose_name = _("submission check")
        verbose_name_plural = _("submission checks")

    def __str__(self) -> str:
        return f"{self.submission_id}: {self.name} {self.file_name} {self.outcome}"


class ReviewNotice(models.Model):
    """A mail owed about the review (archive/review/notices.py): to whoever must act next after
    a transition, or a reviewer's daily digest of what waits in their pools. Written in the
    transition's transaction (or by the digest's run), mailed by the beat's task; a mail
    server's failure leaves it owed, tried again later and later, given up after
    notices.ATTEMPTS tries (some three days). Its text is written when it is owed: what the
    person is told is what was true then."""

    class Kind(models.TextChoices):
        TRANSITION = "transition", _("a transition")
        DIGEST = "digest", _("the daily digest")

    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="+", verbose_name=_("to"))
    email = models.EmailField(_("email"))
    submission = models.ForeignKey(Submission, null=True, blank=True,
                                   on_delete=models.CASCADE, related_name="notices",
                                   verbose_name=_("submission"))
    # The day a digest tells of: one digest per person and day, however often it runs.
    digest_of = models.DateField(_("digest of"), null=True, blank=True)
    subject = models.CharField(_("subject"), max_length=200)
    body = models.TextField(_("body"))
    created = models.DateTimeField(_("created"), auto_now_add=True)
    sent_at = models.DateTimeField(_("sent"), null=True, blank=True, db_index=True)
    attempts = models.PositiveSmallIntegerField(_("mail attempts"), default=0, db_default=0)
    # The last failed try: the next waits longer after each (notices.py `due`).
    tried_at = models.DateTimeField(_("last tried"), null=True, blank=True)

    class Meta:
        verbose_name = _("review notice")
        verbose_name_plural = _("review notices")
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["user", "digest_of"],
                                               condition=Q(digest_of__isnull=False),
                                               name="one_review_digest_per_day")]

    def __str__(self) -> str:
        return f"{self.kind} → {self.email}"
