"""Full-text search (issue #12): archive_itemsearch, kept current by the database's own triggers,
and the index of the newest-first listings.

History, as it was written: this migration's SQL is literal and imports none of the app's code
(a later change of the search rules ships as a migration of its own). Items already in the
database get their search entries from ``manage.py reindex --missing`` after this migration
(in short batches, while the site serves), not here: indexing every item in the migration's
one transaction took three minutes per million items. On PostgreSQL the indexes on the items
and their Dublin Core values are built CONCURRENTLY (no lock on writes to those tables), so
this migration is not atomic.

PostgreSQL: one document per item, weighted A (title) > B (creators) > C (subjects) > D
(description and every other value), each the item language's stemmed vector with its lexemes
unaccented, then the unaccented ``simple`` vector; a tombstone's document is its title only.
Statement-level triggers with transition tables refresh the changed items in one statement.
SQLite: row triggers store the title and values lower-cased with accents folded by plain
replace() calls, so any SQLite client keeps the text right too.
"""
import django.db.models.deletion
from django.db import migrations, models

import archive.models

POSTGRES_FUNCTIONS = [
    """CREATE EXTENSION IF NOT EXISTS unaccent""",
    """CREATE OR REPLACE FUNCTION archive_unaccent(text) RETURNS text
       LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
       AS $$ SELECT unaccent('unaccent'::regdictionary, $1) $$""",
    """CREATE OR REPLACE FUNCTION archive_search_config(language text) RETURNS regconfig
       LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
       SELECT CASE lower(split_part(coalesce(language, ''), '-', 1))
                WHEN 'pt' THEN 'portuguese'::regconfig
                WHEN 'en' THEN 'english'::regconfig
                ELSE 'simple'::regconfig END $$""",
    """CREATE OR REPLACE FUNCTION archive_search_words(config regconfig, body text)
       RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
       SELECT CASE WHEN config = 'simple'::regconfig
                THEN to_tsvector('simple', archive_unaccent(coalesce(body, '')))
                ELSE archive_unaccent(to_tsvector(config, coalesce(body, ''))::text)::tsvector
                     || to_tsvector('simple', archive_unaccent(coalesce(body, ''))) END $$""",
    """CREATE OR REPLACE FUNCTION archive_search_term(word text, phrase boolean)
       RETURNS tsquery LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
       SELECT CASE WHEN numnode(pt) = 0 THEN pt WHEN numnode(en) = 0 THEN en
                   ELSE archive_unaccent(pt::text)::tsquery || archive_unaccent(en::text)::tsquery
                        || simple END
       FROM (SELECT CASE WHEN phrase THEN phraseto_tsquery('portuguese', word)
                         ELSE plainto_tsquery('portuguese', word) END AS pt,
                    CASE WHEN phrase THEN phraseto_tsquery('english', word)
                         ELSE plainto_tsquery('english', word) END AS en,
                    CASE WHEN phrase THEN phraseto_tsquery('simple', archive_unaccent(word))
                         ELSE plainto_tsquery('simple', archive_unaccent(word)) END AS simple) q
       $$""",
    """CREATE OR REPLACE FUNCTION archive_search_refresh(ids bigint[]) RETURNS void
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
       $$""",
    """CREATE OR REPLACE FUNCTION archive_search_item_changed() RETURNS trigger
       LANGUAGE plpgsql AS $$
       BEGIN
         IF TG_OP = 'DELETE' THEN
           DELETE FROM archive_itemsearch s USING old_rows o WHERE s.item_id = o.id;
         ELSIF TG_OP = 'INSERT' THEN
           PERFORM archive_search_refresh(ARRAY(SELECT id FROM new_rows));
         ELSE
           PERFORM archive_search_refresh(ARRAY(
             SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id
             WHERE n.title IS DISTINCT FROM o.title OR n.state IS DISTINCT FROM o.state
                   OR n.language IS DISTINCT FROM o.language
                   OR n.is_archive_service IS DISTINCT FROM o.is_archive_service));
         END IF;
         RETURN NULL;
       END $$""",
    """CREATE OR REPLACE FUNCTION archive_search_dcvalue_changed() RETURNS trigger
       LANGUAGE plpgsql AS $$
       BEGIN
         IF TG_OP = 'DELETE' THEN
           PERFORM archive_search_refresh(ARRAY(SELECT DISTINCT item_id FROM old_rows));
         ELSIF TG_OP = 'INSERT' THEN
           PERFORM archive_search_refresh(ARRAY(SELECT DISTINCT item_id FROM new_rows));
         ELSE
           PERFORM archive_search_refresh(ARRAY(
             SELECT item_id FROM new_rows UNION SELECT item_id FROM old_rows));
         END IF;
         RETURN NULL;
       END $$""",
]
# PostgreSQL allows transition tables on one event per trigger: three triggers per table.
POSTGRES_TRIGGERS = [
    (table, function, event, tables)
    for table, function in (("archive_item", "archive_search_item_changed"),
                            ("archive_dcvalue", "archive_search_dcvalue_changed"))
    for event, tables in (("INSERT", "NEW TABLE AS new_rows"),
                          ("UPDATE", "OLD TABLE AS old_rows NEW TABLE AS new_rows"),
                          ("DELETE", "OLD TABLE AS old_rows"))
]
POSTGRES_INDEXES = [
    "CREATE INDEX IF NOT EXISTS itemsearch_document ON archive_itemsearch USING gin (document)",
    # Browsing by a facet finds its items here; a hash: a btree refuses values over 2 704 bytes.
    "CREATE INDEX CONCURRENTLY IF NOT EXISTS dcvalue_facet_value ON archive_dcvalue "
    "USING hash (value) WHERE element IN ('creator', 'subject', 'type')",
]

