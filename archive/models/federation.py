"""The resolver's side of RTC-11: the Archives registered here and the acknowledgments owed them."""
from __future__ import annotations

from django.db import models
from django.db.models.functions import Now
from django.utils.translation import gettext_lazy as _


class RegisteredArchive(models.Model):
    """An Archive registered at this resolver (RTC-11 §7): its archive service IBI and key.

    Only a hash of the registration key is kept; `included` is the switch the Archive turns
    with inclusionRequest / exclusionRequest.
    """

    archive_service_ibi = models.CharField(_("archive service IBI"), max_length=255, unique=True)
    key_hash = models.CharField(_("key hash"), max_length=64, editable=False)
    email = models.EmailField(_("email"), blank=True)
    address = models.CharField(_("address"), max_length=255, blank=True,
                               help_text=_("host[:port] given at the last inclusion"))
    ip = models.CharField(_("IP address"), max_length=64, blank=True)
    platform_version = models.CharField(_("platform version"), max_length=100, blank=True)
    included = models.BooleanField(_("switched on"), default=False)
    included_at = models.DateTimeField(_("switched on at"), null=True, blank=True)
    excluded_at = models.DateTimeField(_("switched off at"), null=True, blank=True)
    registered_at = models.DateTimeField(_("registered at"), auto_now_add=True)

    class Meta:
        verbose_name = _("registered Archive")
        verbose_name_plural = _("registered Archives")
        ordering = ["archive_service_ibi"]

    def __str__(self) -> str:
        if self.included:
            return _("%(ibi)s (switched on)") % {"ibi": self.archive_service_ibi}
        return _("%(ibi)s (switched off)") % {"ibi": self.archive_service_ibi}


class OwedAcknowledgment(models.Model):
    """An acknowledgment (Table 8.11) this resolver owes the Archive that gave a URL (RTC-11
    §8.2 step 5): written with the resolution, sent by a worker, tried again with backoff
    until it is delivered, refused or given up (archive/resolver/outbox.py). One per
    resolution: a broker outage delays acknowledgments and loses none, and none is sent
    twice. Kept while its urlkey could be sent (IBI_URLKEY_MAX_AGE) after it is done."""

    archive = models.ForeignKey(RegisteredArchive, on_delete=models.CASCADE, related_name="+",
                                verbose_name=_("Archive"))
    key = models.CharField(_("key"), max_length=64, unique=True,
                           help_text=_("random, one per resolution acknowledged"))
    pairs = models.JSONField(_("pairs"))
    created = models.DateTimeField(_("created"), db_default=Now())
    # When it may be tried (again): a worker that takes it moves this past its attempt, so that
    # a worker killed mid-send leaves it to the next one.
    due = models.DateTimeField(_("due"), db_default=Now())
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0, db_default=0)
    done_at = models.DateTimeField(_("done at"), null=True, blank=True)
    outcome = models.CharField(_("outcome"), max_length=255, blank=True, default="",
                               db_default="")

    class Meta:
        verbose_name = _("owed acknowledgment")
        verbose_name_plural = _("owed acknowledgments")
        indexes = [
            models.Index(fields=["due"], name="acknowledgment_owed_due",
                         condition=models.Q(done_at=None)),
            models.Index(fields=["done_at"], name="acknowledgment_done",
                         condition=~models.Q(done_at=None)),
        ]

    def __str__(self) -> str:
        return f"{self.archive_id}: {self.pairs.get('urlkey', '')}"
