"""The admin's search by a whole identifier (archive/search/lookup.py): a DOI in any spelling
and case finds its item through this index of dc:identifier values in lower case, not by
reading every value. A hash on PostgreSQL (a btree refuses values over 2 704 bytes, and an
identifier names one item, so its chain is short); SQLite keeps a btree. Literal SQL: history."""
from django.db import migrations

NAME = "dcvalue_identifier_lower"


def install(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        sql = (f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {NAME} ON archive_dcvalue "
               "USING hash (lower(value)) WHERE element = 'identifier'")
    else:
        sql = (f"CREATE INDEX IF NOT EXISTS {NAME} ON archive_dcvalue (lower(value)) "
               "WHERE element = 'identifier'")
    schema_editor.execute(sql, params=None)


def uninstall(apps, schema_editor):
    concurrently = "CONCURRENTLY " if schema_editor.connection.vendor == "postgresql" else ""
    schema_editor.execute(f"DROP INDEX {concurrently}IF EXISTS {NAME}", params=None)


class Migration(migrations.Migration):
    # CREATE INDEX CONCURRENTLY cannot run inside a transaction: writes go on meanwhile.
    atomic = False
    dependencies = [("archive", "0039_thesis_facet_index_by_field")]

    operations = [migrations.RunPython(install, uninstall)]
