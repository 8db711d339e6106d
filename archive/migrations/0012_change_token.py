"""The change token (archive/db/changes.py): a one-row table the database renews at the commit
of every write to items, files, Dublin Core values and search entries, whoever writes (the ORM,
bulk operations, raw SQL, psql), announced on PostgreSQL by NOTIFY; each process keeps its
answers under it.

Until this migration the table and its triggers were installed after every ``migrate`` (a
post_migrate hook); now they are history like any schema, in literal SQL. Every statement is
idempotent, so a database that had them already keeps them as they were.

SQLite drops a table's triggers when a migration rebuilds the table: a later migration that
rebuilds archive_item, archive_itemfile, archive_dcvalue or archive_itemsearch on SQLite must
create this migration's triggers (and 0007's) again; tests/test_migrations.py fails until it
does.
"""
from django.db import migrations

WATCHED = ("archive_item", "archive_itemfile", "archive_dcvalue", "archive_itemsearch")

POSTGRESQL = [
    "CREATE TABLE IF NOT EXISTS archive_changes (id integer PRIMARY KEY, token text NOT NULL)",
    "INSERT INTO archive_changes (id, token) VALUES (1, md5(random()::text)) "
    "ON CONFLICT (id) DO NOTHING",
    # Once per transaction, at commit: the row lock lasts an instant.
    """CREATE OR REPLACE FUNCTION archive_changes_renew() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE renewed text;
BEGIN
  IF TG_OP = 'TRUNCATE'
     OR current_setting('archive_changes.renewed', true) IS DISTINCT FROM txid_current()::text THEN
    UPDATE archive_changes SET token = md5(random()::text || clock_timestamp()::text) WHERE id = 1
      RETURNING token INTO renewed;
    PERFORM pg_notify('archive_changes', renewed);  -- delivered at commit, in commit order
    PERFORM set_config('archive_changes.renewed', txid_current()::text, true);
  END IF;
  RETURN NULL;
END $$""",
    *(statement for table in WATCHED for statement in (
        f"DROP TRIGGER IF EXISTS {table}_changes ON {table}",
        f"CREATE CONSTRAINT TRIGGER {table}_changes AFTER INSERT OR UPDATE OR DELETE "
        f"ON {table} DEFERRABLE INITIALLY DEFERRED FOR EACH ROW "
        f"EXECUTE FUNCTION archive_changes_renew()",
        f"CREATE OR REPLACE TRIGGER {table}_truncate_changes AFTER TRUNCATE ON {table} "
        f"FOR EACH STATEMENT EXECUTE FUNCTION archive_changes_renew()")),
]

SQLITE = [
    "CREATE TABLE IF NOT EXISTS archive_changes (id INTEGER PRIMARY KEY, token TEXT NOT NULL)",
    "INSERT OR IGNORE INTO archive_changes (id, token) VALUES (1, lower(hex(randomblob(16))))",
    *(f"CREATE TRIGGER IF NOT EXISTS {table}_{event.lower()}_changes AFTER {event} ON {table} "
      "BEGIN UPDATE archive_changes SET token = lower(hex(randomblob(16))) WHERE id = 1; END"
      for table in WATCHED for event in ("INSERT", "UPDATE", "DELETE")),
]


def install(apps, schema_editor):
    statements = {"postgresql": POSTGRESQL, "sqlite": SQLITE}.get(
        schema_editor.connection.vendor, [])  # another database: no token, no cache
    for statement in statements:
        schema_editor.execute(statement, params=None)


def uninstall(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    for table in WATCHED:
        if vendor == "postgresql":
            schema_editor.execute(f"DROP TRIGGER IF EXISTS {table}_changes ON {table}")
            schema_editor.execute(f"DROP TRIGGER IF EXISTS {table}_truncate_changes ON {table}")
        elif vendor == "sqlite":
            for event in ("insert", "update", "delete"):
                schema_editor.execute(f"DROP TRIGGER IF EXISTS {table}_{event}_changes")
    if vendor == "postgresql":
        schema_editor.execute("DROP FUNCTION IF EXISTS archive_changes_renew()")
    schema_editor.execute("DROP TABLE IF EXISTS archive_changes")


class Migration(migrations.Migration):

    dependencies = [
        ("archive", "0011_verbose_names"),
    ]

    operations = [
        migrations.RunPython(install, uninstall, elidable=False),
    ]
