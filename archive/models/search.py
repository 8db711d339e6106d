"""What search reads for an item, kept by the database's own triggers."""
from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from .items import Item


class SearchVectorField(models.Field):
    """PostgreSQL's tsvector; plain text elsewhere (SQLite keeps it NULL and unused)."""

    description = "a text search vector"

    def db_type(self, connection) -> str:
        return "tsvector" if connection.vendor == "postgresql" else "text"

    def deconstruct(self) -> tuple:
        # Migrations name it where every importer does: archive.models, not this module.
        name, path, args, kwargs = super().deconstruct()
        return name, "archive.models.SearchVectorField", args, kwargs


class ItemSearch(models.Model):
    """What search reads for one item, kept current by the database's own triggers
    (installed by migration 0007_full_text_search) on every write
    to archive_item and archive_dcvalue, whoever writes: the services, the admin, raw SQL,
    COPY. `manage.py reindex` rebuilds it.

    PostgreSQL fills `document` (weighted, stemmed and unaccented: the README's "Search"),
    SQLite fills `text` (lower case, accents folded). No foreign key:
    a COPY into archive_item need not wait for it, and the triggers remove a deleted item's row.
    """

    item = models.OneToOneField(Item, primary_key=True, on_delete=models.DO_NOTHING,
                                db_constraint=False, related_name="search_entry",
                                verbose_name=_("item"))
    # NULL (its database default) until the triggers fill it; its GIN index is made by the
    # migration on PostgreSQL only.
    document = SearchVectorField(_("document"), null=True)
    text = models.TextField(_("text"), default="", db_default="")
    # What the site's listings show (neither a tombstone nor the archive service): a search
    # of the site then reads this table alone, whatever the number of matches.
    listed = models.BooleanField(_("listed"), default=False, db_default=False)

    class Meta:
        verbose_name = _("search entry")
        verbose_name_plural = _("search entries")

    def __str__(self) -> str:
        return f"search entry of item {self.item_id}"
