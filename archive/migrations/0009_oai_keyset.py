"""OAI-PMH's keyset pages (issue 12, item 3): an index on (updated, id) of the public items.

A page is `(updated, id) > (last served) ORDER BY updated, id LIMIT n`
(archive/harvest/selectors.py `page`). The index on `updated` alone serves it only while
datestamps are nearly unique: items sharing one datestamp (a collection loaded by COPY in one
go) would be sorted again on every page, so a page would cost in proportion to the ties. On
this index the comparison is one index range, in order, whatever the depth and the ties.

On PostgreSQL the index is built CONCURRENTLY: writes to the items go on meanwhile, so this
migration is not atomic.
"""
from django.db import migrations, models


class AddIndexConcurrently(migrations.AddIndex):
    """AddIndex, built CONCURRENTLY on PostgreSQL: writes to the table go on meanwhile."""

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        model = to_state.apps.get_model(app_label, self.model_name)
        if not self.allow_migrate_model(schema_editor.connection.alias, model):
            return
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.add_index(model, self.index, concurrently=True)
        else:
            schema_editor.add_index(model, self.index)


class Migration(migrations.Migration):

    atomic = False

    dependencies = [
        ("archive", "0008_daily_access_counts"),
    ]

    operations = [
        AddIndexConcurrently(
            model_name="item",
            index=models.Index(condition=models.Q(("is_archive_service", False)),
                               fields=["updated", "id"], name="item_oai_keyset"),
        ),
    ]
