"""The thesis facets' index (0034) narrowed to the two fields the facets read by value
(issue 34, performance): dc.contributor.advisor and dc.publisher.program, named by their ids
in the registry, instead of every contributor's and publisher's value.

0034's hash index held every value of the elements contributor and publisher: with them the
institution (dc.publisher), its acronym and country (dc.publisher.initials, .country), which
a thesis profile gives every thesis, so one value stood for nearly every item. A PostgreSQL
hash index keeps equal values in one bucket's chain of overflow pages, and an insert walks
that chain to its last page: building the index over a million theses stalled at a few
thousand rows a second after half an hour (bench/README.md, thesis_scale.py), and every new
thesis's "Brasil" read its whole chain. An advisor's value stands for some hundreds of items,
a programme's for some thousands: short chains.

The facets ask `field_id = <the field's id> AND element = … AND value = …`
(archive/search/selectors.py `_has_thesis_value`), which implies this predicate: the planner
uses the index as it used 0034's. A registry whose fields were seeded again under other ids
(a test's flushed database) leaves the index unused, never wrong. SQLite keeps 0034's btree,
which has no chains. Literal SQL: history."""
from django.db import migrations

OLD = "dcvalue_thesis_facet_value"
NAME = "dcvalue_thesis_facet_field_value"
FIELDS = (("dc", "contributor", "advisor"), ("dc", "publisher", "program"))


def install(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    MetadataField = apps.get_model("archive", "MetadataField")
    ids = sorted(MetadataField.objects.filter(
        schema__name=schema, element=element, qualifier=qualifier).values_list("pk", flat=True)
        .first() or 0 for schema, element, qualifier in FIELDS)
    ids = [pk for pk in ids if pk]
    if not ids:  # no such field: nothing has its values, and 0034's index stays
        return
    schema_editor.execute(
        f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {NAME} ON archive_dcvalue USING hash (value) "
        f"WHERE field_id IN ({', '.join(str(int(pk)) for pk in ids)})", params=None)
    schema_editor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {OLD}", params=None)


def uninstall(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(
        f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {OLD} ON archive_dcvalue USING hash (value) "
        "WHERE element IN ('contributor', 'publisher')", params=None)
    schema_editor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {NAME}", params=None)


class Migration(migrations.Migration):
    # CREATE INDEX CONCURRENTLY cannot run inside a transaction: writes go on meanwhile.
    atomic = False
    dependencies = [("archive", "0038_review_workflow")]

    operations = [migrations.RunPython(install, uninstall)]
