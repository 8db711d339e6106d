"""The thesis facets' index (issue 34): an advisor's or a programme's items found by value.

The site's search narrows by a thesis's dc.contributor.advisor and dc.publisher.program
(archive/search/selectors.py THESIS_FACETS), whose values are of the simple Dublin Core
elements contributor and publisher: this partial index holds those values, as 0007's
dcvalue_facet_value holds the creators', subjects' (dc.subject.cnpq's too) and types'. A hash,
as there: a btree refuses values over 2 704 bytes. A degree level has a handful of values, each
common: its items are found newest first through the item's own index, with no index of its
own. Literal SQL: history."""
from django.db import migrations

NAME = "dcvalue_thesis_facet_value"
PREDICATE = "WHERE element IN ('contributor', 'publisher')"


def install(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        sql = (f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {NAME} ON archive_dcvalue "
               f"USING hash (value) {PREDICATE}")
    else:
        sql = f"CREATE INDEX IF NOT EXISTS {NAME} ON archive_dcvalue (value) {PREDICATE}"
    schema_editor.execute(sql, params=None)


def uninstall(apps, schema_editor):
    schema_editor.execute(f"DROP INDEX IF EXISTS {NAME}", params=None)


class Migration(migrations.Migration):
    # CREATE INDEX CONCURRENTLY cannot run inside a transaction: writes go on meanwhile.
    atomic = False
    dependencies = [("archive", "0033_registry_oaire_citation")]
    operations = [migrations.RunPython(install, uninstall)]
