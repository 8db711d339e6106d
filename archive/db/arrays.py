"""`among`: a column among many ids, as one parameter on PostgreSQL.

A harvest page or a search's facets read the rows of a thousand items: `IN (%s, %s, …)` with a
thousand placeholders costs psycopg about 50 ms of CPU to split and send the query (its cache
of converted queries keeps none that long), and PostgreSQL more to plan; `= ANY(%s)` with one
array is one placeholder whatever the number. SQLite has no arrays: IN there.
"""
from __future__ import annotations

from collections.abc import Sequence

from django.db import connection
from django.db.models import BooleanField, Model, Q
from django.db.models.expressions import RawSQL


def among(model: type[Model], column: str, ids: Sequence[int]) -> Q | RawSQL:
    """A filter: model.column (an integer column) is one of `ids`."""
    if connection.vendor != "postgresql":
        return Q(**{f"{column}__in": list(ids)})
    table = connection.ops.quote_name(model._meta.db_table)
    return RawSQL(f"{table}.{connection.ops.quote_name(column)} = ANY(%s::bigint[])",
                  [list(ids)], output_field=BooleanField())
