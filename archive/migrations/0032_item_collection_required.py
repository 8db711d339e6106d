"""Every item has its owning collection (0031 gave each one one).

On PostgreSQL the column becomes NOT NULL. SQLite cannot make a column NOT NULL without
rebuilding the table, which would drop the triggers of 0007 and 0012: there Item.save (every
write through the model) gives an item with none the default collection."""
from django.db import migrations


def require_collection(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER TABLE archive_item ALTER COLUMN collection_id SET NOT NULL")


def allow_no_collection(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER TABLE archive_item ALTER COLUMN collection_id DROP NOT NULL")


class Migration(migrations.Migration):

    dependencies = [
        ('archive', '0031_default_collection'),
    ]

    operations = [
        migrations.RunPython(require_collection, allow_no_collection),
    ]
