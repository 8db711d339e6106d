"""Access statistics (reads): downloads here and acknowledgments from resolvers.

Counted per item, per edition family (every edition of the item's chain, edition_family) and
per translation family (the original and its translations, as the archive service groups them
for `.translation(xx)`), from the daily counts (DailyAccessCount, written by counter.py). Two
queries for an item's whole picture, each an index range per family member (at most two rows
per member and day: a year is 730 rows an item), however many accesses they count.
"""
from __future__ import annotations

from django.db.models import Q, QuerySet, Sum, Value
from django.db.models.functions import Coalesce

from ..models import AccessKind, Item
from . import counter as access_counter

_KEYS = ("downloads", "acknowledgments", "total")


def _sum(column: str, kind: str) -> Coalesce:
    return Coalesce(Sum(f"access_counts__{column}", filter=Q(access_counts__kind=kind)),
                    Value(0))


_COUNTS = {"downloads": _sum("n", AccessKind.DOWNLOAD),
           "acknowledgments": _sum("n", AccessKind.ACKNOWLEDGMENT),
           "unique_downloads": _sum("unique_n", AccessKind.DOWNLOAD),
           "unique_acknowledgments": _sum("unique_n", AccessKind.ACKNOWLEDGMENT)}


def _rows(items: QuerySet[Item], *fields: str) -> list[dict]:
    rows = list(items.order_by().annotate(**_COUNTS).values("id", "ibi", *fields, *_COUNTS))
    for row in rows:
        row["total"] = row["downloads"] + row["acknowledgments"]
        row["unique_total"] = row["unique_downloads"] + row["unique_acknowledgments"]
    return rows


def _counts(rows: list[dict], prefix: str = "") -> dict[str, int]:
    return {key: sum(r[prefix + key] for r in rows) for key in _KEYS}


def _family(rows: list[dict], key: str) -> dict:
    members = [{k: v for k, v in row.items() if k != "id" and not k.startswith("unique_")}
               for row in sorted(rows, key=lambda r: (r[key] or "", r["ibi"]))]
    return {**_counts(rows), "items": members}


def item_statistics(item: Item) -> dict:
    """{"item": counts, "editions": family counts + per edition, "translations": same,
    "unique": {"item": counts, "editions": counts, "translations": counts}}.

    counts = {"downloads": n, "acknowledgments": n, "total": n}: COUNTER R5
    Total_Item_Requests, and under "unique" Unique_Item_Requests (once per reader session;
    a family's is the sum of its members'). Editions are listed in chain order ("edition": 1,
    2, …), translations by language. Accesses this process counted in the background are
    written first.
    """
    access_counter.flush()
    editions = _rows(Item.objects.filter(edition_family=item.edition_family or item.ibi),
                     "edition_number")
    root = item.translation_of_id or item.pk
    translations = _rows(Item.objects.filter(Q(pk=root) | Q(translation_of_id=root)),
                         "language")
    own = next((r for r in editions + translations if r["id"] == item.pk), None)
    if own is None:  # an item outside its recorded family: count it alone; nothing yet for
        # one that a lagging read replica does not hold yet (archive/site/replica.py)
        own = next(iter(_rows(Item.objects.filter(pk=item.pk))),
                   dict.fromkeys([*_COUNTS, "total", "unique_total"], 0))
    by_edition = _family(editions, "edition_number")
    for row in by_edition["items"]:
        row["edition"] = row.pop("edition_number")
    by_edition["items"].sort(key=lambda r: r["edition"])
    return {
        "item": _counts([own]),
        "editions": by_edition,
        "translations": _family(translations, "language"),
        "unique": {"item": _counts([own], "unique_"),
                   "editions": _counts(editions, "unique_"),
                   "translations": _counts(translations, "unique_")},
    }


def item_counts(item_id: int, *, unique: bool = False) -> dict[str, int]:
    """{"downloads": n, "acknowledgments": n, "total": n} of one item, after a flush:
    Total_Item_Requests, or with unique Unique_Item_Requests."""
    access_counter.flush()
    return _counts(_rows(Item.objects.filter(pk=item_id)), "unique_" if unique else "")
