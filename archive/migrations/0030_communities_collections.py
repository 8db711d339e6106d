"""Communities and collections (issue 34): the tree, an item's owning collection and the others it
is mapped into, and the index a collection's page reads newest first.

The item's column is added by literal SQL, which both SQLite and PostgreSQL read (as 0027
does): Django's way back (RemoveField) would rebuild the table on SQLite and break the search
and change-token triggers of 0007 and 0012. NULL until 0031 has given every item its
collection; 0032 makes it required."""

import django.core.validators
import django.db.models.deletion
from django.db import migrations, models


def add_collection_column(apps, schema_editor):
    constraint = ("CONSTRAINT archive_item_collection_id_fk "
                  if schema_editor.connection.vendor == "postgresql" else "")
    schema_editor.execute(
        f"ALTER TABLE archive_item ADD COLUMN collection_id bigint NULL {constraint}"
        "REFERENCES archive_collection (id) DEFERRABLE INITIALLY DEFERRED")
    schema_editor.execute("CREATE INDEX archive_item_collection_id ON archive_item (collection_id)")


def drop_collection_column(apps, schema_editor):
    schema_editor.execute("DROP INDEX IF EXISTS archive_item_collection_id")
    schema_editor.execute("ALTER TABLE archive_item DROP COLUMN collection_id")


class Migration(migrations.Migration):

    dependencies = [
        ('archive', '0029_metadata_value_field_required'),
    ]

    operations = [
        migrations.CreateModel(
            name='Collection',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('slug', models.SlugField(help_text='its stable path and OAI-PMH set; never reused', max_length=100, unique=True, verbose_name='slug')),
                ('name_pt_br', models.CharField(max_length=200, verbose_name='name in Portuguese')),
                ('name_en', models.CharField(max_length=200, verbose_name='name in English')),
                ('description', models.CharField(blank=True, default='', max_length=1000, verbose_name='short description')),
                ('logo', models.FileField(blank=True, default='', upload_to='logos/', validators=[django.core.validators.FileExtensionValidator(['png', 'jpg', 'jpeg', 'svg', 'webp', 'gif'])], verbose_name='logo')),
                ('default_access_rights', models.CharField(choices=[('open', 'open'), ('embargoed', 'embargoed'), ('restricted', 'restricted'), ('metadata-only', 'metadata only')], default='open', help_text='what a deposit here gets when it names no access level', max_length=16, verbose_name='default access')),
                ('default_embargo_days', models.PositiveIntegerField(default=0, help_text='with the default access embargoed: the days a deposit stays closed', validators=[django.core.validators.MaxValueValidator(36500)], verbose_name='default embargo (days)')),
            ],
            options={
                'verbose_name': 'collection',
                'verbose_name_plural': 'collections',
                'ordering': ['name_pt_br', 'id'],
            },
        ),
        migrations.CreateModel(
            name='Community',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('slug', models.SlugField(help_text='its stable path and OAI-PMH set; never reused', max_length=100, unique=True, verbose_name='slug')),
                ('name_pt_br', models.CharField(max_length=200, verbose_name='name in Portuguese')),
                ('name_en', models.CharField(max_length=200, verbose_name='name in English')),
                ('description', models.CharField(blank=True, default='', max_length=1000, verbose_name='short description')),
                ('logo', models.FileField(blank=True, default='', upload_to='logos/', validators=[django.core.validators.FileExtensionValidator(['png', 'jpg', 'jpeg', 'svg', 'webp', 'gif'])], verbose_name='logo')),
            ],
            options={
                'verbose_name': 'community',
                'verbose_name_plural': 'communities',
                'ordering': ['name_pt_br', 'id'],
            },
        ),
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunPython(add_collection_column, drop_collection_column),
            ],
            state_operations=[
                migrations.AddField(
                    model_name='item',
                    name='collection',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='items', to='archive.collection', verbose_name='collection'),
                ),
            ],
        ),
        migrations.AddField(
            model_name='item',
            name='mapped_collections',
            field=models.ManyToManyField(blank=True, related_name='mapped_items', to='archive.collection', verbose_name='also in the collections'),
        ),
        migrations.AddIndex(
            model_name='item',
            index=models.Index(models.F('collection'), models.OrderBy(models.F('created'), descending=True), models.OrderBy(models.F('id'), descending=True), condition=models.Q(('is_archive_service', False), models.Q(('state', 'Deleted'), _negated=True)), name='item_collection_newest'),
        ),
        migrations.AddField(
            model_name='community',
            name='parent',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='children', to='archive.community', verbose_name='parent community'),
        ),
        migrations.AddField(
            model_name='collection',
            name='community',
            field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='collections', to='archive.community', verbose_name='community'),
        ),
    ]
