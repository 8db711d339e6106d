# Full-text search (issue #12): archive_itemsearch, kept current by the database's own
# triggers (archive/search/schema.py), and the indexes of the newest-first listings.

import django.db.models.deletion
from django.db import migrations, models

import archive.models
from archive.search import schema


def install(apps, schema_editor):
    schema.install(schema_editor)


def uninstall(apps, schema_editor):
    schema.uninstall(schema_editor)


class Migration(migrations.Migration):

    dependencies = [
        ('archive', '0006_dcvalue_orcid'),
    ]

    operations = [
        migrations.CreateModel(
            name='ItemSearch',
            fields=[
                ('item', models.OneToOneField(db_constraint=False, on_delete=django.db.models.deletion.DO_NOTHING, primary_key=True, related_name='search_entry', serialize=False, to='archive.item')),
                ('document', archive.models.SearchVectorField(null=True)),
                ('text', models.TextField(db_default='', default='')),
                ('listed', models.BooleanField(db_default=False, default=False)),
            ],
            options={
                'verbose_name': 'search entry',
            },
        ),
        migrations.AddIndex(
            model_name='item',
            index=models.Index(models.OrderBy(models.F('created'), descending=True), models.OrderBy(models.F('id'), descending=True), condition=models.Q(('is_archive_service', False), models.Q(('state', 'Deleted'), _negated=True)), name='item_listed_newest'),
        ),
        migrations.RunPython(install, uninstall, elidable=False),
    ]
