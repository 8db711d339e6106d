"""An item's Dublin Core: the fifteen elements (DcElement), and the values of those beside
title and language (DcValue)."""
from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from .items import Item


class DcElement(models.TextChoices):
    """The fifteen elements of Dublin Core 1.1, in the order of the oai_dc schema's sequence,
    each with its name for people (the element's own name stays in the XML and the API)."""

    TITLE = "title", pgettext_lazy("Dublin Core element", "Title")
    CREATOR = "creator", pgettext_lazy("Dublin Core element", "Creator")
    SUBJECT = "subject", pgettext_lazy("Dublin Core element", "Subject")
    DESCRIPTION = "description", pgettext_lazy("Dublin Core element", "Description")
    PUBLISHER = "publisher", pgettext_lazy("Dublin Core element", "Publisher")
    CONTRIBUTOR = "contributor", pgettext_lazy("Dublin Core element", "Contributor")
    DATE = "date", pgettext_lazy("Dublin Core element", "Date")
    TYPE = "type", pgettext_lazy("Dublin Core element", "Type")
    FORMAT = "format", pgettext_lazy("Dublin Core element", "Format")
    IDENTIFIER = "identifier", pgettext_lazy("Dublin Core element", "Identifier")
    SOURCE = "source", pgettext_lazy("Dublin Core element", "Source")
    LANGUAGE = "language", pgettext_lazy("Dublin Core element", "Language")
    RELATION = "relation", pgettext_lazy("Dublin Core element", "Relation")
    COVERAGE = "coverage", pgettext_lazy("Dublin Core element", "Coverage")
    RIGHTS = "rights", pgettext_lazy("Dublin Core element", "Rights")


# The elements kept as DcValue rows: all but title and language, which are Item fields.
DC_ELEMENTS: tuple[str, ...] = tuple(
    element.value for element in DcElement
    if element not in (DcElement.TITLE, DcElement.LANGUAGE))


class DcValue(models.Model):
    """One value of a repeatable Dublin Core element."""

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="dc_values",
                             verbose_name=_("item"))
    # The element's own name as its label: the translated labels of DcElement here would be
    # a migration for no change of the table.
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
