"""Search inside files (issue 37): each page of a file's text gets its own text search vector
on PostgreSQL, kept by the database (a generated column: whoever writes a page, the vector is
current at its commit), and a GIN index over them.

One configuration, `archive_text`: every word unaccented, then stemmed as Portuguese (an
English word stems consistently too: the query is read by the same rules). One lexeme a word:
a page's text is long and there are millions of pages, so not the three forms an item's
record keeps (migration 0021_search); `bench/README.md` has what it costs. A page's text is
read up to its first 200 000 characters (a tsvector is at most 1 MB; pages are split by the
extraction far below that).

SQLite keeps each page's text folded (lower case, accents off: search/query.py `fold`, as
the record's search text is, migration 0007_full_text_search) in a column its own triggers
fill; its search looks for substrings there (archive/search/fulltext.py).
"""
from django.db import migrations

# A copy, as 0007 keeps its own: a migration does not change when the code does.
FOLDS = [
    ('À', 'a'), ('Á', 'a'), ('Â', 'a'), ('Ã', 'a'), ('Ä', 'a'), ('Å', 'a'),
    ('Æ', 'ae'), ('Ç', 'c'), ('È', 'e'), ('É', 'e'), ('Ê', 'e'), ('Ë', 'e'),
    ('Ì', 'i'), ('Í', 'i'), ('Î', 'i'), ('Ï', 'i'), ('Ð', 'd'), ('Ñ', 'n'),
    ('Ò', 'o'), ('Ó', 'o'), ('Ô', 'o'), ('Õ', 'o'), ('Ö', 'o'), ('Ø', 'o'),
    ('Ù', 'u'), ('Ú', 'u'), ('Û', 'u'), ('Ü', 'u'), ('Ý', 'y'), ('Þ', 'th'),
    ('ß', 'ss'), ('à', 'a'), ('á', 'a'), ('â', 'a'), ('ã', 'a'), ('ä', 'a'),
    ('å', 'a'), ('æ', 'ae'), ('ç', 'c'), ('è', 'e'), ('é', 'e'), ('ê', 'e'),
    ('ë', 'e'), ('ì', 'i'), ('í', 'i'), ('î', 'i'), ('ï', 'i'), ('ð', 'd'),
    ('ñ', 'n'), ('ò', 'o'), ('ó', 'o'), ('ô', 'o'), ('õ', 'o'), ('ö', 'o'),
    ('ø', 'o'), ('ù', 'u'), ('ú', 'u'), ('û', 'u'), ('ü', 'u'), ('ý', 'y'),
    ('þ', 'th'), ('ÿ', 'y'), ('Ā', 'a'), ('ā', 'a'), ('Ă', 'a'), ('ă', 'a'),
    ('Ą', 'a'), ('ą', 'a'), ('Ć', 'c'), ('ć', 'c'), ('Ĉ', 'c'), ('ĉ', 'c'),
    ('Ċ', 'c'), ('ċ', 'c'), ('Č', 'c'), ('č', 'c'), ('Ď', 'd'), ('ď', 'd'),
    ('Đ', 'd'), ('đ', 'd'), ('Ē', 'e'), ('ē', 'e'), ('Ĕ', 'e'), ('ĕ', 'e'),
    ('Ė', 'e'), ('ė', 'e'), ('Ę', 'e'), ('ę', 'e'), ('Ě', 'e'), ('ě', 'e'),
    ('Ĝ', 'g'), ('ĝ', 'g'), ('Ğ', 'g'), ('ğ', 'g'), ('Ġ', 'g'), ('ġ', 'g'),
    ('Ģ', 'g'), ('ģ', 'g'), ('Ĥ', 'h'), ('ĥ', 'h'), ('Ħ', 'h'), ('ħ', 'h'),
    ('Ĩ', 'i'), ('ĩ', 'i'), ('Ī', 'i'), ('ī', 'i'), ('Ĭ', 'i'), ('ĭ', 'i'),
    ('Į', 'i'), ('į', 'i'), ('İ', 'i'), ('ı', 'i'), ('Ĳ', 'ij'), ('ĳ', 'ij'),
    ('Ĵ', 'j'), ('ĵ', 'j'), ('Ķ', 'k'), ('ķ', 'k'), ('Ĺ', 'l'), ('ĺ', 'l'),
    ('Ļ', 'l'), ('ļ', 'l'), ('Ľ', 'l'), ('ľ', 'l'), ('Ł', 'l'), ('ł', 'l'),
    ('Ń', 'n'), ('ń', 'n'), ('Ņ', 'n'), ('ņ', 'n'), ('Ň', 'n'), ('ň', 'n'),
    ('Ō', 'o'), ('ō', 'o'), ('Ŏ', 'o'), ('ŏ', 'o'), ('Ő', 'o'), ('ő', 'o'),
    ('Œ', 'oe'), ('œ', 'oe'), ('Ŕ', 'r'), ('ŕ', 'r'), ('Ŗ', 'r'), ('ŗ', 'r'),
    ('Ř', 'r'), ('ř', 'r'), ('Ś', 's'), ('ś', 's'), ('Ŝ', 's'), ('ŝ', 's'),
    ('Ş', 's'), ('ş', 's'), ('Š', 's'), ('š', 's'), ('Ţ', 't'), ('ţ', 't'),
    ('Ť', 't'), ('ť', 't'), ('Ŧ', 't'), ('ŧ', 't'), ('Ũ', 'u'), ('ũ', 'u'),
    ('Ū', 'u'), ('ū', 'u'), ('Ŭ', 'u'), ('ŭ', 'u'), ('Ů', 'u'), ('ů', 'u'),
    ('Ű', 'u'), ('ű', 'u'), ('Ų', 'u'), ('ų', 'u'), ('Ŵ', 'w'), ('ŵ', 'w'),
    ('Ŷ', 'y'), ('ŷ', 'y'), ('Ÿ', 'y'), ('Ź', 'z'), ('ź', 'z'), ('Ż', 'z'),
    ('ż', 'z'), ('Ž', 'z'), ('ž', 'z'), ('ſ', 's'),
]

