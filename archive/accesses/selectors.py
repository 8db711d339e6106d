"""Access statistics (reads): downloads here and acknowledgments from resolvers (Access rows).

Counted per item, per edition family (every edition of the item's chain, edition_family) and
per translation family (the original and its translations, as the archive service groups them
for `.translation(xx)`). Two queries for an item's whole picture, whatever is on file.
"""
from __future__ import annotations

from django.db.models import Count, Q, QuerySet

from ..models import Access, Item
from . import counter as access_counter

_COUNTS = {
    "downloads": Count("accesses", filter=Q(accesses__kind=Access.Kind.DOWNLOAD)),
    "acknowledgments": Count("accesses", filter=Q(accesses__kind=Access.Kind.ACKNOWLEDGMENT)),
}


def _rows(items: QuerySet[Item], *fields: str) -> list[dict]:
    rows = list(items.order_by().annotate(**_COUNTS).values("id", "ibi", *fields, *_COUNTS))
    for row in rows:
        row["total"] = row["downloads"] + row["acknowledgments"]
    return rows


def _family(rows: list[dict], key: str) -> dict:
    members = [{k: v for k, v in row.items() if k != "id"}
               for row in sorted(rows, key=lambda r: (r[key] or "", r["ibi"]))]
    return {
        "downloads": sum(r["downloads"] for r in rows),
        "acknowledgments": sum(r["acknowledgments"] for r in rows),
        "total": sum(r["total"] for r in rows),
        "items": members,
    }


def item_statistics(item: Item) -> dict:
    """{"item": counts, "editions": family counts + per edition, "translations": same}.

    counts = {"downloads": n, "acknowledgments": n, "total": n}. Editions are listed in
    chain order ("edition": 1, 2, …), translations by language. Accesses this process counted
    in the background are written first.
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
                   {"downloads": 0, "acknowledgments": 0, "total": 0})
    by_edition = _family(editions, "edition_number")
    for row in by_edition["items"]:
        row["edition"] = row.pop("edition_number")
    by_edition["items"].sort(key=lambda r: r["edition"])
    return {
        "item": {k: own[k] for k in ("downloads", "acknowledgments", "total")},
        "editions": by_edition,
        "translations": _family(translations, "language"),
    }