# SQLite's fold: every letter of Latin-1 and Latin Extended-A to its plain lower-case form, as
# PostgreSQL's unaccent does, in steps of 25 (SQLite refuses replace() nested 40 deep).
FOLDS = [
    ('À', 'a'), ('Á', 'a'), ('Â', 'a'), ('Ã', 'a'), ('Ä', 'a'), ('Å', 'a'), ('Æ', 'ae'),
    ('Ç', 'c'), ('È', 'e'), ('É', 'e'), ('Ê', 'e'), ('Ë', 'e'), ('Ì', 'i'), ('Í', 'i'),
    ('Î', 'i'), ('Ï', 'i'), ('Ð', 'd'), ('Ñ', 'n'), ('Ò', 'o'), ('Ó', 'o'), ('Ô', 'o'),
    ('Õ', 'o'), ('Ö', 'o'), ('Ø', 'o'), ('Ù', 'u'), ('Ú', 'u'), ('Û', 'u'), ('Ü', 'u'),
    ('Ý', 'y'), ('Þ', 'th'), ('ß', 'ss'), ('à', 'a'), ('á', 'a'), ('â', 'a'), ('ã', 'a'),
    ('ä', 'a'), ('å', 'a'), ('æ', 'ae'), ('ç', 'c'), ('è', 'e'), ('é', 'e'), ('ê', 'e'),
    ('ë', 'e'), ('ì', 'i'), ('í', 'i'), ('î', 'i'), ('ï', 'i'), ('ð', 'd'), ('ñ', 'n'),
    ('ò', 'o'), ('ó', 'o'), ('ô', 'o'), ('õ', 'o'), ('ö', 'o'), ('ø', 'o'), ('ù', 'u'),
    ('ú', 'u'), ('û', 'u'), ('ü', 'u'), ('ý', 'y'), ('þ', 'th'), ('ÿ', 'y'), ('Ā', 'a'),
    ('ā', 'a'), ('Ă', 'a'), ('ă', 'a'), ('Ą', 'a'), ('ą', 'a'), ('Ć', 'c'), ('ć', 'c'),
    ('Ĉ', 'c'), ('ĉ', 'c'), ('Ċ', 'c'), ('ċ', 'c'), ('Č', 'c'), ('č', 'c'), ('Ď', 'd'),
    ('ď', 'd'), ('Đ', 'd'), ('đ', 'd'), ('Ē', 'e'), ('ē', 'e'), ('Ĕ', 'e'), ('ĕ', 'e'),
    ('Ė', 'e'), ('ė', 'e'), ('Ę', 'e'), ('ę', 'e'), ('Ě', 'e'), ('ě', 'e'), ('Ĝ', 'g'),
    ('ĝ', 'g'), ('Ğ', 'g'), ('ğ', 'g'), ('Ġ', 'g'), ('ġ', 'g'), ('Ģ', 'g'), ('ģ', 'g'),
    ('Ĥ', 'h'), ('ĥ', 'h'), ('Ħ', 'h'), ('ħ', 'h'), ('Ĩ', 'i'), ('ĩ', 'i'), ('Ī', 'i'),
    ('ī', 'i'), ('Ĭ', 'i'), ('ĭ', 'i'), ('Į', 'i'), ('į', 'i'), ('İ', 'i'), ('ı', 'i'),
    ('Ĳ', 'ij'), ('ĳ', 'ij'), ('Ĵ', 'j'), ('ĵ', 'j'), ('Ķ', 'k'), ('ķ', 'k'), ('Ĺ', 'l'),
    ('ĺ', 'l'), ('Ļ', 'l'), ('ļ', 'l'), ('Ľ', 'l'), ('ľ', 'l'), ('Ł', 'l'), ('ł', 'l'),
    ('Ń', 'n'), ('ń', 'n'), ('Ņ', 'n'), ('ņ', 'n'), ('Ň', 'n'), ('ň', 'n'), ('Ō', 'o'),
    ('ō', 'o'), ('Ŏ', 'o'), ('ŏ', 'o'), ('Ő', 'o'), ('ő', 'o'), ('Œ', 'oe'), ('œ', 'oe'),
    ('Ŕ', 'r'), ('ŕ', 'r'), ('Ŗ', 'r'), ('ŗ', 'r'), ('Ř', 'r'), ('ř', 'r'), ('Ś', 's'),
    ('ś', 's'), ('Ŝ', 's'), ('ŝ', 's'), ('Ş', 's'), ('ş', 's'), ('Š', 's'), ('š', 's'),
    ('Ţ', 't'), ('ţ', 't'), ('Ť', 't'), ('ť', 't'), ('Ŧ', 't'), ('ŧ', 't'), ('Ũ', 'u'),
    ('ũ', 'u'), ('Ū', 'u'), ('ū', 'u'), ('Ŭ', 'u'), ('ŭ', 'u'), ('Ů', 'u'), ('ů', 'u'),
    ('Ű', 'u'), ('ű', 'u'), ('Ų', 'u'), ('ų', 'u'), ('Ŵ', 'w'), ('ŵ', 'w'), ('Ŷ', 'y'),
    ('ŷ', 'y'), ('Ÿ', 'y'), ('Ź', 'z'), ('ź', 'z'), ('Ż', 'z'), ('ż', 'z'), ('Ž', 'z'),
    ('ž', 'z'), ('ſ', 's'),
]


