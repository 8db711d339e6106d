"""A rebuild of the search entries (`manage.py reindex`, a trigger re-run) writes only the
entries that change: rewriting an unchanged one left a dead row behind, and a full reindex
after a load doubled the table that a common word's search reads.
"""
from django.db import migrations

from archive.search import schema


def install(apps, schema_editor):
    schema.install(schema_editor, index_all=False)


class Migration(migrations.Migration):

    dependencies = [
        ("archive", "0009_oai_keyset"),
    ]

    operations = [
        migrations.RunPython(install, migrations.RunPython.noop, elidable=True),
    ]
