"""An item's Dublin Core: the elements beside title and language, and their values."""
from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from .items import Item

# Dublin Core elements other than title and language (those two are Item fields).
DC_ELEMENTS = (
    "creator", "subject", "description", "publisher", "contributor", "date", "type",
    "format", "identifier", "source", "relation", "coverage", "rights",
)


class DcValue(models.Model):
    """One value of a repeatable Dublin Core element."""

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="dc_values",
                             verbose_name=_("item"))
    element = models.CharField(_("element"), max_length=16,
                               choices=[(e, e) for e in DC_ELEMENTS])
    value = models.TextField(_("value"))
    position = models.PositiveIntegerField(_("position"), default=0)
    # A creator's ORCID iD, bare (0000-0002-1825-0097), checked by the deposit services
    # (identifiers/orcid.py). db_default: rows loaded by COPY or plain SQL still get "".
    orcid = models.CharField(_("ORCID iD"), max_length=19, blank=True, default="", db_default="")

    class Meta:
        ordering = ["element", "position", "id"]
        verbose_name = _("Dublin Core value")
        verbose_name_plural = _("Dublin Core values")

    def __str__(self) -> str:
        return f"{self.element}: {self.value}"