def _sqlite_fold_steps(column):
    steps = []
    for start in range(0, len(FOLDS), 25):
        sql = f"lower({column})" if start == 0 else column
        for char, plain in FOLDS[start:start + 25]:
            sql = f"replace({sql}, '{char}', '{plain}')"
        steps.append(sql)
    return steps


def _sqlite_refresh(item_id):
    body = ("i.title || CASE WHEN i.state = 'Deleted' THEN '' ELSE ' ' || coalesce("
            "(SELECT group_concat(v.value, ' ') FROM archive_dcvalue v WHERE v.item_id = i.id),"
            " '') END")
    listed = "NOT i.is_archive_service AND i.state <> 'Deleted'"
    return [f"INSERT OR REPLACE INTO archive_itemsearch (item_id, listed, document, text) "
            f"SELECT i.id, {listed}, NULL, {body} FROM archive_item i WHERE i.id = {item_id}",
            *(f"UPDATE archive_itemsearch SET text = {step} WHERE item_id = {item_id}"
              for step in _sqlite_fold_steps("text"))]


def _sqlite_trigger(name, event, *bodies):
    statements = "; ".join(statement for body in bodies for statement in body)
    return f"CREATE TRIGGER IF NOT EXISTS {name} {event} BEGIN {statements}; END"


