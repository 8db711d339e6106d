"""An item's stored files."""
from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from .items import Item


class ItemFile(models.Model):
    """A file of an item, stored at col/<repository name>/doc/<name>."""

    item = models.ForeignKey(Item, on_delete=models.PROTECT, related_name="files",
                             verbose_name=_("item"))
    name = models.CharField(_("name"), max_length=255)
    size = models.BigIntegerField(_("size"))
    sha256 = models.CharField("SHA-256", max_length=64)
    content_type = models.CharField(_("content type"), max_length=255,
                                    default="application/octet-stream")
    created = models.DateTimeField(_("created"), auto_now_add=True)
    # Fixity: when the stored bytes were last hashed again, and what was found.
    checked_at = models.DateTimeField(_("checked"), null=True, blank=True, db_index=True)
    fixity_problem = models.CharField(_("problem"), max_length=255, blank=True)
    # Closed to the public even when its item is open (a public article, a restricted
    # dataset): for librarians and holders of a secret link, as a restricted item's files.
    restricted = models.BooleanField(_("restricted"), default=False, db_default=False)

    class Meta:
        verbose_name = _("item file")
        verbose_name_plural = _("item files")
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["item", "name"], name="one_name_per_item")]

    def __str__(self) -> str:
        return f"{self.item.ibi}/doc/{self.name}"