POSTGRES_INSTALL = [
    "CREATE EXTENSION IF NOT EXISTS unaccent",
    """DO $$ BEGIN
         IF NOT EXISTS (SELECT 1 FROM pg_ts_config WHERE cfgname = 'archive_text') THEN
           CREATE TEXT SEARCH CONFIGURATION archive_text (COPY = portuguese);
           ALTER TEXT SEARCH CONFIGURATION archive_text
             ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part
             WITH unaccent, portuguese_stem;
         END IF;
       END $$""",
    """ALTER TABLE archive_filepage ADD COLUMN IF NOT EXISTS document tsvector
       GENERATED ALWAYS AS (to_tsvector('archive_text'::regconfig, left(text, 200000)))
       STORED""",
    "CREATE INDEX IF NOT EXISTS filepage_document ON archive_filepage USING gin (document)",
]

# The change token (migration 0012) moves with the pages too: a search's answer kept under
# it (search/selectors.py `_results_key`) never misses a page written since.
POSTGRES_INSTALL += [
    "DROP TRIGGER IF EXISTS archive_filepage_changes ON archive_filepage",
    "CREATE CONSTRAINT TRIGGER archive_filepage_changes AFTER INSERT OR UPDATE OR DELETE "
    "ON archive_filepage DEFERRABLE INITIALLY DEFERRED FOR EACH ROW "
    "EXECUTE FUNCTION archive_changes_renew()",
    "CREATE OR REPLACE TRIGGER archive_filepage_truncate_changes AFTER TRUNCATE ON "
    "archive_filepage FOR EACH STATEMENT EXECUTE FUNCTION archive_changes_renew()",
]

POSTGRES_REMOVE = [
    "DROP TRIGGER IF EXISTS archive_filepage_changes ON archive_filepage",
    "DROP TRIGGER IF EXISTS archive_filepage_truncate_changes ON archive_filepage",
    "DROP INDEX IF EXISTS filepage_document",
    "ALTER TABLE archive_filepage DROP COLUMN IF EXISTS document",
    "DROP TEXT SEARCH CONFIGURATION IF EXISTS archive_text",
]




def _sqlite_folds(where):
    """UPDATEs that fold the text of the pages `where` names into `folded`, 25 letters a
    statement (a nest of every replace() at once is deeper than SQLite's parser goes)."""
    statements = []
    for start in range(0, len(FOLDS), 25):
        sql = "lower(text)" if start == 0 else "folded"
        for char, plain in FOLDS[start:start + 25]:
            sql = f"replace({sql}, '{char}', '{plain}')"
        statements.append(f"UPDATE archive_filepage SET folded = {sql} WHERE {where}")
    return statements


def _sqlite_fold(page):
    return "; ".join(_sqlite_folds(f"id = {page}"))


SQLITE_INSTALL = [
    "ALTER TABLE archive_filepage ADD COLUMN folded text NOT NULL DEFAULT ''",
    *_sqlite_folds("1"),  # the pages written before this migration
    "CREATE TRIGGER IF NOT EXISTS archive_filepage_fold_insert AFTER INSERT ON "
    f"archive_filepage BEGIN {_sqlite_fold('NEW.id')}; END",
    "CREATE TRIGGER IF NOT EXISTS archive_filepage_fold_update AFTER UPDATE OF text ON "
    f"archive_filepage BEGIN {_sqlite_fold('NEW.id')}; END",
]

SQLITE_INSTALL += [
    f"CREATE TRIGGER IF NOT EXISTS archive_filepage_{event.lower()}_changes AFTER {event} ON "
    "archive_filepage BEGIN UPDATE archive_changes SET token = lower(hex(randomblob(16))) "
    "WHERE id = 1; END"
    for event in ("INSERT", "UPDATE", "DELETE")
]

SQLITE_REMOVE = [
    *(f"DROP TRIGGER IF EXISTS archive_filepage_{event}_changes"
      for event in ("insert", "update", "delete")),
    "DROP TRIGGER IF EXISTS archive_filepage_fold_insert",
    "DROP TRIGGER IF EXISTS archive_filepage_fold_update",
    "ALTER TABLE archive_filepage DROP COLUMN folded",
]


def install(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    for statement in {"postgresql": POSTGRES_INSTALL, "sqlite": SQLITE_INSTALL}.get(vendor, []):
        schema_editor.execute(statement, params=None)


def remove(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    for statement in {"postgresql": POSTGRES_REMOVE, "sqlite": SQLITE_REMOVE}.get(vendor, []):
        schema_editor.execute(statement, params=None)


class Migration(migrations.Migration):

    dependencies = [
        ("archive", "0051_federation_metadata"),
    ]

    operations = [migrations.RunPython(install, remove)]
