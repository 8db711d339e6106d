"""Who may read an item's files: its access rights, requests for a copy, secret links, and
the audit trail of closed files read (archive/access/)."""
from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy


class AccessRights(models.TextChoices):
    """Who may read an item's files: the COAR access rights (archive/access/policy.py decides,
    for every channel). Metadata are public at every level."""

    OPEN = "open", _("open")
    EMBARGOED = "embargoed", _("embargoed")
    RESTRICTED = "restricted", _("restricted")
    METADATA_ONLY = "metadata-only", _("metadata only")


# The item by name: items.py imports AccessRights from here.


class AccessRequest(models.Model):
    """A reader's request for a copy of an item's files (the landing page's form), and the
    librarian's answer. The reader's name and address serve to answer, nothing else; no IP
    address is kept."""

    class Status(models.TextChoices):
        PENDING = "pending", _("waiting")
        APPROVED = "approved", _("approved")
        REFUSED = "refused", _("refused")

    item = models.ForeignKey("Item", on_delete=models.CASCADE, related_name="access_requests",
                             verbose_name=_("item"))
    name = models.CharField(_("name"), max_length=200)
    email = models.EmailField(_("email"))
    reason = models.TextField(_("reason"), max_length=2000)
    # The reader's language when asking: the answer is written in it.
    language = models.CharField(_("language"), max_length=8, blank=True, default="")
    created = models.DateTimeField(_("asked"), auto_now_add=True, db_index=True)
    # Its own msgid: "status" alone is an HTTP status elsewhere ("status HTTP" in pt-BR).
    status = models.CharField(pgettext_lazy("access request", "status"), max_length=8,
                              choices=Status.choices, default=Status.PENDING, db_index=True)
    decided_at = models.DateTimeField(pgettext_lazy("date", "answered"), null=True, blank=True)
    decided_by = models.ForeignKey("auth.User", null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+",
                                   verbose_name=_("answered by"))
    message = models.TextField(_("message to the reader"), blank=True, default="")
    # When the answer was mailed: empty after a decision while the mail still waits (or
    # failed: the librarian sees it).
    mailed_at = models.DateTimeField(_("answer mailed"), null=True, blank=True)
    # The answer's mail is owed (archive/access/services.py `mail_owed`): when a worker may
    # try it (again), how many tries it took, and the site's address the librarian answered
    # at, for the link. Empty once mailed, or given up.
    mail_due = models.DateTimeField(_("mail due"), null=True, blank=True, db_index=True)
    mail_attempts = models.PositiveSmallIntegerField(_("mail attempts"), default=0,
                                                     db_default=0)
    mail_base = models.CharField(_("site address"), max_length=255, blank=True, default="",
                                 db_default="")
    # When the reader's personal data (name, email, reason, the message to them) were erased,
    # IBI_ACCESS_REQUEST_DAYS after the request (archive/access/services.py).
    erased_at = models.DateTimeField(_("personal data erased"), null=True, blank=True)

    class Meta:
        verbose_name = _("access request")
        verbose_name_plural = _("access requests")
        ordering = ["-created", "-id"]

    def __str__(self) -> str:
        # What other records copy (the admin's history, a link's request): never the reader.
        return _("request %(id)s for %(ibi)s") % {"id": self.pk, "ibi": self.item.ibi}


class RequestNotice(models.Model):
    """A librarian told of a new request for a copy (archive/access/notices.py): one per
    request and address of its handlers (the collection's request handlers, else the
    repository's). Sent at once, unless a notice went to that address within
    IBI_REQUEST_DIGEST_MINUTES: those wait, and go together in one digest."""

    request = models.ForeignKey(AccessRequest, on_delete=models.CASCADE,
                                related_name="notices", verbose_name=_("request"))
    email = models.EmailField(_("email"), db_index=True)
    created = models.DateTimeField(_("created"), auto_now_add=True)
    sent_at = models.DateTimeField(_("sent"), null=True, blank=True, db_index=True)
    attempts = models.PositiveSmallIntegerField(_("mail attempts"), default=0, db_default=0)

    class Meta:
        verbose_name = _("request notice")
        verbose_name_plural = _("request notices")
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["request", "email"],
                                               name="requestnotice_once_per_address")]

    def __str__(self) -> str:
        return f"{self.request_id} → {self.email}"


class AccessLink(models.Model):
    """A secret link: it opens one item's files to whoever holds it, until `expires` (the
    first day it no longer works) or until revoked. Only a hash of its token is kept."""

    item = models.ForeignKey("Item", on_delete=models.CASCADE, related_name="access_links",
                             verbose_name=_("item"))
    token_hash = models.CharField(_("token hash"), max_length=64, unique=True, editable=False)
    note = models.CharField(_("note"), max_length=1000, blank=True, default="")
    expires = models.DateField(_("expires"), help_text=_("the first day it no longer works"))
    created = models.DateTimeField(_("created"), auto_now_add=True)
    created_by = models.ForeignKey("auth.User", null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+",
                                   verbose_name=_("created by"))
    revoked_at = models.DateTimeField(pgettext_lazy("date", "revoked"), null=True, blank=True)
    # The approved request it answers, if any.
    request = models.OneToOneField(AccessRequest, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="link",
                                   verbose_name=_("request"))

    class Meta:
        verbose_name = _("secret link")
        verbose_name_plural = _("secret links")
        ordering = ["-created", "-id"]

    def __str__(self) -> str:
        return _("link %(id)s to %(ibi)s") % {"id": self.pk, "ibi": self.item.ibi}


class AccessRead(models.Model):
    """The audit trail: one read of a file that is not open to all, by whom (a librarian,
    another Archive's account) or through which secret link, when. Never the reader's IP
    address (LGPD)."""

    item = models.ForeignKey("Item", on_delete=models.CASCADE, related_name="+",
                             verbose_name=_("item"))
    file_name = models.CharField(_("file"), max_length=255)
    at = models.DateTimeField(_("when"), db_index=True)
    user = models.ForeignKey("auth.User", null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="+", verbose_name=_("user"))
    # The user's name when reading: the trail outlives the account.
    who = models.CharField(_("who"), max_length=150, blank=True, default="")
    link = models.ForeignKey(AccessLink, null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="reads", verbose_name=_("secret link"))

    class Meta:
        verbose_name = _("read of a closed file")
        verbose_name_plural = _("reads of closed files")
        ordering = ["-at", "-id"]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.file_name}"
