"""An item's metadata: the fifteen elements of simple Dublin Core (DcElement), and the
values of the registry's fields (DcValue) beside the item's title and language."""
from __future__ import annotations

import re

from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from .items import Item
from .registry import MetadataField


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


# A bare ORCID iD's form (its check digit is checked where it is written: identifiers/orcid.py).
ORCID_FORM = re.compile(r"[0-9]{4}-[0-9]{4}-[0-9]{4}-[0-9]{3}[0-9X]")

# The elements kept as DcValue rows: all but title and language, which are Item fields.
DC_ELEMENTS: tuple[str, ...] = tuple(
    element.value for element in DcElement
    if element not in (DcElement.TITLE, DcElement.LANGUAGE))


class Confidence(models.IntegerChoices):
    """How sure the authority id of a value is: DSpace's Choices.CF_* values, kept as numbers
    so that what a DSpace export says comes back as it was."""

    UNSET = -1, pgettext_lazy("authority confidence", "unset")
    NOVALUE = 0, pgettext_lazy("authority confidence", "no value")
    REJECTED = 100, pgettext_lazy("authority confidence", "rejected")
    FAILED = 200, pgettext_lazy("authority confidence", "failed")
    NOTFOUND = 300, pgettext_lazy("authority confidence", "not found")
    AMBIGUOUS = 400, pgettext_lazy("authority confidence", "ambiguous")
    UNCERTAIN = 500, pgettext_lazy("authority confidence", "uncertain")
    ACCEPTED = 600, pgettext_lazy("authority confidence", "accepted")


class DcValue(models.Model):
    """One value of a field of the registry (`schema.element.qualifier[language]`), with the
    authority id it stands for (an ORCID iD, a Lattes CV id…) and how sure that is."""

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="dc_values",
                             verbose_name=_("item"))
    field = models.ForeignKey(MetadataField, on_delete=models.PROTECT, related_name="values",
                              verbose_name=_("field"))
    # The field's simple Dublin Core element (MetadataField.dc_element), kept on the row: the
    # search triggers, facets, oai_dc and the citations read values by it, and
    # dc.contributor.advisor is a contributor to them all. "" for a field with none.
    element = models.CharField(_("element"), max_length=16, blank=True)
    value = models.TextField(_("value"))
    language = models.CharField(_("language"), max_length=35, blank=True, default="",
                                db_default="")
    position = models.PositiveIntegerField(_("position"), default=0)
    # Bare: an ORCID iD (0000-0002-1825-0097), a Lattes CV id (16 digits) or another
    # authority's key, checked by the deposit services (registry/authorities.py).
    # db_default: rows loaded by COPY or plain SQL still get "" and -1.
    authority = models.CharField(_("authority"), max_length=255, blank=True, default="",
                                 db_default="")
    confidence = models.SmallIntegerField(_("confidence"), choices=Confidence.choices,
                                          default=Confidence.UNSET, db_default=-1)

    class Meta:
        ordering = ["element", "position", "id"]
        verbose_name = _("metadata value")
        verbose_name_plural = _("metadata values")

    def __str__(self) -> str:
        return f"{self.element}: {self.value}"

    @property
    def orcid(self) -> str:
        """The authority if it is an ORCID iD, else "" (what the formats link a creator to)."""
        return self.authority if ORCID_FORM.fullmatch(self.authority) else ""
