"""COUNTER R5.1 reports read from the rolled-up months (reads; rollup.py writes them).

The Platform Report sums MonthlyCollectionUsage (a few rows a month, whatever the number of
items; each item in its owning collection's rows only) and DailySearchCount (Searches_Platform,
under the Data_Type Platform) and is built whole. The Item Report is streamed: `item_report`
yields the JSON in pieces while a server-side cursor (`connection.chunked_cursor()`: a named
cursor on PostgreSQL) walks MonthlyItemUsage in item order, so its memory stays flat for a
million items (bench/counter_reports.py). Its Report_Items are one IR_No_Parent_Item per
item: a client that streams them (ijson, as celus-nigiri does) holds one item at a time.

Usage is not attributed to institutions (no reader's address is kept: that is what privacy
asks, and what a repository's readers are): every report is the repository's global usage,
"The World" (customer_id 0000000000000000). A customer asking for its own customer_id gets
the report with no items, saying so (3030 and an informational Exception 0).
"""
from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime
from itertools import groupby, islice
from operator import itemgetter
from urllib.parse import quote

from django.db import connection
from django.db.models import Sum

from ..models import (
    DailySearchCount,
    Item,
    MonthlyCollectionUsage,
    MonthlyFileUsage,
    MonthlyItemUsage,
    UsageMonth,
)
from . import cop

_COLUMNS = {"Total_Item_Investigations": "total_investigations",
            "Unique_Item_Investigations": "unique_investigations",
            "Total_Item_Requests": "total_requests", "Unique_Item_Requests": "unique_requests"}
_ACCESS = {v: k for k, v in cop.ACCESS_TYPES.items()}  # "Open" → "open"
NOT_ATTRIBUTED = ("Usage is not attributed to institutions (no reader's address is kept): "
                  "ask for customer_id 0000000000000000, the repository's global usage.")


@dataclass(frozen=True)
class Platform:
    """Who the reports are of: the platform's name, its identifiers' namespace, its
    publisher, the base URL of its persistent URLs (settings and the request, at the edge)."""

    name: str
    namespace: str
    publisher: str
    base_url: str


def available() -> tuple[date | None, date | None]:
    """(first, last) month rolled up, or (None, None)."""
    months = UsageMonth.objects.order_by("month").values_list("month", flat=True)
    return months.first(), months.last()


def _institution(asked: cop.Request, customer_name: str) -> str:
    return "The World" if asked.customer_id == cop.GLOBAL_CUSTOMER else customer_name


def _scope(asked: cop.Request) -> dict:
    found: dict = {"month__gte": asked.begin, "month__lte": asked.end}
    if asked.data_types:
        found["data_type__in"] = asked.data_types
    if asked.access_types:
        found["access_type__in"] = [_ACCESS[a] for a in asked.access_types]
    return found


def _exceptions(asked: cop.Request, has_usage: bool) -> list[dict]:
    found = list(asked.exceptions)
    if asked.customer_id != cop.GLOBAL_CUSTOMER:
        found.append(cop.exception(0, NOT_ATTRIBUTED))
    if not has_usage and not asked.nothing_ready:
        found.append(cop.exception(3030))
    return found


def _global(asked: cop.Request) -> bool:
    return asked.customer_id == cop.GLOBAL_CUSTOMER and not asked.nothing_ready


def platform_report(asked: cop.Request, platform: Platform, *, customer_name: str,
                    now: datetime) -> dict:
    """The Platform Report (PR, or its Standard View PR_P1) as a JSON object."""
    by_type: dict[str, dict[str, dict[date, int]]] = {}
    item_metrics = [m for m in asked.metrics if m in _COLUMNS]
    if _global(asked) and item_metrics:
        columns = [_COLUMNS[m] for m in item_metrics]
        # Each item once: in its owning collection's rows, not again where it is mapped.
        rows = (MonthlyCollectionUsage.objects.filter(**_scope(asked), mapped=False).order_by()
                .values_list("data_type", "month").annotate(*(Sum(c) for c in columns)))
        for data_type, month, *values in rows:
            metrics = by_type.setdefault(data_type, {})
            for metric, value in zip(item_metrics, values, strict=True):
                metrics.setdefault(metric, {})[month] = value or 0
    if _global(asked) and cop.SEARCHES in asked.metrics \
            and (not asked.data_types or cop.PLATFORM in asked.data_types):
        by_type[cop.PLATFORM] = {cop.SEARCHES: searches(asked.begin, asked.end)}
    performances = []
    for data_type in sorted(by_type):
        performance = {metric: cop.counts(by_type[data_type].get(metric, {}),
                                          asked.granularity, asked.begin)
                       for metric in asked.metrics}
        performance = {k: v for k, v in performance.items() if v}
        if not performance:
            continue
        entry = {"Data_Type": data_type}
        if "Access_Method" in asked.attributes:
            entry["Access_Method"] = "Regular"
        performances.append({**entry, "Performance": performance})
    items = [{"Platform": platform.name, "Attribute_Performance": performances}] \
        if performances else []
    return {"Report_Header": cop.header(
                asked, institution=_institution(asked, customer_name),
                namespace=platform.namespace, created_by=platform.name, now=now,
                exceptions=_exceptions(asked, bool(items))),
            "Report_Items": items}


