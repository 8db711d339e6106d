"""ORCID sign-in (#36, 2): the "connect your ORCID iD" mails owed (OrcidInvitation); and the
change token (0012) also moves when an identity is linked, unlinked or changes its subject,
since a landing page shows an ORCID iD authenticated when an identity names it: the pages
kept under the token (archive/site/views.py) go at once in every process. A sign-in that only
updates an identity's last use or attributes leaves the token alone. Literal SQL (history);
the function is 0012's."""
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


TABLE = "archive_identity"

POSTGRESQL = [
    f"DROP TRIGGER IF EXISTS {TABLE}_changes ON {TABLE}",
    f"CREATE CONSTRAINT TRIGGER {TABLE}_changes AFTER INSERT OR DELETE OR UPDATE OF "
    f"provider, subject, user_id ON {TABLE} DEFERRABLE INITIALLY DEFERRED FOR EACH ROW "
    "EXECUTE FUNCTION archive_changes_renew()",
    f"CREATE OR REPLACE TRIGGER {TABLE}_truncate_changes AFTER TRUNCATE ON {TABLE} "
    "FOR EACH STATEMENT EXECUTE FUNCTION archive_changes_renew()",
]

SQLITE = [
    f"CREATE TRIGGER IF NOT EXISTS {TABLE}_{name}_changes AFTER {event} ON {TABLE} "
    "BEGIN UPDATE archive_changes SET token = lower(hex(randomblob(16))) WHERE id = 1; END"
    for name, event in (("insert", "INSERT"), ("delete", "DELETE"),
                        ("update", "UPDATE OF provider, subject, user_id"))
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
        ('archive', '0048_account_disabled_erasure'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='OrcidInvitation',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('orcid', models.CharField(max_length=19, verbose_name='ORCID iD')),
                ('email', models.EmailField(max_length=254, verbose_name='email address')),
                ('base', models.CharField(max_length=300, verbose_name='base URL')),
                ('language', models.CharField(blank=True, default='', max_length=16, verbose_name='language')),
                ('created', models.DateTimeField(auto_now_add=True, verbose_name='created')),
                ('sent_at', models.DateTimeField(blank=True, db_index=True, null=True, verbose_name='sent')),
                ('attempts', models.PositiveSmallIntegerField(db_default=0, default=0, verbose_name='mail attempts')),
                ('used_at', models.DateTimeField(blank=True, null=True, verbose_name='used')),
                ('item', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='orcid_invitations', to='archive.item', verbose_name='item')),
                ('sent_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='sent by')),
            ],
            options={
                'verbose_name': 'ORCID invitation',
                'verbose_name_plural': 'ORCID invitations',
                'ordering': ['id'],
            },
        ),
        migrations.RunPython(install, uninstall, elidable=False),
    ]
