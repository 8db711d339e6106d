"""`among(model, column, ids)`: a condition "model.column is one of ids" for a page's worth of
ids (a thousand OAI-PMH records). On PostgreSQL `= ANY(%s::bigint[])`, one parameter: a
thousand placeholders of `IN` cost psycopg 10-20 ms to split and send per query, and an
OAI-PMH page of `dim` asks five such queries (bench/README.md, thesis_scale.py). `IN`
elsewhere."""
from __future__ import annotations

from collections.abc import Collection

from django.db import connection
from django.db.models import BooleanField, Model, Q
from django.db.models.expressions import RawSQL


def among(model: type[Model], column: str, ids: Collection[int]) -> Q | RawSQL:
    if connection.vendor != "postgresql":
        return Q(**{f"{column}__in": ids})
    table = connection.ops.quote_name(model._meta.db_table)
    return RawSQL(f"{table}.{connection.ops.quote_name(column)} = ANY(%s::bigint[])",
                  [list(ids)], output_field=BooleanField())
