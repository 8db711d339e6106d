"""COUNTER R5.1 reports read from the rolled-up months (reads; rollup.py writes them).

The Platform Report sums MonthlyCollectionUsage (a few rows a month, whatever the number of
items) and is built whole. The Item Report is streamed: `item_report` yields the JSON in
pieces while a server-side cursor (`connection.chunked_cursor()`: a named cursor on
PostgreSQL) walks MonthlyItemUsage in item order, so its memory stays flat for a million items
(bench/counter_reports.py). Its Report_Items are one IR_No_Parent_Item per item: a client that
streams them (ijson, as celus-nigiri does) holds one item at a time.

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

from django.db import connection
from django.db.models import Sum

from ..models import Item, MonthlyCollectionUsage, MonthlyItemUsage, UsageMonth
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
    if _global(asked):
        columns = [_COLUMNS[m] for m in asked.metrics]
        rows = (MonthlyCollectionUsage.objects.filter(**_scope(asked)).order_by()
                .values_list("data_type", "month").annotate(*(Sum(c) for c in columns)))
        for data_type, month, *values in rows:
            metrics = by_type.setdefault(data_type, {})
            for metric, value in zip(asked.metrics, values, strict=True):
                metrics.setdefault(metric, {})[month] = value or 0
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


def _item_rows(asked: cop.Request) -> Iterator[tuple]:
    """The month rows of the report, in item order, through a server-side cursor."""
    table, items = MonthlyItemUsage._meta.db_table, Item._meta.db_table
    where, params = ["u.month >= %s", "u.month <= %s"], [
        connection.ops.adapt_datefield_value(asked.begin),
        connection.ops.adapt_datefield_value(asked.end)]
    if asked.data_types:
        where.append(f"u.data_type IN ({', '.join(['%s'] * len(asked.data_types))})")
        params += list(asked.data_types)
    if asked.access_types:
        where.append(f"u.access_type IN ({', '.join(['%s'] * len(asked.access_types))})")
        params += [_ACCESS[a] for a in asked.access_types]
    if asked.item_id:  # "namespace:ibi", as the report names it, or the bare IBI
        where.append("i.ibi = %s")
        params.append(asked.item_id.split(":", 1)[-1])
    sql = (f"SELECT u.item_id, i.ibi, i.title, u.month, u.access_type, u.data_type, u.yop,"
           f" u.total_investigations, u.unique_investigations, u.total_requests,"
           f" u.unique_requests FROM {table} u JOIN {items} i ON i.id = u.item_id"
           f" WHERE {' AND '.join(where)} ORDER BY u.item_id, u.month")
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


def _items(asked: cop.Request, platform: Platform) -> Iterator[str]:
    """Each item's IR_No_Parent_Item, comma-led after the first."""
    metrics = [(m, 7 + list(_COLUMNS).index(m)) for m in asked.metrics]
    a1 = asked.report.id == "IR_A1"
    show_yop = "YOP" in asked.attributes
    show_access = "Access_Type" in asked.attributes or a1
    show_method = "Access_Method" in asked.attributes
    common = (f', "Platform": {json.dumps(platform.name, ensure_ascii=False)}'
              f', "Publisher": {json.dumps(platform.publisher, ensure_ascii=False)}')
    base = platform.base_url.rstrip("/")
    dumps = json.dumps
    total = asked.granularity == "Total"
    first_key = asked.begin.strftime("%Y-%m")
    separator = ""
    yops = asked.yops
    current, head, groups = None, "", {}

    def item_json() -> str:
        performances = []
        for (data_type, year, access), by_metric in groups.items():
            performance = []
            for metric, _column in metrics:
                months = by_metric.get(metric)
                if not months:
                    continue
                if total:
                    months = {first_key: sum(months.values())}
                performance.append(f'"{metric}": {{' + ", ".join(
                    f'"{m}": {n}' for m, n in months.items()) + "}")
            if not performance:
                continue
            attributes = "" if a1 else f'"Data_Type": "{data_type}", '
            if show_yop:
                attributes += f'"YOP": "{year}", '
            if show_access:
                attributes += f'"Access_Type": "{cop.ACCESS_TYPES[access]}", '
            if show_method:
                attributes += '"Access_Method": "Regular", '
            performances.append("{" + attributes + '"Performance": {'
                                + ", ".join(performance) + "}}")
        if not performances:
            return ""
        return head + ', "Attribute_Performance": [' + ", ".join(performances) + "]}]}"

    for row in _item_rows(asked):
        item_id = row[0]
        if item_id != current:
            if current is not None:
                text = item_json()
                if text:
                    yield separator + text
                    separator = ", "
            current, groups = item_id, {}
            head = ('{"Items": [{"Item": ' + dumps(row[2], ensure_ascii=False)
                    + ', "Item_ID": {"Proprietary": '
                    + dumps(f"{platform.namespace}:{row[1]}", ensure_ascii=False)
                    + ', "URI": ' + dumps(f"{base}/{row[1]}", ensure_ascii=False) + "}"
                    + common)
        if yops and not cop.in_yops(row[6], yops):
            continue
        key = (row[5], row[6] if show_yop else "", row[4] if show_access else "open")
        by_metric = groups.get(key)
        if by_metric is None:
            by_metric = groups[key] = {}
        label = str(row[3])[:7]  # "2025-01-01" (SQLite's text, a date's str): "2025-01"
        for metric, column in metrics:
            if row[column]:
                months = by_metric.setdefault(metric, {})
                months[label] = months.get(label, 0) + row[column]
    if current is not None:
        text = item_json()
        if text:
            yield separator + text
