"""Thumbnails of files (#37): FileExtraction keeps the storage key of its file's thumbnail
and why none could be made; a file of a kind without text is "skipped". The change token
(0012) moves when a thumbnail appears, changes or goes, so that the item pages kept under it
(archive/site/views.py) show it at once. Literal SQL (history); the function is 0012's."""

from django.db import migrations, models

TABLE = "archive_fileextraction"

POSTGRESQL = [
    f"DROP TRIGGER IF EXISTS {TABLE}_changes ON {TABLE}",
    f"CREATE CONSTRAINT TRIGGER {TABLE}_changes AFTER INSERT OR UPDATE OF thumbnail OR DELETE "
    f"ON {TABLE} DEFERRABLE INITIALLY DEFERRED FOR EACH ROW "
    "EXECUTE FUNCTION archive_changes_renew()",
]

SQLITE = [
    f"CREATE TRIGGER IF NOT EXISTS {TABLE}_{name}_changes AFTER {event} ON {TABLE} "
    "BEGIN UPDATE archive_changes SET token = lower(hex(randomblob(16))) WHERE id = 1; END"
    for name, event in (("insert", "INSERT"), ("update", "UPDATE OF thumbnail"),
                        ("delete", "DELETE"))
]


def install(apps, schema_editor):
    for statement in {"postgresql": POSTGRESQL, "sqlite": SQLITE}.get(
            schema_editor.connection.vendor, []):
        schema_editor.execute(statement, params=None)


def uninstall(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {TABLE}_changes ON {TABLE}")
    elif vendor == "sqlite":
        for name in ("insert", "update", "delete"):
            schema_editor.execute(f"DROP TRIGGER IF EXISTS {TABLE}_{name}_changes")


class Migration(migrations.Migration):

    dependencies = [
        ('archive', '0049_orcid_invitations'),
    ]

    operations = [
        migrations.AddField(
            model_name='fileextraction',
            name='thumbnail',
            field=models.CharField(blank=True, default='', max_length=1024, verbose_name='thumbnail'),
        ),
        migrations.AddField(
            model_name='fileextraction',
            name='thumbnail_problem',
            field=models.CharField(blank=True, default='', max_length=500, verbose_name='thumbnail problem'),
        ),
        migrations.AlterField(
            model_name='fileextraction',
            name='state',
            field=models.CharField(choices=[('pending', 'waiting'), ('done', 'text extracted'), ('empty', 'no text found'), ('failed', 'failed'), ('skipped', 'no text to extract')], db_index=True, default='pending', max_length=8, verbose_name='state'),
        ),
        migrations.RunPython(install, uninstall, elidable=False),
    ]
