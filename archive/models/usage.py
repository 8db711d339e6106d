"""Accesses counted (COUNTER R5): downloads and acknowledgments per item and day."""
from __future__ import annotations

from django.db import models
from django.db.models.functions import Now
from django.utils.translation import gettext_lazy as _

from .items import Item


class AccessKind(models.TextChoices):
    """What an access is: a download here, or an acknowledgment (a persistent URL resolved to
    this Archive, by our own resolver or another's)."""

    DOWNLOAD = "download", _("download")
    ACKNOWLEDGMENT = "acknowledgment", _("acknowledgment")


class DailyAccessCount(models.Model):
    """Accesses to an item on one UTC day, of one kind: COUNTER R5 Total_Item_Requests (n)
    and Unique_Item_Requests (unique_n: once per reader session, that is per client address,
    User-Agent and UTC hour, as COUNTER R5 defines a session without a session cookie).

    One row per item, day and kind, incremented by each batch of accesses written
    (archive/usage/counter.py), so a year of statistics is at most 730 rows per item,
    whatever the traffic. What is counted, and what is filtered, is said there; no reader's
    address is kept here.
    """

    # The unique (item, day, kind) index serves lookups by item: no index of its own.
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="access_counts",
                             db_index=False, verbose_name=_("item"))
    day = models.DateField(_("day"))
    kind = models.CharField(_("kind"), max_length=16, choices=AccessKind.choices)
    n = models.PositiveBigIntegerField(_("accesses"), default=0, db_default=0)
    unique_n = models.PositiveBigIntegerField(_("unique accesses"), default=0, db_default=0)

    class Meta:
        verbose_name = _("daily access count")
        verbose_name_plural = _("daily access counts")
        constraints = [models.UniqueConstraint(fields=["item", "day", "kind"],
                                               name="daily_access_count_once")]

    def __str__(self) -> str:
        return f"{self.item_id} {self.day} {self.kind}: {self.n}"


class AcknowledgedUrlkey(models.Model):
    """A urlkey an acknowledgment was counted for, kept while the key could still be sent
    (IBI_URLKEY_MAX_AGE; an older key is refused anyway): a second acknowledgment of the same
    answer counts nothing. Swept by archive/usage/counter.py as acknowledgments arrive."""

    urlkey = models.CharField(_("urlkey"), max_length=64, primary_key=True)
    at = models.DateTimeField(_("counted at"), db_index=True, db_default=Now())

    class Meta:
        verbose_name = _("acknowledged urlkey")
        verbose_name_plural = _("acknowledged urlkeys")

    def __str__(self) -> str:
        return self.urlkey
