"""A month's daily counts rolled up into what the COUNTER reports and the dashboards read
(writes): one MonthlyItemUsage row per item and Access_Type with COUNTER R5.1's four metrics,
its Data_Type, YOP and owning collection as they are now; one MonthlyCollectionUsage row per
collection, Access_Type and Data_Type, their sums (of the items it owns; and another of those
mapped into it); one MonthlyFileUsage row per file downloaded (the Item Report's components);
then the month is marked ready (UsageMonth).

The month M is rolled up on day 1 of M+1 (tasks.py, Celery beat), so its reports are complete
by day 2, as R5.1 asks; `manage.py counter_rollup` does it by hand. Again for a month rolled
up before: its rows are replaced (idempotent), so a late count or a changed item type is
taken in.

The metrics of an item's month, from its daily rows (kinds: investigation, download,
acknowledgment):

* Total_Item_Investigations: every access (a request is an investigation too);
* Unique_Item_Investigations: the sessions' first access to the item (unique_investigations);
* Total_Item_Requests: the downloads and acknowledgments;
* Unique_Item_Requests: the sessions' first request (unique_requests).
"""
from __future__ import annotations

import itertools
from collections.abc import Iterable
from datetime import date

from django.db import connection, transaction
from django.db.models import Case, IntegerField, Sum, When

from ..metadata import vocabularies
from ..models import (
    REQUEST_KINDS,
    DailyAccessCount,
    DailyFileCount,
    DailySearchCount,
    DcValue,
    Item,
    MonthlyCollectionUsage,
    MonthlyFileUsage,
    MonthlyItemUsage,
    UsageMonth,
)
from . import cop

BATCH = 2000  # items whose attributes are read, and rows written, at once


def item_attributes(ids: Iterable[int]) -> dict[int, tuple[str, str]]:
    """{item id: (Data_Type, YOP)} from the items' dc.type and dc.date values."""
    types: dict[int, list[str]] = {}
    dates: dict[int, str] = {}
    values = (DcValue.objects.filter(item_id__in=list(ids), element__in=("type", "date"))
              .order_by("item_id", "position", "id").values_list("item_id", "element", "value"))
    for item_id, element, value in values:
        if element == "type":
            types.setdefault(item_id, []).append(value)
        else:
            dates.setdefault(item_id, value)
    found = {}
    for item_id in ids:
        named = types.get(item_id, [])
        kind = next((k for k in map(vocabularies.kind_of, named) if k is not None), None)
        if kind is None:
            data_type = "Other" if named else "Unspecified"
        else:
            data_type = cop.data_type(kind.openaire, kind.datacite, kind.coar)
        found[item_id] = (data_type, cop.yop(dates.get(item_id, "")))
    return found


def roll_up(month: date) -> int:
    """Roll up the month of `month` (any day of it); the number of item rows written."""
    first = month.replace(day=1)
    following = cop.next_month(first)
    requests = [str(k) for k in REQUEST_KINDS]
    sums = (DailyAccessCount.objects.filter(day__gte=first, day__lt=following).order_by()
            .values_list("item_id", "access_type")
            .annotate(t_i=Sum("n"), u_i=Sum("unique_investigations"),
                      t_r=Sum(Case(When(kind__in=requests, then="n"), default=0,
                                   output_field=IntegerField())),
                      u_r=Sum("unique_requests")))
    rows = list(sums)
    written = 0
    with transaction.atomic():
        MonthlyItemUsage.objects.filter(month=first).delete()
        MonthlyCollectionUsage.objects.filter(month=first).delete()
        MonthlyFileUsage.objects.filter(month=first).delete()
        for start in range(0, len(rows), BATCH):
            batch = rows[start:start + BATCH]
            ids = {row[0] for row in batch}
            attributes = item_attributes(ids)
            collections = dict(Item.objects.filter(pk__in=ids)
                               .values_list("pk", "collection_id"))
            MonthlyItemUsage.objects.bulk_create([
                MonthlyItemUsage(
                    item_id=item_id, month=first, access_type=access,
                    data_type=attributes[item_id][0], yop=attributes[item_id][1],
                    collection_id=collections.get(item_id),
                    total_investigations=n, unique_investigations=unique_inv or 0,
                    total_requests=requested or 0, unique_requests=unique_req or 0)
                for item_id, access, n, unique_inv, requested, unique_req in batch
                if item_id in collections])
            written += len(batch)
        _collections(first)
        _files(first, following)
        UsageMonth.objects.update_or_create(month=first)
    return written


def _collections(month: date) -> None:
    """The month's collection rows, its item rows summed in the database: by the collection
    that owns each item (mapped false), and by each collection an item is mapped into besides
    (mapped true)."""
    table, items = MonthlyCollectionUsage._meta.db_table, MonthlyItemUsage._meta.db_table
    mapping = Item.mapped_collections.through._meta.db_table
    metrics = "total_investigations, unique_investigations, total_requests, unique_requests"
    summed = ", ".join(f"SUM(u.{m})" for m in metrics.split(", "))
    into = f"INSERT INTO {table} (collection_id, month, access_type, data_type, mapped, {metrics})"
    day = connection.ops.adapt_datefield_value(month)
    with connection.cursor() as cursor:
        cursor.execute(
            f"{into} SELECT u.collection_id, u.month, u.access_type, u.data_type, %s, {summed}"
            f" FROM {items} u WHERE u.month = %s AND u.collection_id IS NOT NULL"
            " GROUP BY u.collection_id, u.month, u.access_type, u.data_type", [False, day])
        cursor.execute(
            f"{into} SELECT m.collection_id, u.month, u.access_type, u.data_type, %s, {summed}"
            f" FROM {items} u JOIN {mapping} m ON m.item_id = u.item_id"
            " WHERE u.month = %s"
            " AND (u.collection_id IS NULL OR m.collection_id <> u.collection_id)"
            " GROUP BY m.collection_id, u.month, u.access_type, u.data_type", [True, day])


def _files(month: date, following: date) -> None:
    """The month's file rows (the Item Report's components): each file's downloads summed."""
    sums = (DailyFileCount.objects.filter(day__gte=month, day__lt=following).order_by()
            .values_list("item_id", "name", "access_type").annotate(n=Sum("n")))
    rows = iter(sums)
    while batch := [MonthlyFileUsage(item_id=item_id, name=name, month=month,
                                     access_type=access, requests=n)
                    for item_id, name, access, n in itertools.islice(rows, BATCH)]:
        MonthlyFileUsage.objects.bulk_create(batch)


def months_due(today: date) -> list[date]:
    """The months before today's with daily counts that were not rolled up after their end
    (never, or by hand while they ran): what the periodic task rolls up."""
    current = today.replace(day=1)
    firsts = [model.objects.filter(day__lt=current).order_by("day")
              .values_list("day", flat=True).first()
              for model in (DailyAccessCount, DailySearchCount)]  # a month of searches only too
    first = min((day for day in firsts if day is not None), default=None)
    if first is None:
        return []
    done = {m.month: m.rolled_up_at.date() for m in UsageMonth.objects.filter(month__lt=current)}
    return [m for m in cop.months(first.replace(day=1), current)[:-1]
            if m not in done or done[m] < cop.next_month(m)]
