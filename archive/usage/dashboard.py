"""What the librarians' usage dashboards show (reads): a scope's metrics per month (the repository,
a community with its sub-communities, a collection with the items mapped into it, an item), a
month's top items and top collections (mapped items counted in each); from the rolled-up months
only (rollup.py), so a page reads a few index ranges whatever the number of items
(bench/counter_reports.py)."""
from __future__ import annotations

from datetime import date

from django.db.models import Sum

from ..models import (
    Collection,
    Community,
    Item,
    MonthlyCollectionUsage,
    MonthlyItemUsage,
    UsageMonth,
)

METRICS = ("total_investigations", "unique_investigations", "total_requests",
           "unique_requests")
SCOPES = ("repository", "community", "collection", "item")


def recent_months(count: int = 12) -> list[date]:
    """The last `count` months rolled up, oldest first."""
    return sorted(UsageMonth.objects.order_by("-month").values_list("month", flat=True)[:count])


def _communities_under(community_id: int) -> list[int]:
    tree = dict(Community.objects.values_list("pk", "parent_id"))
    found, frontier = {community_id}, {community_id}
    while frontier:
        frontier = {pk for pk, parent in tree.items() if parent in frontier} - found
        found |= frontier
    return sorted(found)


def series(scope: str, pk: int | None, months: list[date]) -> list[dict]:
    """[{"month": date, metric: n, …}] of the scope, one per month (0 when none)."""
    if not months:
        return []
    if scope == "item":
        rows = MonthlyItemUsage.objects.filter(item_id=pk)
    else:
        rows = MonthlyCollectionUsage.objects.all()
        if scope == "collection":  # the items it owns and those mapped into it
            rows = rows.filter(collection_id=pk)
        elif scope == "community":  # each item once, where it is owned
            rows = rows.filter(collection__community_id__in=_communities_under(pk), mapped=False)
        else:
            rows = rows.filter(mapped=False)
    sums = {row["month"]: row for row in rows.filter(month__in=months).order_by()
            .values("month").annotate(**{m: Sum(m) for m in METRICS})}
    return [{"month": month, **{m: (sums.get(month) or {}).get(m) or 0 for m in METRICS}}
            for month in months]


def top_items(month: date, count: int = 10) -> list[dict]:
    """The month's most requested items: their rows read down the (month, requests) index,
    the Open and Controlled rows of one item summed."""
    found: dict[int, dict] = {}
    for row in (MonthlyItemUsage.objects.filter(month=month).order_by("-total_requests")
                .values("item_id", *METRICS)[:count * 3]):
        kept = found.setdefault(row["item_id"], dict.fromkeys(METRICS, 0))
        for metric in METRICS:
            kept[metric] += row[metric]
    titles = dict(Item.objects.filter(pk__in=found).values_list("pk", "title"))
    ranked = sorted(found.items(), key=lambda pair: (-pair[1]["total_requests"], pair[0]))
    return [{"id": pk, "title": titles.get(pk, ""), **metrics}
            for pk, metrics in ranked[:count]]


def top_collections(month: date, count: int = 10) -> list[dict]:
    rows = (MonthlyCollectionUsage.objects.filter(month=month).order_by().values("collection_id")
            .annotate(**{m: Sum(m) for m in METRICS}).order_by("-total_requests",
                                                                "collection_id")[:count])
    rows = list(rows)
    names = {c.pk: c.name for c in Collection.objects.filter(
        pk__in=[r["collection_id"] for r in rows])}
    return [{"id": r["collection_id"], "name": names.get(r["collection_id"], ""),
             **{m: r[m] for m in METRICS}} for r in rows]


def scope_name(scope: str, pk: int | None) -> str | None:
    """The name of the scope's object, or None if there is no such object."""
    if scope == "repository":
        return ""
    model = {"community": Community, "collection": Collection, "item": Item}[scope]
    found = model.objects.filter(pk=pk).first() if pk else None
    if found is None:
        return None
    return found.title if scope == "item" else found.name
