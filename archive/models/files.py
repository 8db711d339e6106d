"""An item's stored files: its work's files (DSpace's ORIGINAL bundle) and, for an item that
came from DSpace, the bundles DSpace derives or keeps beside them (TEXT, THUMBNAIL, LICENSE)."""
from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from .items import Item

# DSpace's bundles an item keeps (archive/dspace/saf.py reads and writes them): the work's own
# files, and what DSpace made or kept beside them. Names as DSpace spells them.
ORIGINAL, TEXT, THUMBNAIL, LICENSE = "ORIGINAL", "TEXT", "THUMBNAIL", "LICENSE"


class Bundle(models.TextChoices):
    ORIGINAL = ORIGINAL, _("original (the work's files)")
    TEXT = TEXT, _("extracted text")
    THUMBNAIL = THUMBNAIL, _("thumbnail")
    LICENSE = LICENSE, _("deposit licence")


class OriginalFiles(models.Manager):
    """The work's files only (bundle ORIGINAL): what every channel lists, serves, copies,
    bags and counts. The default manager, and so `item.files` too, on purpose: the other
    bundles are kept for a DSpace round trip and never reach a reader by a forgotten filter.
    `ItemFile.every_bundle` reads them all (archive/dspace/exports.py, fsck)."""

    def get_queryset(self) -> models.QuerySet:
        return super().get_queryset().filter(bundle=ORIGINAL)


class ItemFile(models.Model):
    """A file of an item: an original at col/<repository name>/doc/<name>, a file of another
    bundle at col/<repository name>/bundles/<bundle, in lower case>/<name>
    (archive/deposit/storage.py `file_key`)."""

    item = models.ForeignKey(Item, on_delete=models.PROTECT, related_name="files",
                             verbose_name=_("item"))
    name = models.CharField(_("name"), max_length=255)
    size = models.BigIntegerField(_("size"))
    sha256 = models.CharField("SHA-256", max_length=64)
    # The second digest (issue 38): computed at deposit when the bytes are read there, and
    # by the first fixity check of a file that came without it (a pending upload, a copy,
    # a file older than the field). Blank until then.
    sha512 = models.CharField("SHA-512", max_length=128, blank=True, default="",
                              db_default="")
    content_type = models.CharField(_("content type"), max_length=255,
                                    default="application/octet-stream")
    # The format its content says (PRONOM, by siegfried: archive/preservation/formats.py),
    # identified after the deposit commits; "" PUID: none matched (or not identified yet,
    # when format_identified is empty).
    format_puid = models.CharField(_("PRONOM format"), max_length=32, blank=True,
                                   default="", db_default="")
    format_name = models.CharField(_("format"), max_length=255, blank=True, default="",
                                   db_default="")
    format_version = models.CharField(_("format version"), max_length=64, blank=True,
                                      default="", db_default="")
    format_mime = models.CharField(_("format's MIME type"), max_length=255, blank=True,
                                   default="", db_default="")
    format_identified = models.DateTimeField(_("format identified"), null=True, blank=True)
    created = models.DateTimeField(_("created"), auto_now_add=True)
    # Fixity: when the stored bytes were last hashed again, and what was found.
    checked_at = models.DateTimeField(_("checked"), null=True, blank=True, db_index=True)
    fixity_problem = models.CharField(_("problem"), max_length=255, blank=True)
    # Closed to the public even when its item is open (a public article, a restricted
    # dataset): for librarians and holders of a secret link, as a restricted item's files.
    restricted = models.BooleanField(_("restricted"), default=False, db_default=False)
    bundle = models.CharField(_("bundle"), max_length=16, choices=Bundle.choices,
                              default=ORIGINAL, db_default=ORIGINAL)

    every_bundle = models.Manager()
    objects = OriginalFiles()

    class Meta:
        default_manager_name = "objects"
        verbose_name = _("item file")
        verbose_name_plural = _("item files")
        ordering = ["name"]
        # One name per item across its bundles, as in a DSpace export's item folder, where
        # every bundle's files lie side by side.
        constraints = [models.UniqueConstraint(fields=["item", "name"], name="one_name_per_item")]

    def __str__(self) -> str:
        if self.bundle == ORIGINAL:
            return f"{self.item.ibi}/doc/{self.name}"
        return f"{self.item.ibi}/bundles/{self.bundle.lower()}/{self.name}"