SQLITE_INSTALL = [
    _sqlite_trigger("archive_item_search_insert", "AFTER INSERT ON archive_item",
                    _sqlite_refresh("NEW.id")),
    _sqlite_trigger("archive_item_search_update",
                    "AFTER UPDATE OF title, state, language, is_archive_service ON archive_item",
                    _sqlite_refresh("NEW.id")),
    _sqlite_trigger("archive_item_search_delete", "AFTER DELETE ON archive_item",
                    ["DELETE FROM archive_itemsearch WHERE item_id = OLD.id"]),
    _sqlite_trigger("archive_dcvalue_search_insert", "AFTER INSERT ON archive_dcvalue",
                    _sqlite_refresh("NEW.item_id")),
    _sqlite_trigger("archive_dcvalue_search_update", "AFTER UPDATE ON archive_dcvalue",
                    _sqlite_refresh("OLD.item_id"), _sqlite_refresh("NEW.item_id")),
    _sqlite_trigger("archive_dcvalue_search_delete", "AFTER DELETE ON archive_dcvalue",
                    _sqlite_refresh("OLD.item_id")),
    "CREATE INDEX IF NOT EXISTS dcvalue_facet_value ON archive_dcvalue (value) "
    "WHERE element IN ('creator', 'subject', 'type')",
]


def install(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        statements = [
            *POSTGRES_FUNCTIONS,
            *(sql for table, function, event, tables in POSTGRES_TRIGGERS for sql in (
                f"DROP TRIGGER IF EXISTS {table}_search_{event.lower()} ON {table}",
                f"CREATE TRIGGER {table}_search_{event.lower()} AFTER {event} ON {table} "
                f"REFERENCING {tables} FOR EACH STATEMENT EXECUTE FUNCTION {function}()")),
            *POSTGRES_INDEXES]
    else:
        statements = SQLITE_INSTALL
    for statement in statements:
        schema_editor.execute(statement, params=None)


def uninstall(apps, schema_editor):
    triggers = [f"{table}_search_{event}" for table in ("archive_item", "archive_dcvalue")
                for event in ("insert", "update", "delete")]
    if schema_editor.connection.vendor == "postgresql":
        statements = [
            *(f"DROP TRIGGER IF EXISTS {name} ON {name.rsplit('_search', 1)[0]}"
              for name in triggers),
            "DROP FUNCTION IF EXISTS archive_search_dcvalue_changed()",
            "DROP FUNCTION IF EXISTS archive_search_item_changed()",
            "DROP FUNCTION IF EXISTS archive_search_refresh(bigint[])",
            "DROP FUNCTION IF EXISTS archive_search_term(text, boolean)",
            "DROP FUNCTION IF EXISTS archive_search_words(regconfig, text)",
            "DROP FUNCTION IF EXISTS archive_search_config(text)",
            "DROP FUNCTION IF EXISTS archive_unaccent(text)",
            "DROP INDEX IF EXISTS itemsearch_document",
            "DROP INDEX IF EXISTS dcvalue_facet_value",
        ]
    else:
        statements = [*(f"DROP TRIGGER IF EXISTS {name}" for name in triggers),
                      "DROP INDEX IF EXISTS dcvalue_facet_value"]
    for statement in statements:
        schema_editor.execute(statement, params=None)


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
        AddIndexConcurrently(
            model_name='item',
            index=models.Index(models.OrderBy(models.F('created'), descending=True), models.OrderBy(models.F('id'), descending=True), condition=models.Q(('is_archive_service', False), models.Q(('state', 'Deleted'), _negated=True)), name='item_listed_newest'),
        ),
        migrations.RunPython(install, uninstall, elidable=False),
    ]
