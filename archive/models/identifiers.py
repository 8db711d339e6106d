"""The minting state of the subsystem (RTC-10), and the other names an item had before."""
from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from .items import Item


class MintingState(models.Model):
    """The subsystem's last-date-for-suffix (Algorithm 4), shared by every minting process.

    One row per database: every IBI minted through this database comes after the previous
    one in time, whatever the configured hostname, IP or granularity.
    """

    name = models.CharField(_("name"), max_length=32, unique=True, default="default")
    last_date_for_suffix = models.CharField(
        _("last date for suffix"), max_length=64, blank=True,
        help_text=_("POSIX seconds, exact decimal; empty before the first IBI"))
    updated = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("minting state")
        verbose_name_plural = _("minting states")

    def __str__(self) -> str:
        return f"{self.name}: {self.last_date_for_suffix or '—'}"


class AlternateIdentifier(models.Model):
    """Another name an item (or one of its files) had before it came here: its Handle, its
    DSpace UUID, a DSpace bitstream's UUID or sequence, the OAI identifier it was harvested
    under. The IBI stays the item's own; these keep old links and citations working
    (archive/dspace/, the old-link routes of site/legacy.py) and appear in its metadata.

    Each value belongs to one item in its scheme: a second item claiming a Handle already held
    here is refused by the unique constraint, whoever writes."""

    class Scheme(models.TextChoices):
        HANDLE = "handle", _("Handle")
        DSPACE_ITEM = "dspace-item", _("DSpace item UUID")
        DSPACE_BITSTREAM = "dspace-bitstream", _("DSpace bitstream UUID")
        # "<handle>/<sequence>": DSpace's /bitstream/<handle>/<sequence>/<name> links.
        DSPACE_SEQUENCE = "dspace-sequence", _("DSpace bitstream sequence")
        OAI = "oai", _("OAI identifier")

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="alternate_ids",
                             verbose_name=_("item"))
    scheme = models.CharField(_("scheme"), max_length=16, choices=Scheme.choices)
    # Handles are case-insensitive in ASCII (RFC 3650 §3): stored in lower case.
    value = models.CharField(_("value"), max_length=255)
    # For a bitstream's UUID or sequence: the name of the file it is here ("" for the item).
    file_name = models.CharField(_("file name"), max_length=255, blank=True, default="")

    class Meta:
        verbose_name = _("alternate identifier")
        verbose_name_plural = _("alternate identifiers")
        ordering = ["scheme", "id"]
        constraints = [models.UniqueConstraint(fields=["scheme", "value"],
                                               name="one_item_per_alternate_identifier")]

    def __str__(self) -> str:
        return f"{self.scheme}:{self.value}"
