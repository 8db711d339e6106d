"""The database's own half of search: functions, triggers and the GIN index that keep
archive_itemsearch current on every write, whoever writes (the ORM, `.update()`, raw SQL,
COPY). Installed by migration 0007_full_text_search; a change here ships with a migration
that calls `install` again (every statement is CREATE OR REPLACE or IF NOT EXISTS).

PostgreSQL: one document per item, weighted A (title) > B (creators) > C (subjects) > D
(description and every other Dublin Core value). Each part is the item language's stemmed
vector (pt… → portuguese, en… → english, else simple), its lexemes unaccented after stemming
(so that "avaliações" and "Avaliação" share the stem "avali"), followed by the unaccented
`simple` vector (so that exact words and prefixes match in any language). A tombstone's
document is its title only: the tombstone shows nothing else.

Statement-level triggers with transition tables refresh the changed items in one set-based
statement, so a COPY of a million rows costs one refresh, not a million.

SQLite: row triggers store the title and Dublin Core values lower-cased with accents folded
by plain replace() calls (archive/search/query.py `sqlite_fold_steps`), so any SQLite client
keeps the text right too.
"""
from __future__ import annotations

from .query import sqlite_fold_steps

ITEM = "archive_item"
DC = "archive_dcvalue"
SEARCH = "archive_itemsearch"

POSTGRES_INSTALL = [
    "CREATE EXTENSION IF NOT EXISTS unaccent",
    # unaccent() is STABLE (it reads its dictionary); naming the dictionary makes the result
    # depend on the argument alone, so this wrapper may be IMMUTABLE and folded at plan time.
    """CREATE OR REPLACE FUNCTION archive_unaccent(text) RETURNS text
       LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
       AS $$ SELECT unaccent('unaccent'::regdictionary, $1) $$""",
    """CREATE OR REPLACE FUNCTION archive_search_config(language text) RETURNS regconfig
       LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
       SELECT CASE lower(split_part(coalesce(language, ''), '-', 1))
                WHEN 'pt' THEN 'portuguese'::regconfig
                WHEN 'en' THEN 'english'::regconfig
                ELSE 'simple'::regconfig END $$""",
    # Stem first, then unaccent the lexemes: the stemmers know the accented words.
    """CREATE OR REPLACE FUNCTION archive_search_words(config regconfig, body text)
       RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
       SELECT CASE WHEN config = 'simple'::regconfig
                THEN to_tsvector('simple', archive_unaccent(coalesce(body, '')))
                ELSE archive_unaccent(to_tsvector(config, coalesce(body, ''))::text)::tsvector
                     || to_tsvector('simple', archive_unaccent(coalesce(body, ''))) END $$""",
    # One word of a reader's query, in every configuration: an item matches if its document
    # holds the Portuguese stem, the English stem or the plain word. A stop word of either
    # language ("de", "the") is no condition at all, as in websearch_to_tsquery.
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
    f"""CREATE OR REPLACE FUNCTION archive_search_refresh(ids bigint[]) RETURNS void
       LANGUAGE sql AS $$
       INSERT INTO {SEARCH} AS s (item_id, listed, document, text)
       SELECT i.id, NOT i.is_archive_service AND i.state <> 'Deleted',
              setweight(archive_search_words(c.config, i.title), 'A')
              || CASE WHEN i.state = 'Deleted' THEN ''::tsvector ELSE
                   setweight(archive_search_words(c.config, d.creators), 'B')
                   || setweight(archive_search_words(c.config, d.subjects), 'C')
                   || setweight(archive_search_words(c.config, d.others), 'D') END,
              ''
       FROM {ITEM} i
       CROSS JOIN LATERAL (SELECT archive_search_config(i.language) AS config) c
       CROSS JOIN LATERAL (
         SELECT string_agg(v.value, ' ' ORDER BY v.position, v.id)
                  FILTER (WHERE v.element = 'creator') AS creators,
                string_agg(v.value, ' ' ORDER BY v.position, v.id)
                  FILTER (WHERE v.element = 'subject') AS subjects,
                string_agg(v.value, ' ' ORDER BY v.element = 'description' DESC, v.element,
                           v.position, v.id)
                  FILTER (WHERE v.element NOT IN ('creator', 'subject')) AS others
         FROM {DC} v WHERE v.item_id = i.id) d
       WHERE i.id = ANY(ids)
       ON CONFLICT (item_id) DO UPDATE SET listed = EXCLUDED.listed,
                                           document = EXCLUDED.document
       -- An entry that would not change is not written: a rebuild leaves no dead rows.
       WHERE s.listed IS DISTINCT FROM EXCLUDED.listed
             OR s.document IS DISTINCT FROM EXCLUDED.document
       $$""",
    f"""CREATE OR REPLACE FUNCTION archive_search_item_changed() RETURNS trigger
       LANGUAGE plpgsql AS $$
       BEGIN
         IF TG_OP = 'DELETE' THEN
           DELETE FROM {SEARCH} s USING old_rows o WHERE s.item_id = o.id;
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
for _table, _function in ((ITEM, "archive_search_item_changed"),
                          (DC, "archive_search_dcvalue_changed")):
    for _event, _tables in (("INSERT", "NEW TABLE AS new_rows"),
                            ("UPDATE", "OLD TABLE AS old_rows NEW TABLE AS new_rows"),
                            ("DELETE", "OLD TABLE AS old_rows")):
        _name = f"{_table}_search_{_event.lower()}"
        POSTGRES_INSTALL += [
            f"DROP TRIGGER IF EXISTS {_name} ON {_table}",
            f"CREATE TRIGGER {_name} AFTER {_event} ON {_table} REFERENCING {_tables} "
            f"FOR EACH STATEMENT EXECUTE FUNCTION {_function}()",
        ]
POSTGRES_INSTALL += [
    f"CREATE INDEX IF NOT EXISTS itemsearch_document ON {SEARCH} USING gin (document)",
    # Browsing by a facet (creator, subject, type) finds its items here, not by reading
    # every value. A hash: a btree refuses values over 2 704 bytes, which an insert would hit.
    f"CREATE INDEX IF NOT EXISTS dcvalue_facet_value ON {DC} USING hash (value) "
    "WHERE element IN ('creator', 'subject', 'type')",
]
# Every item already there gets its document (once, at migrate time).
POSTGRES_INDEX_ALL = [f"SELECT archive_search_refresh(ARRAY(SELECT id FROM {ITEM}))"]

POSTGRES_UNINSTALL = [
    *(f"DROP TRIGGER IF EXISTS {table}_search_{event} ON {table}"
      for table in (ITEM, DC) for event in ("insert", "update", "delete")),
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


def sqlite_refresh(item_id: str | None) -> list[str]:
    """SQLite: the statements that rewrite one item's search text (`item_id` is SQL such as
    NEW.id or %s), or every item's (None)."""
    body = (f"i.title || CASE WHEN i.state = 'Deleted' THEN '' ELSE ' ' || coalesce("
            f"(SELECT group_concat(v.value, ' ') FROM {DC} v WHERE v.item_id = i.id), '') END")
    which = "" if item_id is None else f" WHERE i.id = {item_id}"
    where = "" if item_id is None else f" WHERE item_id = {item_id}"
    listed = "NOT i.is_archive_service AND i.state <> 'Deleted'"
    return [f"INSERT OR REPLACE INTO {SEARCH} (item_id, listed, document, text) "
            f"SELECT i.id, {listed}, NULL, {body} FROM {ITEM} i{which}",
            *(f"UPDATE {SEARCH} SET text = {step}{where}" for step in sqlite_fold_steps("text"))]