def searches(begin: date, end: date) -> dict[date, int]:
    """{month: Searches_Platform} of the months from begin's to end's (a day's row each)."""
    found: dict[date, int] = {}
    for day, n in DailySearchCount.objects.filter(
            day__gte=begin, day__lte=cop.last_day(end)).values_list("day", "n"):
        month = day.replace(day=1)
        found[month] = found.get(month, 0) + n
    return found


# An item's months and each metric's values for them, as comma-separated text built by the
# database (a million items are twelve million rows: too many for Python to touch one by one
# within the minute; it reads a million groups instead). Every aggregate of a group reads its
# rows in one same order, so the n-th value is the n-th month's whatever that order is; it is
# the index's, month after month, as the plans go (an ORDER BY inside string_agg would cost
# PostgreSQL 15 a sort per group: a third of the report's time). A date's text is ISO's
# (PostgreSQL's DateStyle default, which Django's dates need too): cheaper than to_char.
_MONTHS = {"sqlite": "group_concat(substr(u.month, 1, 7))",
           "postgresql": "string_agg(left(u.month::text, 7), ',')"}
_VALUES = {"sqlite": "group_concat(u.{c})",
           "postgresql": "string_agg(u.{c}::text, ',')"}


def _item_groups(asked: cop.Request) -> Iterator[tuple]:
    """(item id, Access_Type, Data_Type, YOP, its months, then per metric asked its values
    for them, ibi, title) as the database's text, in item order, through a server-side cursor: the
    (item, access_type, month) index read in order, grouped as it is read, no sort."""
    table, items = MonthlyItemUsage._meta.db_table, Item._meta.db_table
    vendor = connection.vendor if connection.vendor in _MONTHS else "postgresql"
    # SQLite: "+" keeps the month range off the (month, requests) index, so the rows are read
    # down the (item, access_type, month) one, grouped as they come.
    month = "+u.month" if connection.vendor == "sqlite" else "u.month"
    where, params = [f"{month} >= %s", f"{month} <= %s"], [
        connection.ops.adapt_datefield_value(asked.begin),
        connection.ops.adapt_datefield_value(asked.end)]
    if asked.data_types:
        where.append(f"u.data_type IN ({', '.join(['%s'] * len(asked.data_types))})")
        params += list(asked.data_types)
    if asked.access_types:
        where.append(f"u.access_type IN ({', '.join(['%s'] * len(asked.access_types))})")
        params += [_ACCESS[a] for a in asked.access_types]
    if asked.yops:
        where.append("(" + " OR ".join(["u.yop BETWEEN %s AND %s"] * len(asked.yops)) + ")")
        params += [f"{year:04d}" for pair in asked.yops for year in pair]
    if asked.item_id:  # "namespace:ibi", as the report names it, or the bare IBI
        where.append(f"u.item_id = (SELECT id FROM {items} WHERE ibi = %s)")
        params.append(asked.item_id.split(":", 1)[-1])
    columns = ", ".join(_VALUES[vendor].format(c=_COLUMNS[m]) for m in asked.metrics)
    # One pass down the index, each row's item looked up by its key, the groups coming out
    # in index order: no sort (SQLite would sort the whole report before its first row).
    # CROSS JOIN: SQLite keeps the usage rows outside, in their order. PostgreSQL groups by
    # the item's key too (its title and IBI depend on it) and plans its own way.
    group = "u.item_id, u.access_type" + (", i.id" if vendor == "postgresql" else "")
    sql = (f"SELECT u.item_id, u.access_type, MAX(u.data_type), MAX(u.yop),"
           f" {_MONTHS[vendor]}, {columns}, i.ibi, i.title"
           f" FROM {table} u CROSS JOIN {items} i"
           f" WHERE i.id = u.item_id AND {' AND '.join(where)}"
           f" GROUP BY {group} ORDER BY u.item_id, u.access_type")
    with connection.chunked_cursor() as cursor:
        cursor.execute(sql, params)
        while True:
            rows = cursor.fetchmany(2000)
            if not rows:
                return
            yield from rows


