"""PREMIS events and their agents (issue 38), append-only in the database itself
(archive/db/append_only.py says how a flush may still empty them)."""

import django.db.models.deletion
from django.db import migrations, models

MESSAGE = "PREMIS events are append-only: never changed or deleted"

POSTGRESQL = f"""
CREATE FUNCTION archive_premisevent_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '{MESSAGE}' USING ERRCODE = 'restrict_violation';
END $$;
CREATE TRIGGER archive_premisevent_append_only BEFORE UPDATE OR DELETE ON archive_premisevent
  FOR EACH ROW EXECUTE FUNCTION archive_premisevent_append_only();
"""
POSTGRESQL_REVERSE = """
DROP TRIGGER archive_premisevent_append_only ON archive_premisevent;
DROP FUNCTION archive_premisevent_append_only();
"""
SQLITE = [
    f"""CREATE TRIGGER archive_premisevent_no_update BEFORE UPDATE ON archive_premisevent
    BEGIN SELECT RAISE(ABORT, '{MESSAGE}'); END""",
    f"""CREATE TRIGGER archive_premisevent_no_delete BEFORE DELETE ON archive_premisevent
    WHEN NOT ibirepo_flushing() BEGIN SELECT RAISE(ABORT, '{MESSAGE}'); END""",
]
SQLITE_REVERSE = ["DROP TRIGGER archive_premisevent_no_update",
                  "DROP TRIGGER archive_premisevent_no_delete"]


def triggers(apps, schema_editor) -> None:
    statements = POSTGRESQL if schema_editor.connection.vendor == "postgresql" else SQLITE
    for statement in [statements] if isinstance(statements, str) else statements:
        schema_editor.execute(statement)


def no_triggers(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(POSTGRESQL_REVERSE)
    else:
        for statement in SQLITE_REVERSE:
            schema_editor.execute(statement)


class Migration(migrations.Migration):

    dependencies = [
        ('archive', '0053_counter_r51'),
    ]

    operations = [
        migrations.CreateModel(
            name='PremisAgent',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(choices=[('person', 'person'), ('software', 'software'), ('organization', 'organization')], max_length=16, verbose_name='type')),
                ('identifier_type', models.CharField(max_length=32, verbose_name='identifier type')),
                ('identifier', models.CharField(max_length=255, verbose_name='identifier')),
                ('name', models.CharField(max_length=255, verbose_name='name')),
            ],
            options={
                'verbose_name': 'PREMIS agent',
                'verbose_name_plural': 'PREMIS agents',
                'constraints': [models.UniqueConstraint(fields=('identifier_type', 'identifier'), name='premis_agent_once')],
            },
        ),
        migrations.CreateModel(
            name='PremisEvent',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('identifier', models.UUIDField(editable=False, unique=True, verbose_name='identifier')),
                ('type', models.CharField(choices=[('ingestion', 'ingestion'), ('accession', 'accession'), ('fixity check', 'fixity check'), ('virus check', 'virus check'), ('format identification', 'format identification'), ('replication', 'replication'), ('migration', 'migration'), ('transfer', 'transfer'), ('metadata modification', 'metadata modification'), ('policy assignment', 'policy assignment'), ('deletion', 'deletion')], max_length=32, verbose_name='type')),
                ('at', models.DateTimeField(verbose_name='at')),
                ('ibi', models.CharField(max_length=255, verbose_name='item')),
                ('file', models.CharField(blank=True, default='', max_length=255, verbose_name='file')),
                ('outcome', models.CharField(choices=[('success', 'success'), ('failure', 'failure'), ('warning', 'warning')], max_length=8, verbose_name='outcome')),
                ('detail', models.TextField(blank=True, default='', verbose_name='detail')),
                ('outcome_detail', models.TextField(blank=True, default='', verbose_name='outcome detail')),
                ('agent', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='events', to='archive.premisagent', verbose_name='agent')),
            ],
            options={
                'verbose_name': 'PREMIS event',
                'verbose_name_plural': 'PREMIS events',
                'ordering': ['at', 'id'],
                'indexes': [models.Index(fields=['ibi', 'at'], name='premis_event_of_item'), models.Index(fields=['type', 'at'], name='premis_event_by_type')],
            },
        ),
        migrations.RunPython(triggers, no_triggers),
    ]
