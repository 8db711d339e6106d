"""A rebuild of the search entries (`manage.py reindex`, a trigger re-run) writes only the
entries that change: rewriting an unchanged one left a dead row behind, and a full reindex
after a load doubled the table that a common word's search reads.

Literal SQL (history): the PostgreSQL function as it is since this migration. 0007 creates the
same text on a new database; this one replaces the older one of a database migrated before.
SQLite's triggers did not change.
"""
from django.db import migrations

REFRESH = """CREATE OR REPLACE FUNCTION archive_search_refresh(ids bigint[]) RETURNS void
       LANGUAGE sql AS $$
       INSERT INTO archive_itemsearch AS s (item_id, listed, document, text)
       SELECT i.id, NOT i.is_archive_service AND i.state <> 'Deleted',
              setweight(archive_search_words(c.config, i.title), 'A')
              || CASE WHEN i.state = 'Deleted' THEN ''::tsvector ELSE
                   setweight(archive_search_words(c.config, d.creators), 'B')
                   || setweight(archive_search_words(c.config, d.subjects), 'C')
                   || setweight(archive_search_words(c.config, d.others), 'D') END,
              ''
       FROM archive_item i
       CROSS JOIN LATERAL (SELECT archive_search_config(i.language) AS config) c
       CROSS JOIN LATERAL (
         SELECT string_agg(v.value, ' ' ORDER BY v.position, v.id)
                  FILTER (WHERE v.element = 'creator') AS creators,
                string_agg(v.value, ' ' ORDER BY v.position, v.id)
                  FILTER (WHERE v.element = 'subject') AS subjects,
                string_agg(v.value, ' ' ORDER BY v.element = 'description' DESC, v.element,
                           v.position, v.id)
                  FILTER (WHERE v.element NOT IN ('creator', 'subject')) AS others
         FROM archive_dcvalue v WHERE v.item_id = i.id) d
       WHERE i.id = ANY(ids)
       ON CONFLICT (item_id) DO UPDATE SET listed = EXCLUDED.listed,
                                           document = EXCLUDED.document
       -- An entry that would not change is not written: a rebuild leaves no dead rows.
       WHERE s.listed IS DISTINCT FROM EXCLUDED.listed
             OR s.document IS DISTINCT FROM EXCLUDED.document
       $$"""


def install(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(REFRESH, params=None)


class Migration(migrations.Migration):

    dependencies = [
        ("archive", "0009_oai_keyset"),
    ]

    operations = [
        migrations.RunPython(install, migrations.RunPython.noop, elidable=True),
    ]
