"""The facets by programme and advisor read from an index alone (issue 34, performance).

0039's hash index found a programme's ~2 500 values, but every one of them was then read
from the table (a hash index holds no values, only their rows' addresses), each on a page
of its own: ~2 500 pages of a 4 GB table for each new programme, most of a search's time
at a million theses (bench/README.md, thesis_scale.py). This btree holds the field, the value
and the item: the facets' query (archive/search/selectors.py `_has_thesis_value`) is
answered by an index-only scan of a few dozen of its pages.

A btree refuses an entry over 2 704 bytes, so it holds the values of at most 2 000 bytes
(UTF-8) and the query says so (`octet_length(value) <= 2000`, which implies this index's
predicate); a longer value, which no real name or programme has, is found by a hash index
of those alone (normally empty). Both are PostgreSQL's; SQLite keeps 0034's btree. The
fields are named by their ids in the registry, as in 0039. Literal SQL: history."""
from django.db import migrations

OLD = "dcvalue_thesis_facet_field_value"  # 0039's
NAME = "dcvalue_thesis_facet_item"
LONG = "dcvalue_thesis_facet_long_value"
FIELDS = (("dc", "contributor", "advisor"), ("dc", "publisher", "program"))
INDEXED_BYTES = 2000  # archive/search/selectors.py THESIS_INDEXED_BYTES


def _ids(apps) -> str:
    MetadataField = apps.get_model("archive", "MetadataField")
    ids = sorted(MetadataField.objects.filter(
        schema__name=schema, element=element, qualifier=qualifier).values_list("pk", flat=True)
        .first() or 0 for schema, element, qualifier in FIELDS)
    return ", ".join(str(int(pk)) for pk in ids if pk)


def install(apps, schema_editor):
    ids = _ids(apps)
    if schema_editor.connection.vendor != "postgresql" or not ids:
        return  # no such field: nothing has its values, and the older index stays
    schema_editor.execute(
        f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {NAME} ON archive_dcvalue "
        f"(field_id, value, item_id) WHERE field_id IN ({ids}) "
        f"AND octet_length(value) <= {INDEXED_BYTES}", params=None)
    schema_editor.execute(
        f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {LONG} ON archive_dcvalue USING hash (value) "
        f"WHERE field_id IN ({ids}) AND octet_length(value) > {INDEXED_BYTES}", params=None)
    schema_editor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {OLD}", params=None)


def uninstall(apps, schema_editor):
    ids = _ids(apps)
    if schema_editor.connection.vendor != "postgresql" or not ids:
        return
    schema_editor.execute(
        f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {OLD} ON archive_dcvalue USING hash (value) "
        f"WHERE field_id IN ({ids})", params=None)
    schema_editor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {NAME}", params=None)
    schema_editor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {LONG}", params=None)


class Migration(migrations.Migration):
    # CREATE INDEX CONCURRENTLY cannot run inside a transaction: writes go on meanwhile.
    atomic = False
    dependencies = [("archive", "0059_component_usage")]

    operations = [migrations.RunPython(install, uninstall)]