def has_item_usage(asked: cop.Request) -> bool:
    return _global(asked) and MonthlyItemUsage.objects.filter(**_scope(asked)).exists()


def item_report(asked: cop.Request, platform: Platform, *, customer_name: str,
                now: datetime) -> Iterator[str]:
    """The Item Report (IR, or its Standard View IR_A1) as JSON text, in pieces."""
    has_usage = has_item_usage(asked)
    head = cop.header(asked, institution=_institution(asked, customer_name),
                      namespace=platform.namespace, created_by=platform.name, now=now,
                      exceptions=_exceptions(asked, has_usage))
    yield '{"Report_Header": ' + json.dumps(head, ensure_ascii=False) + ', "Report_Items": ['
    if has_usage:
        yield from _items(asked, platform)
    yield "]}"


def _counts(months: list[str], values: str) -> dict[str, int]:
    """A metric's months with usage, from the database's text of its values.

    >>> _counts(["2025-01", "2025-02", "2025-03"], "2,0,1")
    {'2025-01': 2, '2025-03': 1}
    """
    return {m: int(v) for m, v in zip(months, values.split(","), strict=True) if v != "0"}


def _items(asked: cop.Request, platform: Platform) -> Iterator[str]:
    """Each item's IR_No_Parent_Item, comma-led after the first, in batches of text."""
    a1 = asked.report.id == "IR_A1"
    show_yop = "YOP" in asked.attributes
    show_access = "Access_Type" in asked.attributes or a1
    method = '"Access_Method": "Regular", ' if "Access_Method" in asked.attributes else ""
    metrics = [f'"{m}": {{' for m in asked.metrics]
    count = len(metrics)
    tail = (f', "Platform": {json.dumps(platform.name, ensure_ascii=False)}'
            f', "Publisher": {json.dumps(platform.publisher, ensure_ascii=False)}'
            ', "Attribute_Performance": [')
    base = platform.base_url.rstrip("/")
    namespace = platform.namespace
    # A string's JSON as json.dumps(…, ensure_ascii=False) writes it, without the encoder
    # that dumps builds anew at each call with such an argument (three strings an item).
    string = json.encoder.encode_basestring
    total = asked.granularity == "Total"
    first_key = asked.begin.strftime("%Y-%m")
    access_names = cop.ACCESS_TYPES

    def performance(by_metric: list[dict[str, int]]) -> str:
        parts = []
        for name, months in zip(metrics, by_metric, strict=True):
            if months:
                if total:
                    months = {first_key: sum(months.values())}
                parts.append(name + ", ".join(f'"{m}": {n}' for m, n in months.items()) + "}")
        return ", ".join(parts)

    def attribute(data_type: str, year: str, access: str | None) -> str:
        found = "" if a1 else f'"Data_Type": "{data_type}", '
        if show_yop:
            found += f'"YOP": "{year}", '
        if access is not None:
            found += f'"Access_Type": "{access_names[access]}", '
        return "{" + found

    month_keys: dict[str, list[str]] = {}  # a row's months' text → their JSON keys
    out: list[str] = []
    first = True

    def item_text(rows: list[tuple], components: str = "") -> str:
        head = rows[0]
        performances = []
        if total or (not show_access and len(rows) > 1):  # sums: through dictionaries
            groups = []
            for row in rows:
                months = row[4].split(",")
                groups.append((row, [_counts(months, v) for v in row[5:5 + count]]))
            if not show_access and len(groups) > 1:  # one item's Open and Controlled rows
                summed: list[dict[str, int]] = [{} for _ in range(count)]
                for _row, by_metric in groups:
                    for kept, months in zip(summed, by_metric, strict=True):
                        for month, n in months.items():
                            kept[month] = kept.get(month, 0) + n
                groups = [(head, [dict(sorted(m.items())) for m in summed])]
            for row, by_metric in groups:
                done = performance(by_metric)
                if done:
                    performances.append(attribute(row[2], row[3], row[1] if show_access
                                                  else None)
                                        + method + '"Performance": {' + done + "}}")
        else:  # the common case: each row's months as they come, straight into text
            for row in rows:
                months = month_keys.get(row[4])
                if months is None:  # most items have the same months: their keys made once
                    months = [f'"{m}": ' for m in row[4].split(",")]
                    if len(month_keys) < 1024:
                        month_keys[row[4]] = months
                parts = []
                for name, values in zip(metrics, row[5:5 + count], strict=True):
                    kept = [m + v for m, v in zip(months, values.split(","), strict=True)
                            if v != "0"]
                    if kept:
                        parts.append(name + ", ".join(kept) + "}")
                if parts:
                    performances.append(attribute(row[2], row[3], row[1] if show_access
                                                  else None)
                                        + method + '"Performance": {' + ", ".join(parts)
                                        + "}}")
        if not performances:
            return ""
        return ('{"Items": [{"Item": ' + string(head[-1])
                + ', "Item_ID": {"Proprietary": '
                + string(f"{namespace}:{head[-2]}")
                + ', "URI": ' + string(f"{base}/{head[-2]}") + "}"
                + tail + ", ".join(performances)
                + "]" + components + "}]}")

    def with_components(batch: list[list[tuple]]) -> Iterator[str]:
        """The items' texts with their files as components (one query for the batch)."""
        found = _components(asked, platform, {rows[0][0]: rows for rows in batch})
        for rows in batch:
            yield item_text(rows, found.get(rows[0][0], ""))

    # Each item's rows (they come ordered by item), its text made as they come; with
    # components, 500 items at a time (their files read in one query).
    groups = (list(rows) for _item, rows in groupby(_item_groups(asked), key=itemgetter(0)))
    if asked.components:
        found = (text for batch in iter(lambda: list(islice(groups, 500)), [])
                 for text in with_components(batch))
    else:
        found = (item_text(rows) for rows in groups)
    for text in found:
        if text:
            out.append(text if first else ", " + text)
            first = False
            if len(out) >= 500:
                yield "".join(out)
                out = []
    if out:
        yield "".join(out)


