"""The change token (0012) also moves with the registered Archives (#29): an Archive's
inclusion or exclusion renews it, so that what a process keeps of other Archives' answers
(the resolver's remembered redirects, archive/resolver/views/persistent_urls.py) goes at once
in every process, as what it keeps of items does. Literal SQL (history); the function is
0012's."""
from django.db import migrations

TABLE = "archive_registeredarchive"

POSTGRESQL = [
    f"DROP TRIGGER IF EXISTS {TABLE}_changes ON {TABLE}",
    f"CREATE CONSTRAINT TRIGGER {TABLE}_changes AFTER INSERT OR UPDATE OR DELETE ON {TABLE} "
    "DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION archive_changes_renew()",
    f"CREATE OR REPLACE TRIGGER {TABLE}_truncate_changes AFTER TRUNCATE ON {TABLE} "
    "FOR EACH STATEMENT EXECUTE FUNCTION archive_changes_renew()",
]

SQLITE = [
    f"CREATE TRIGGER IF NOT EXISTS {TABLE}_{event.lower()}_changes AFTER {event} ON {TABLE} "
    "BEGIN UPDATE archive_changes SET token = lower(hex(randomblob(16))) WHERE id = 1; END"
    for event in ("INSERT", "UPDATE", "DELETE")
]


def install(apps, schema_editor):
    for statement in {"postgresql": POSTGRESQL, "sqlite": SQLITE}.get(
            schema_editor.connection.vendor, []):
        schema_editor.execute(statement, params=None)


def uninstall(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {TABLE}_changes ON {TABLE}")
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {TABLE}_truncate_changes ON {TABLE}")
    elif vendor == "sqlite":
        for event in ("insert", "update", "delete"):
            schema_editor.execute(f"DROP TRIGGER IF EXISTS {TABLE}_{event}_changes")


class Migration(migrations.Migration):

    dependencies = [
        ("archive", "0021_search"),
    ]

    operations = [
        migrations.RunPython(install, uninstall, elidable=False),
    ]
