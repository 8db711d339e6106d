"""What is inside an item's files (issue 37): each file's text, page by page, and how its
extraction went.

A file's text is kept per page (`FilePage`): a 300-page thesis does not fit one search
document (PostgreSQL limits a tsvector to 1 MB and its positions to 16 383), and a match is
shown with its page. Where the text came from is kept with it: the PDF's text layer, OCR of a
page that had none, or DSpace's TEXT bundle of a migrated item. `FileExtraction` says how the
file's extraction went, once per file: done, empty (no text found: a flagged failure, never a
silent success), failed (the reason, once) — shown to librarians in the admin."""
from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from .files import ItemFile


class FileExtraction(models.Model):
    class State(models.TextChoices):
        PENDING = "pending", _("waiting")
        DONE = "done", _("text extracted")
        EMPTY = "empty", _("no text found")
        FAILED = "failed", pgettext_lazy("text extraction state", "failed")
        # A file of a kind without text to extract (a dataset, audio): nothing to flag.
        SKIPPED = "skipped", _("no text to extract")

    file = models.OneToOneField(ItemFile, on_delete=models.CASCADE, related_name="extraction",
                                verbose_name=_("file"))
    state = models.CharField(_("state"), max_length=8, choices=State.choices,
                             default=State.PENDING, db_index=True)
    # How: "text layer", "ocr", "docx", "odt", "html", "plain text", "dspace TEXT bundle".
    method = models.CharField(_("method"), max_length=32, blank=True, default="")
    pages = models.PositiveIntegerField(_("pages"), default=0)
    reason = models.TextField(_("reason"), blank=True, default="")
    # A result a librarian should look at: empty, garbage OCR, failed.
    flagged = models.BooleanField(_("flagged"), default=False, db_index=True)
    started = models.DateTimeField(_("started"), null=True, blank=True)
    finished = models.DateTimeField(_("finished"), null=True, blank=True)
    # The storage key of the file's thumbnail (archive/fulltext/services.py): one made here
    # under thumbnails/, or the THUMBNAIL bundle's file DSpace made; "" for none.
    thumbnail = models.CharField(_("thumbnail"), max_length=1024, blank=True, default="")
    thumbnail_problem = models.CharField(_("thumbnail problem"), max_length=500, blank=True,
                                         default="")

    class Meta:
        verbose_name = _("text extraction")
        verbose_name_plural = _("text extractions")

    def __str__(self) -> str:
        return f"{self.file}: {self.get_state_display()}"


class FilePage(models.Model):
    class Source(models.TextChoices):
        LAYER = "layer", _("the file's text")
        OCR = "ocr", _("OCR")
        BUNDLE = "bundle", _("DSpace's extracted text")

    file = models.ForeignKey(ItemFile, on_delete=models.CASCADE, related_name="pages",
                             verbose_name=_("file"))
    number = models.PositiveIntegerField(_("page"))  # from 1
    text = models.TextField(_("text"), blank=True, default="")
    source = models.CharField(_("source"), max_length=8, choices=Source.choices,
                              default=Source.LAYER)

    class Meta:
        ordering = ["file", "number"]
        verbose_name = _("page of text")
        verbose_name_plural = _("pages of text")
        constraints = [models.UniqueConstraint(fields=["file", "number"],
                                               name="one_text_per_page")]

    def __str__(self) -> str:
        return f"{self.file} p. {self.number}"
