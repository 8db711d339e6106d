"""A lossless DSpace round trip (issue 34, 6): a file's bundle (ORIGINAL, TEXT, THUMBNAIL,
LICENSE) and a collection's DSpace Handle; and the community or collection an
Idempotency-Key's write made (POST /api/communities/, /api/collections/).

Literal SQL, which both SQLite and PostgreSQL read (as 0014 does): Django's AddField of a
column with a default rebuilds the whole table on SQLite, dropping the triggers of 0007 and
0012 on archive_itemfile. A Handle names one collection at most; "" (none) any number."""
import django.db.models.deletion
from django.db import migrations, models

COLUMNS = [
    ("archive_itemfile", "bundle", "varchar(16) DEFAULT 'ORIGINAL' NOT NULL"),
    ("archive_collection", "handle", "varchar(255) DEFAULT '' NOT NULL"),
]


class Migration(migrations.Migration):

    dependencies = [
        ('archive', '0034_thesis_facets'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                *(migrations.RunSQL(f"ALTER TABLE {table} ADD COLUMN {column} {definition}",
                                    f"ALTER TABLE {table} DROP COLUMN {column}")
                  for table, column, definition in COLUMNS),
                migrations.RunSQL(
                    "CREATE UNIQUE INDEX one_collection_per_handle ON archive_collection "
                    "(handle) WHERE NOT (handle = '')",
                    "DROP INDEX one_collection_per_handle"),
            ],
            state_operations=[
                migrations.AddField(
                    model_name='itemfile',
                    name='bundle',
                    field=models.CharField(choices=[('ORIGINAL', "original (the work's files)"), ('TEXT', 'extracted text'), ('THUMBNAIL', 'thumbnail'), ('LICENSE', 'deposit licence')], db_default='ORIGINAL', default='ORIGINAL', max_length=16, verbose_name='bundle'),
                ),
                migrations.AddField(
                    model_name='collection',
                    name='handle',
                    field=models.CharField(blank=True, db_default='', default='', help_text='the Handle this collection had in DSpace (prefix/suffix), if it came from there: imports find it by it, exports write it back', max_length=255, verbose_name='DSpace Handle'),
                ),
                migrations.AlterModelOptions(
                    name='itemfile',
                    options={'default_manager_name': 'objects', 'ordering': ['name'], 'verbose_name': 'item file', 'verbose_name_plural': 'item files'},
                ),
                migrations.AddConstraint(
                    model_name='collection',
                    constraint=models.UniqueConstraint(condition=models.Q(('handle', ''), _negated=True), fields=('handle',), name='one_collection_per_handle', violation_error_message='handle: another collection has this DSpace Handle'),
                ),
            ],
        ),
        # Nullable columns of a table without triggers: ALTER TABLE … ADD COLUMN on both.
        migrations.AddField(
            model_name='idempotencykey',
            name='collection',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='archive.collection', verbose_name='collection'),
        ),
        migrations.AddField(
            model_name='idempotencykey',
            name='community',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='archive.community', verbose_name='community'),
        ),
    ]
