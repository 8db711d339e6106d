"""Writes: the search entries rebuilt in batches, for `manage.py reindex`.

The triggers (installed by migration 0007_full_text_search) keep every entry current on every
write; a rebuild
is for what they could not see: a load with the triggers disabled (the fastest COPY), a
TRUNCATE, a change of the text search rules. Each batch is its own short transaction over a
range of ids, so a rebuild runs while the site serves, and a killed one loses at most one
batch: run it again with --missing (or --after the last id it printed) to go on.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator

from django.db import connection, transaction
from django.db.models import Exists, OuterRef

from ..models import Item, ItemSearch

ITEM = Item._meta.db_table
SEARCH = ItemSearch._meta.db_table

BATCH = 1000


def refresh(ids: list[int]) -> None:
    """Rebuild the search entries of these items, and drop the entries of those among them
    that no longer exist: by the database's own rule, the one its triggers apply (PostgreSQL:
    archive_search_refresh, one statement; SQLite: the title written again, which fires the
    item's update trigger)."""
    if not ids:
        return
    marks = ", ".join(["%s"] * len(ids))
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT archive_search_refresh(%s::bigint[])", [ids])
        else:
            cursor.execute(f"UPDATE {ITEM} SET title = title WHERE id IN ({marks})", ids)
        cursor.execute(f"DELETE FROM {SEARCH} WHERE item_id IN ({marks}) AND NOT EXISTS "
                       f"(SELECT 1 FROM {ITEM} i WHERE i.id = {SEARCH}.item_id)", ids)


def batches(*, after: int = 0, missing: bool = False, size: int = BATCH
            ) -> Iterator[list[int]]:
    """Item ids in ascending batches after `after`: all, or those without an entry."""
    while True:
        items = Item.objects.filter(pk__gt=after)
        if missing:
            # NOT EXISTS, not NOT IN: an anti-join however many entries there are.
            items = items.filter(~Exists(ItemSearch.objects.filter(item_id=OuterRef("pk"))))
        ids = list(items.order_by("pk").values_list("pk", flat=True)[:size])
        if not ids:
            return
        yield ids
        after = ids[-1]


def reindex(*, after: int = 0, missing: bool = False, size: int = BATCH,
            done: Callable[[list[int]], None] = lambda ids: None) -> int:
    """Rebuild the entries of every item after `after` (or only the missing ones), batch by
    batch; `done(ids)` after each committed batch. Returns the number of items rebuilt."""
    rebuilt = 0
    for ids in batches(after=after, missing=missing, size=size):
        refresh(ids)
        rebuilt += len(ids)
        done(ids)
    return rebuilt


def last_id() -> int:
    """The highest item id: the end of a progress bar, without counting rows."""
    return Item.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
