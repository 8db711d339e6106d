"""Submission profiles (issue 34): which fields of the registry a collection's items have, in
which order, which are required and repeatable, how each is entered (text, a long text, a
date, a choice from a controlled vocabulary, a name with its authority id) and its help in
both languages. A collection without a profile uses the built-in "padrão" one; "tese" is
MTD-BR's thesis profile (archive/profiles/builtin.py, migration 0035).

Checked by archive/profiles/check.py (pure) for the admin and the API alike."""
from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import models
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from .languages import validate_language
from .registry import MetadataField

# The built-in profiles' slugs: the default of every collection without one, and MTD-BR's.
DEFAULT_PROFILE = "padrao"
THESIS_PROFILE = "tese"


def _in_language(pt: str, en: str) -> str:
    """The Portuguese text for pt*, else the English one, else the other."""
    first, second = ((pt, en) if (translation.get_language() or "").lower().startswith("pt")
                     else (en, pt))
    return first or second


class Vocabulary(models.Model):
    """A controlled list a profile's field may be chosen from (CNPq's knowledge areas, the
    degree levels): its terms, each a value as stored and its labels."""

    slug = models.SlugField(_("slug"), max_length=100, unique=True)
    name_pt_br = models.CharField(_("name in Portuguese"), max_length=200)
    name_en = models.CharField(_("name in English"), max_length=200)

    class Meta:
        ordering = ["slug"]
        verbose_name = _("controlled vocabulary")
        verbose_name_plural = _("controlled vocabularies")

    def __str__(self) -> str:
        return self.name

    @property
    def name(self) -> str:
        return _in_language(self.name_pt_br, self.name_en)


class VocabularyTerm(models.Model):
    """One term: the value stored (a CNPq area's code, "mestrado"), and its labels."""

    vocabulary = models.ForeignKey(Vocabulary, on_delete=models.CASCADE, related_name="terms",
                                   verbose_name=_("vocabulary"))
    value = models.CharField(_("value"), max_length=200,
                             help_text=_("what is stored, e.g. 1.03.00.00-7 or mestrado"))
    label_pt_br = models.CharField(_("label in Portuguese"), max_length=300)
    label_en = models.CharField(_("label in English"), max_length=300, blank=True, default="")
    position = models.PositiveIntegerField(_("position"), default=0)

    class Meta:
        ordering = ["vocabulary", "position", "id"]
        constraints = [models.UniqueConstraint(fields=["vocabulary", "value"],
                                               name="vocabularyterm_unique_value")]
        verbose_name = _("term")
        verbose_name_plural = _("terms")

    def __str__(self) -> str:
        return f"{self.value} {self.label}"

    @property
    def label(self) -> str:
        return _in_language(self.label_pt_br, self.label_en)


class SubmissionProfile(models.Model):
    """A submission profile: its name and its fields (ProfileField), in order."""

    slug = models.SlugField(_("slug"), max_length=100, unique=True)
    name_pt_br = models.CharField(_("name in Portuguese"), max_length=200)
    name_en = models.CharField(_("name in English"), max_length=200)
    description = models.CharField(_("short description"), max_length=1000, blank=True,
                                   default="")

    class Meta:
        ordering = ["slug"]
        verbose_name = _("submission profile")
        verbose_name_plural = _("submission profiles")

    def __str__(self) -> str:
        return self.name

    @property
    def name(self) -> str:
        return _in_language(self.name_pt_br, self.name_en)


class ProfileField(models.Model):
    """A field of a profile: a field of the registry, in one language or any ("" : a value in
    any language or none), its place, whether it is required and repeatable, how it is
    entered, its label (the registry's unless given) and help, and for a controlled list its
    vocabulary, for an authority lookup the authority its ids belong to."""

    class InputType(models.TextChoices):
        TEXT = "text", _("text")
        TEXTAREA = "textarea", _("long text")
        DATE = "date", _("date")
        CONTROLLED = "controlled", _("controlled list")
        AUTHORITY = "authority", _("authority lookup")

    class Authority(models.TextChoices):
        NONE = "", _("none")
        LATTES = "lattes", _("Lattes CV id")
        ORCID = "orcid", _("ORCID iD")
        ANY = "lattes-orcid", _("Lattes CV id or ORCID iD")

    profile = models.ForeignKey(SubmissionProfile, on_delete=models.CASCADE,
                                related_name="entries", verbose_name=_("profile"))
    field = models.ForeignKey(MetadataField, on_delete=models.PROTECT, related_name="+",
                              verbose_name=_("field"))
    language = models.CharField(_("language"), max_length=35, blank=True, default="",
                                validators=[validate_language],
                                help_text=_("BCP 47 tag of its values, e.g. pt-BR; empty: any "
                                            "language or none"))
    position = models.PositiveIntegerField(_("position"), default=0)
    required = models.BooleanField(_("required"), default=False)
    repeatable = models.BooleanField(_("repeatable"), default=True)
    input_type = models.CharField(_("input type"), max_length=16, choices=InputType.choices,
                                  default=InputType.TEXT)
    vocabulary = models.ForeignKey(Vocabulary, null=True, blank=True, on_delete=models.PROTECT,
                                   related_name="+", verbose_name=_("controlled vocabulary"),
                                   help_text=_("with a controlled list: the values allowed"))
    authority = models.CharField(_("authority"), max_length=16, choices=Authority.choices,
                                 blank=True, default="",
                                 help_text=_("with an authority lookup: what its ids are"))
    label_pt_br = models.CharField(_("label in Portuguese"), max_length=200, blank=True,
                                   default="",
                                   help_text=_("empty: the registry field's label"))
    label_en = models.CharField(_("label in English"), max_length=200, blank=True, default="",
                                help_text=_("empty: the registry field's label"))
    help_pt_br = models.CharField(_("help in Portuguese"), max_length=500, blank=True,
                                  default="")
    help_en = models.CharField(_("help in English"), max_length=500, blank=True, default="")

    class Meta:
        ordering = ["profile", "position", "id"]
        constraints = [models.UniqueConstraint(fields=["profile", "field", "language"],
                                               name="profilefield_unique_field_language")]
        verbose_name = _("profile field")
        verbose_name_plural = _("profile fields")

    def __str__(self) -> str:
        return f"{self.field.name}[{self.language}]" if self.language else self.field.name

    @property
    def help(self) -> str:
        return _in_language(self.help_pt_br, self.help_en)

    def clean(self) -> None:
        """A controlled list names its vocabulary, an authority lookup its authority; neither
        is named by another input type."""
        errors = {}
        controlled = self.input_type == self.InputType.CONTROLLED
        if controlled != (self.vocabulary_id is not None):
            errors["vocabulary"] = (_("a controlled list needs its vocabulary") if controlled
                                    else _("only a controlled list has a vocabulary"))
        if self.authority and self.input_type != self.InputType.AUTHORITY:
            errors["authority"] = _("only an authority lookup has an authority")
        if errors:
            raise ValidationError(errors)

    @property
    def label(self) -> str:
        """Its own label in the active language, else the registry field's."""
        return _in_language(self.label_pt_br, self.label_en) or self.field.label
