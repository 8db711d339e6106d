"""Search (issue #29): Portuguese AND English stemming for every item, whatever its language
tag, and the item's own language preferred in the ranking.

PostgreSQL: each field of a document (title A, creators B, subjects C, the rest D) now holds
the Portuguese and the English stems of its words and the plain words, unaccented. The stems
of the item's own language (its tag: `pt…` or `en…`) and the plain words carry the field's
weight; the other language's stems carry D, the lowest, so a word matched only through the
other language's stemming ranks with the matches "anywhere" (the ranking reads the weights:
archive/search/selectors.py). An item tagged with neither language has both stems at the
field's weight.

Entries already in the database keep their documents until `manage.py reindex` rebuilds them
(in short batches, while the site serves; it writes only the entries that change): run it
after this migration. Until then they match as before (their own language's stems, the plain
words) and rank by the same weights.

Literal SQL (history): 0010's refresh function with the field built by the new function;
`archive_search_words` (0007) stays for the migrations before this one. SQLite's triggers do
not change.
"""
from django.db import migrations

FIELD = """CREATE OR REPLACE FUNCTION archive_search_field(config regconfig, body text,
                                                         weight "char")
       RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
       SELECT CASE config
                WHEN 'portuguese'::regconfig
                  THEN setweight(pt || plain, weight) || setweight(en, 'D')
                WHEN 'english'::regconfig
                  THEN setweight(en || plain, weight) || setweight(pt, 'D')
                ELSE setweight(pt || en || plain, weight) END
       FROM (SELECT archive_unaccent(to_tsvector('portuguese', b)::text)::tsvector AS pt,
                    archive_unaccent(to_tsvector('english', b)::text)::tsvector AS en,
                    to_tsvector('simple', archive_unaccent(b)) AS plain
             FROM (SELECT coalesce(body, '') AS b) t) v $$"""

REFRESH = """CREATE OR REPLACE FUNCTION archive_search_refresh(ids bigint[]) RETURNS void
       LANGUAGE sql AS $$
       INSERT INTO archive_itemsearch AS s (item_id, listed, document, text)
       SELECT i.id, NOT i.is_archive_service AND i.state <> 'Deleted',
              archive_search_field(c.config, i.title, 'A')
              || CASE WHEN i.state = 'Deleted' THEN ''::tsvector ELSE
                   archive_search_field(c.config, d.creators, 'B')
                   || archive_search_field(c.config, d.subjects, 'C')
                   || archive_search_field(c.config, d.others, 'D') END,
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

# 0010's function, put back by a reverse migration.
REFRESH_BEFORE = (REFRESH
                  .replace("archive_search_field(c.config, i.title, 'A')",
                           "setweight(archive_search_words(c.config, i.title), 'A')")
                  .replace("archive_search_field(c.config, d.creators, 'B')",
                           "setweight(archive_search_words(c.config, d.creators), 'B')")
                  .replace("archive_search_field(c.config, d.subjects, 'C')",
                           "setweight(archive_search_words(c.config, d.subjects), 'C')")
                  .replace("archive_search_field(c.config, d.others, 'D')",
                           "setweight(archive_search_words(c.config, d.others), 'D')"))


def install(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FIELD, params=None)
        schema_editor.execute(REFRESH, params=None)


def uninstall(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(REFRESH_BEFORE, params=None)
        schema_editor.execute(
            'DROP FUNCTION IF EXISTS archive_search_field(regconfig, text, "char")', params=None)


class Migration(migrations.Migration):

    dependencies = [
        ("archive", "0019_creators_withdrawn"),
    ]

    operations = [
        migrations.RunPython(install, uninstall, elidable=False),
    ]
