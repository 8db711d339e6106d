"""The metadata registry (issue 34): schemas and their fields, element and qualifier; a value
names its field and gains a language, an authority id and its confidence.

The columns of archive_dcvalue are added by literal SQL, which both SQLite and PostgreSQL read
(as 0014 and 0019 do): Django's AddField would rebuild the table on SQLite and drop the
search and change-token triggers of 0007 and 0012 with it. `field_id` is NULL until 0028 has
given every row its field; 0029 makes it required."""
import django.core.validators
import django.db.models.deletion
from django.db import migrations, models

NAME = django.core.validators.RegexValidator(
    '^[A-Za-z][A-Za-z0-9_-]*\\Z', 'letters, digits, hyphens and underscores only, a letter first')

COLUMNS = [
    ("language", "varchar(35) DEFAULT '' NOT NULL"),
    ("authority", "varchar(255) DEFAULT '' NOT NULL"),
    ("confidence", "smallint DEFAULT -1 NOT NULL"),
]


def add_field_column(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            "ALTER TABLE archive_dcvalue ADD COLUMN field_id bigint NULL "
            "CONSTRAINT archive_dcvalue_field_id_fk REFERENCES archive_metadatafield (id) "
            "DEFERRABLE INITIALLY DEFERRED")
    else:
        schema_editor.execute(
            "ALTER TABLE archive_dcvalue ADD COLUMN field_id bigint NULL "
            "REFERENCES archive_metadatafield (id) DEFERRABLE INITIALLY DEFERRED")
    schema_editor.execute(
        "CREATE INDEX archive_dcvalue_field_id ON archive_dcvalue (field_id)")


def drop_field_column(apps, schema_editor):
    schema_editor.execute("DROP INDEX IF EXISTS archive_dcvalue_field_id")
    schema_editor.execute("ALTER TABLE archive_dcvalue DROP COLUMN field_id")


class Migration(migrations.Migration):

    dependencies = [
        ('archive', '0026_staged_write'),
    ]

    operations = [
        migrations.CreateModel(
            name='MetadataSchema',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(help_text='the prefix of its fields, e.g. dc or local', max_length=32, unique=True, validators=[NAME], verbose_name='short name')),
                ('namespace', models.URLField(max_length=255, unique=True, verbose_name='namespace')),
            ],
            options={
                'verbose_name': 'metadata schema',
                'verbose_name_plural': 'metadata schemas',
                'ordering': ['name'],
            },
        ),
        migrations.CreateModel(
            name='MetadataField',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('schema', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='fields', to='archive.metadataschema', verbose_name='schema')),
                ('element', models.CharField(max_length=64, validators=[NAME], verbose_name='element')),
                ('qualifier', models.CharField(blank=True, default='', max_length=64, validators=[NAME], verbose_name='qualifier')),
                ('scope_note', models.TextField(blank=True, default='', verbose_name='scope note')),
                ('label_en', models.CharField(blank=True, default='', max_length=200, verbose_name='label in English')),
                ('label_pt_br', models.CharField(blank=True, default='', max_length=200, verbose_name='label in Portuguese')),
                ('dc_element', models.CharField(blank=True, default='', help_text='the element of simple Dublin Core its values are given as (oai_dc, search, citations); empty for none', max_length=16, verbose_name='simple Dublin Core element')),
            ],
            options={
                'verbose_name': 'metadata field',
                'verbose_name_plural': 'metadata fields',
                'ordering': ['schema__name', 'element', 'qualifier'],
                'constraints': [models.UniqueConstraint(fields=('schema', 'element', 'qualifier'), name='metadatafield_unique_name')],
            },
        ),
        migrations.AlterModelOptions(
            name='dcvalue',
            options={'ordering': ['element', 'position', 'id'], 'verbose_name': 'metadata value', 'verbose_name_plural': 'metadata values'},
        ),
        # Choices and blank only: no change of the table.
        migrations.AlterField(
            model_name='dcvalue',
            name='element',
            field=models.CharField(blank=True, max_length=16, verbose_name='element'),
        ),
        migrations.SeparateDatabaseAndState(
            database_operations=[
                *(migrations.RunSQL(f"ALTER TABLE archive_dcvalue ADD COLUMN {column} {definition}",
                                    f"ALTER TABLE archive_dcvalue DROP COLUMN {column}")
                  for column, definition in COLUMNS),
                migrations.RunPython(add_field_column, drop_field_column),
            ],
            state_operations=[
                migrations.AddField(
                    model_name='dcvalue',
                    name='language',
                    field=models.CharField(blank=True, db_default='', default='', max_length=35, verbose_name='language'),
                ),
                migrations.AddField(
                    model_name='dcvalue',
                    name='authority',
                    field=models.CharField(blank=True, db_default='', default='', max_length=255, verbose_name='authority'),
                ),
                migrations.AddField(
                    model_name='dcvalue',
                    name='confidence',
                    field=models.SmallIntegerField(choices=[(-1, 'unset'), (0, 'no value'), (100, 'rejected'), (200, 'failed'), (300, 'not found'), (400, 'ambiguous'), (500, 'uncertain'), (600, 'accepted')], db_default=-1, default=-1, verbose_name='confidence'),
                ),
                migrations.AddField(
                    model_name='dcvalue',
                    name='field',
                    field=models.ForeignKey(null=True, on_delete=django.db.models.deletion.PROTECT, related_name='values', to='archive.metadatafield', verbose_name='field'),
                ),
            ],
        ),
    ]