# A component's metrics: its downloads are its requests, and each is an investigation too.
COMPONENT_METRICS = ("Total_Item_Investigations", "Total_Item_Requests")


def _components(asked: cop.Request, platform: Platform, items: dict[int, list[tuple]]
                ) -> dict[int, str]:
    """{item id: ', "Components": [...]'} of the items whose files were downloaded in the
    months asked (of the Access_Types asked): each file an IR_Component_Item with the item's
    Data_Type, its downloads as both metrics asked of Total_Item_Investigations and
    Total_Item_Requests."""
    metrics = [m for m in COMPONENT_METRICS if m in asked.metrics]
    if not metrics:
        return {}
    rows = MonthlyFileUsage.objects.filter(item_id__in=list(items), month__gte=asked.begin,
                                           month__lte=asked.end)
    if asked.access_types:
        rows = rows.filter(access_type__in=[_ACCESS[a] for a in asked.access_types])
    files: dict[int, dict[str, dict[date, int]]] = {}
    for item_id, name, month, n in (rows.order_by().values_list("item_id", "name", "month")
                                    .annotate(n=Sum("requests"))):
        by_month = files.setdefault(item_id, {}).setdefault(name, {})
        by_month[month] = by_month.get(month, 0) + n
    base = platform.base_url.rstrip("/")
    found = {}
    for item_id, by_name in files.items():
        head = items[item_id][0]
        ibi, data_type = head[-2], head[2]
        components = []
        for name in sorted(by_name):
            counts = cop.counts(by_name[name], asked.granularity, asked.begin)
            if not counts:
                continue
            components.append({
                "Item": name,
                "Item_ID": {"Proprietary": f"{platform.namespace}:{ibi}/{name}",
                            "URI": f"{base}/{ibi}/{quote(name)}"},
                "Attribute_Performance": [{"Data_Type": data_type,
                                           "Performance": dict.fromkeys(metrics, counts)}]})
        if components:
            found[item_id] = ', "Components": ' + json.dumps(components, ensure_ascii=False)
    return found
