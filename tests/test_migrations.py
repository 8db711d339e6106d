"""Migrations are history: literal SQL, nothing of today's code, and the database objects
they create (triggers, functions, the change token's table) all in place after `migrate`."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection

MIGRATIONS = Path(__file__).resolve().parent.parent / "archive" / "migrations"

pytestmark = pytest.mark.django_db

# The triggers the migrations create (0007: search entries; 0012, 0022 and 0048: the change
# token; 0054: PREMIS events append-only). A later migration that rebuilds one of these
# tables on SQLite drops its triggers, and must create them again.
TRIGGERS = {
    "sqlite": {*(f"{table}_search_{event}" for table in ("archive_item", "archive_dcvalue")
                 for event in ("insert", "update", "delete")),
               *(f"{table}_{event}_changes" for table in (
                   "archive_item", "archive_itemfile", "archive_dcvalue", "archive_itemsearch",
                   "archive_registeredarchive", "archive_identity", "archive_filepage")
                 for event in ("insert", "update", "delete")),
               "archive_filepage_fold_insert", "archive_filepage_fold_update",
               "archive_premisevent_no_update", "archive_premisevent_no_delete"},
    "postgresql": {*(f"{table}_search_{event}" for table in ("archive_item", "archive_dcvalue")
                     for event in ("insert", "update", "delete")),
                   *(f"{table}_{kind}" for table in (
                       "archive_item", "archive_itemfile", "archive_dcvalue",
                       "archive_itemsearch", "archive_registeredarchive", "archive_identity",
                       "archive_filepage")
                     for kind in ("changes", "truncate_changes")),
                   "archive_premisevent_append_only"},
}


def test_no_migration_imports_the_apps_code():
    """Only `archive.models` may be named, for the field classes makemigrations writes."""
    for path in sorted(MIGRATIONS.glob("0*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            for name in names:
                assert not name.startswith("archive") or name == "archive.models", (
                    f"{path.name} imports {name}")


def test_every_trigger_is_in_place_after_migrate():
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
        else:
            cursor.execute("SELECT tgname FROM pg_trigger WHERE NOT tgisinternal")
        found = {row[0] for row in cursor.fetchall()}
    assert TRIGGERS[connection.vendor] <= found
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM archive_changes WHERE id = 1")
        assert cursor.fetchone()[0] == 1


def test_the_models_and_the_migrations_agree():
    call_command("makemigrations", "archive", "--check", "--dry-run", verbosity=0)
