"""Every value names its field (0028 gave each one); the ORCID iD column is gone, kept as the
value's authority.

On PostgreSQL the column becomes NOT NULL. SQLite cannot make a column NOT NULL without
rebuilding the table, which would drop the triggers of 0007 and 0012: there the model (and
every write through it) requires the field. The ORCID column is dropped by literal SQL, which
SQLite (3.35 and later) does without a rebuild."""
import django.db.models.deletion
from django.db import migrations, models


def require_field(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER TABLE archive_dcvalue ALTER COLUMN field_id SET NOT NULL")


def allow_no_field(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER TABLE archive_dcvalue ALTER COLUMN field_id DROP NOT NULL")


class Migration(migrations.Migration):

    dependencies = [
        ('archive', '0028_metadata_registry_seed'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunPython(require_field, allow_no_field),
                migrations.RunSQL(
                    "ALTER TABLE archive_dcvalue DROP COLUMN orcid",
                    "ALTER TABLE archive_dcvalue ADD COLUMN orcid varchar(19) DEFAULT '' NOT NULL"),
            ],
            state_operations=[
                migrations.AlterField(
                    model_name='dcvalue',
                    name='field',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='values', to='archive.metadatafield', verbose_name='field'),
                ),
                migrations.RemoveField(
                    model_name='dcvalue',
                    name='orcid',
                ),
            ],
        ),
    ]
