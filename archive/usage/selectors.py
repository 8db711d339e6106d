"""Access statistics (reads): downloads here and acknowledgments from resolvers.

Counted per item, per edition family (every edition of the item's chain, edition_family) and
per translation family (the original and its translations, as the archive service groups them
for `.translation(xx)`), from the daily counts (DailyAccessCount, written by counter.py). Two
queries for an item's whole picture: its families' members, then their counts, an index range
per member (at most two rows per member and day: a year is 730 rows an item), however many
accesses they count.
"""
from __future__ import annotations

import hashlib

from django.db.models import Q, QuerySet, Sum

from ..models import AccessKind, CounterApiKey, DailyAccessCount, Item

_KEYS = ("downloads", "acknowledgments", "total")
_COLUMNS = {AccessKind.DOWNLOAD: "downloads", AccessKind.ACKNOWLEDGMENT: "acknowledgments"}
_ZERO = dict.fromkeys(["downloads", "acknowledgments", "unique_downloads",
                       "unique_acknowledgments", "total", "unique_total"], 0)


def _rows(items: QuerySet[Item], *fields: str) -> list[dict]:
    """Each item's id, ibi, `fields` and counts (also "unique_…"). Two plain queries: the
    items, then their daily counts summed per item and kind."""
    rows = {row["id"]: {**row, **_ZERO}
            for row in items.order_by().values("id", "ibi", *fields)}
    sums = (DailyAccessCount.objects.filter(item_id__in=list(rows)).order_by()
            .values_list("item_id", "kind").annotate(Sum("n"), Sum("unique_n")))
    for item_id, kind, n, unique_n in sums:
        column = _COLUMNS.get(kind)
        if column is not None:
            rows[item_id][column] += n
            rows[item_id]["unique_" + column] += unique_n
    for row in rows.values():
        row["total"] = row["downloads"] + row["acknowledgments"]
        row["unique_total"] = row["unique_downloads"] + row["unique_acknowledgments"]
    return list(rows.values())


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
    2, …), translations by language. What this process counted and has not written
    yet (counter.py's pending batch) is not in it: the caller flushes first when it must be.
    """
    family = item.edition_family or item.ibi
    root = item.translation_of_id or item.pk
    # Both families at once: their members, then their counts.
    members = _rows(Item.objects.filter(Q(edition_family=family) | Q(pk=root)
                                        | Q(translation_of_id=root)),
                    "edition_number", "language", "edition_family", "translation_of_id")

    def only(rows: list[dict], field: str) -> list[dict]:
        drop = {"edition_number", "language", "edition_family", "translation_of_id"} - {field}
        return [{k: v for k, v in row.items() if k not in drop} for row in rows]

    editions = only([r for r in members if r["edition_family"] == family], "edition_number")
    translations = only([r for r in members
                         if r["id"] == root or r["translation_of_id"] == root], "language")
    own = next((r for r in editions + translations if r["id"] == item.pk), None)
    if own is None:  # an item outside its recorded family: count it alone; nothing yet for
        # one that a lagging read replica does not hold yet (archive/db/replica.py)
        own = next(iter(_rows(Item.objects.filter(pk=item.pk))), _ZERO)
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
    """{"downloads": n, "acknowledgments": n, "total": n} of one item: Total_Item_Requests,
    or with unique Unique_Item_Requests (as written: see item_statistics)."""
    return _counts(_rows(Item.objects.filter(pk=item_id)), "unique_" if unique else "")


def api_customer(key: str):
    """The CounterCustomer whose unrevoked API key this is, or None."""
    if not key:
        return None
    found = (CounterApiKey.objects.select_related("customer")
             .filter(key_hash=key_hash(key), revoked_at__isnull=True).first())
    return found.customer if found else None


def key_hash(key: str) -> str:
    """The SHA-256 kept of an API key (the key itself is shown once, then forgotten)."""
    return hashlib.sha256(key.encode()).hexdigest()