def _sqlite_trigger(name: str, event: str, *bodies: list[str]) -> str:
    statements = "; ".join(statement for body in bodies for statement in body)
    return f"CREATE TRIGGER IF NOT EXISTS {name} {event} BEGIN {statements}; END"


SQLITE_INSTALL = [
    _sqlite_trigger(f"{ITEM}_search_insert", f"AFTER INSERT ON {ITEM}", sqlite_refresh("NEW.id")),
    _sqlite_trigger(f"{ITEM}_search_update",
                    f"AFTER UPDATE OF title, state, language, is_archive_service ON {ITEM}",
                    sqlite_refresh("NEW.id")),
    _sqlite_trigger(f"{ITEM}_search_delete", f"AFTER DELETE ON {ITEM}",
                    [f"DELETE FROM {SEARCH} WHERE item_id = OLD.id"]),
    _sqlite_trigger(f"{DC}_search_insert", f"AFTER INSERT ON {DC}", sqlite_refresh("NEW.item_id")),
    _sqlite_trigger(f"{DC}_search_update", f"AFTER UPDATE ON {DC}",
                    sqlite_refresh("OLD.item_id"), sqlite_refresh("NEW.item_id")),
    _sqlite_trigger(f"{DC}_search_delete", f"AFTER DELETE ON {DC}",
                    sqlite_refresh("OLD.item_id")),
    f"CREATE INDEX IF NOT EXISTS dcvalue_facet_value ON {DC} (value) "
    "WHERE element IN ('creator', 'subject', 'type')",
]
SQLITE_INDEX_ALL = sqlite_refresh(None)

SQLITE_UNINSTALL = [*(f"DROP TRIGGER IF EXISTS {table}_search_{event}"
                      for table in (ITEM, DC) for event in ("insert", "update", "delete")),
                    "DROP INDEX IF EXISTS dcvalue_facet_value"]


def install(schema_editor, *, index_all: bool = True) -> None:
    """Functions, triggers and index for this database, and every item indexed once
    (`index_all`; a migration that changes only how a write is done leaves that out: it
    would take minutes over a million items)."""
    if schema_editor.connection.vendor == "postgresql":
        statements = POSTGRES_INSTALL + (POSTGRES_INDEX_ALL if index_all else [])
    else:
        statements = SQLITE_INSTALL + (SQLITE_INDEX_ALL if index_all else [])
    for statement in statements:
        schema_editor.execute(statement, params=None)


def uninstall(schema_editor) -> None:
    statements = (POSTGRES_UNINSTALL if schema_editor.connection.vendor == "postgresql"
                  else SQLITE_UNINSTALL)
    for statement in statements:
        schema_editor.execute(statement, params=None)
