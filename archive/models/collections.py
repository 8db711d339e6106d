"""Communities and collections (issue 34), DSpace's tree: a community holds sub-communities and
collections; an item belongs to one owning collection (Item.collection) and may be mapped into
others (Item.mapped_collections). Each has a stable path, /communities/<slug> and
/collections/<slug>, and the OAI-PMH sets com_<slug> and col_<slug>.

The tree is checked and written by archive/communities/services.py (a slug taken, a cycle, a
collection with items deleted: refused); a collection's access defaults feed the deposit's
default access through archive/access/policy.py `default_access`."""
from __future__ import annotations

from django.core.validators import FileExtensionValidator, MaxValueValidator
from django.db import models
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from .access import AccessRights

# The one collection every item lands in when none is named (migration 0031 put every item
# that was there before collections into it), under the one community it needs.
DEFAULT_COMMUNITY = "repository"
DEFAULT_COLLECTION = "general"


class _Named(models.Model):
    """What communities and collections share: a slug, names in both languages, a short
    description, a logo."""

    slug = models.SlugField(_("slug"), max_length=100, unique=True,
                            help_text=_("its stable path and OAI-PMH set; never reused"))
    name_pt_br = models.CharField(_("name in Portuguese"), max_length=200)
    name_en = models.CharField(_("name in English"), max_length=200)
    description = models.CharField(_("short description"), max_length=1000, blank=True,
                                   default="")
    # A FileField of images by name (no imaging library): the pages show it as an <img>.
    logo = models.FileField(_("logo"), upload_to="logos/", blank=True, default="",
                            validators=[FileExtensionValidator(["png", "jpg", "jpeg", "svg",
                                                                "webp", "gif"])])

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return self.name

    @property
    def name(self) -> str:
        """Its name in the active language (Portuguese for pt*), else the other."""
        pt = (translation.get_language() or "").lower().startswith("pt")
        first, second = (self.name_pt_br, self.name_en) if pt else (self.name_en, self.name_pt_br)
        return first or second


class Community(_Named):
    """A community: a faculty, a graduate programme. Its parent is None at the top."""

    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT,
                               related_name="children", verbose_name=_("parent community"))

    class Meta:
        ordering = ["name_pt_br", "id"]
        verbose_name = _("community")
        verbose_name_plural = _("communities")


def addresses(text: str) -> list[str]:
    r"""The e-mail addresses of a list written one a line, or separated by commas or spaces,
    each once (checked by archive/communities/services.py `collection_check`).

    >>> addresses("ana@example.org, bia@example.org\nana@example.org")
    ['ana@example.org', 'bia@example.org']
    """
    found: list[str] = []
    for word in (text or "").replace(",", " ").replace(";", " ").split():
        if word not in found:
            found.append(word)
    return found


class Collection(_Named):
    """A collection of items in a community, with the access its deposits get by default."""

    community = models.ForeignKey(Community, on_delete=models.PROTECT,
                                  related_name="collections", verbose_name=_("community"))
    default_access_rights = models.CharField(
        _("default access"), max_length=16, choices=AccessRights.choices,
        default=AccessRights.OPEN,
        help_text=_("what a deposit here gets when it names no access level"))
    default_embargo_days = models.PositiveIntegerField(
        _("default embargo (days)"), default=0, validators=[MaxValueValidator(36500)],
        help_text=_("with the default access embargoed: the days a deposit stays closed"))
    # What a submitter accepts at /submit/ (issue 35): kept with the submission as accepted.
    deposit_licence = models.TextField(
        _("deposit licence"), blank=True, default="", db_default="",
        help_text=_("the terms a submitter accepts, in full; kept with each submission as "
                    "accepted; empty: submissions here cannot be submitted"))
    max_embargo_days = models.PositiveIntegerField(
        _("longest embargo a submitter may choose (days)"), default=730, db_default=730,
        validators=[MaxValueValidator(36500)],
        help_text=_("counted from the day of the submission; 0: submitters choose no embargo"))
    # The collection's Handle in the DSpace it came from (123456789/1000): `importsaf` reads
    # an item's `collections` file by it, and `exportsaf` writes it back there.
    handle = models.CharField(
        _("DSpace Handle"), max_length=255, blank=True, default="", db_default="",
        help_text=_("the Handle this collection had in DSpace (prefix/suffix), if it came "
                    "from there: imports find it by it, exports write it back"))
    # None: the built-in default profile ("padrão", models/profiles.py DEFAULT_PROFILE).
    profile = models.ForeignKey(
        "SubmissionProfile", null=True, blank=True, on_delete=models.PROTECT,
        related_name="collections", verbose_name=_("submission profile"),
        help_text=_("the fields its items have; empty: the default profile (padrão)"))
    request_handlers = models.TextField(
        _("request handlers"), blank=True, default="", db_default="",
        help_text=_("email addresses told of each request for a copy of its items, one a "
                    "line; empty: the repository's (IBI_REQUEST_HANDLERS, else the "
                    "librarians who may answer requests)"))

    class Meta:
        ordering = ["name_pt_br", "id"]
        constraints = [models.UniqueConstraint(
            fields=["handle"], condition=~models.Q(handle=""), name="one_collection_per_handle",
            violation_error_message=_("handle: another collection has this DSpace Handle"))]
        verbose_name = _("collection")
        verbose_name_plural = _("collections")
