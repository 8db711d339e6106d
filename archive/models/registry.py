"""The metadata registry: schemas (dc, dcterms, local…) and their fields, element and
qualifier, as DSpace's registry has them (archive/registry/data/ holds DSpace 7's own files,
which migration 0028 loaded). A value of an item (DcValue) names one of these fields."""
from __future__ import annotations

from django.core.validators import RegexValidator
from django.db import models
from django.utils import translation
from django.utils.translation import gettext_lazy as _

# What DSpace allows in a schema's short name, an element or a qualifier: no dot, no space.
_NAME = RegexValidator(r"^[A-Za-z][A-Za-z0-9_-]*\Z",
                       _("letters, digits, hyphens and underscores only, a letter first"))


class MetadataSchema(models.Model):
    """A schema of the registry: its short name (the prefix of its fields' names) and URI."""

    name = models.CharField(_("short name"), max_length=32, unique=True, validators=[_NAME],
                            help_text=_("the prefix of its fields, e.g. dc or local"))
    namespace = models.URLField(_("namespace"), max_length=255, unique=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("metadata schema")
        verbose_name_plural = _("metadata schemas")

    def __str__(self) -> str:
        return self.name


class MetadataField(models.Model):
    """A field of the registry, `schema.element.qualifier` (no qualifier: `schema.element`),
    its scope note, its labels in English and Portuguese, and the Dublin Core element its
    values are given as where only simple Dublin Core is spoken (oai_dc, search, citations)."""

    schema = models.ForeignKey(MetadataSchema, on_delete=models.PROTECT, related_name="fields",
                               verbose_name=_("schema"))
    element = models.CharField(_("element"), max_length=64, validators=[_NAME])
    qualifier = models.CharField(_("qualifier"), max_length=64, blank=True, default="",
                                 validators=[_NAME])
    scope_note = models.TextField(_("scope note"), blank=True, default="")
    label_en = models.CharField(_("label in English"), max_length=200, blank=True, default="")
    label_pt_br = models.CharField(_("label in Portuguese"), max_length=200, blank=True,
                                   default="")
    # DCMI's dumbing-down: dc.contributor.advisor is a dc:contributor. "" for a field simple
    # Dublin Core has no element for.
    dc_element = models.CharField(
        _("simple Dublin Core element"), max_length=16, blank=True, default="",
        help_text=_("the element of simple Dublin Core its values are given as (oai_dc, "
                    "search, citations); empty for none"))

    class Meta:
        ordering = ["schema__name", "element", "qualifier"]
        constraints = [models.UniqueConstraint(fields=["schema", "element", "qualifier"],
                                               name="metadatafield_unique_name")]
        verbose_name = _("metadata field")
        verbose_name_plural = _("metadata fields")

    def __str__(self) -> str:
        return self.name

    @property
    def name(self) -> str:
        """dc.contributor.advisor; dc.title for a field with no qualifier."""
        return ".".join(p for p in (self.schema.name, self.element, self.qualifier) if p)

    @property
    def label(self) -> str:
        """Its label in the active language (Portuguese for pt*), else the other, else its
        name."""
        pt = (translation.get_language() or "").lower().startswith("pt")
        first, second = ((self.label_pt_br, self.label_en) if pt
                         else (self.label_en, self.label_pt_br))
        return first or second or self.name
