"""Fixity history (issue 38): a second digest on every file (SHA-512) and every check kept.

On PostgreSQL the checks' table is partitioned by month on `at` (PARTITION BY RANGE), which
Django cannot create: it is written here in SQL, with a default partition (for a row whose
month has no partition yet) and the current month and the next two; the daily fixity task
makes the months ahead from then on and drops those past IBI_FIXITY_RETENTION_DAYS
(archive/preservation/fixity.py). A partitioned table's primary key must hold the partition
key: (id, at). Elsewhere (SQLite) it is an ordinary table, pruned by DELETE.
"""
from datetime import UTC, datetime

import django.db.models.deletion
from django.db import migrations, models

POSTGRESQL = """
CREATE TABLE archive_fixitycheck (
    id bigserial NOT NULL,
    file_id bigint NULL,
    key varchar(1024) NOT NULL,
    at timestamp with time zone NOT NULL,
    outcome varchar(4) NOT NULL,
    sha256 varchar(64) NOT NULL,
    sha512 varchar(128) NOT NULL,
    size bigint NULL,
    problem varchar(255) NOT NULL,
    PRIMARY KEY (id, at)
) PARTITION BY RANGE (at);
CREATE TABLE archive_fixitycheck_default PARTITION OF archive_fixitycheck DEFAULT;
CREATE INDEX fixity_check_of_file ON archive_fixitycheck (file_id, at);
CREATE INDEX fixity_check_by_outcome ON archive_fixitycheck (outcome, at);
"""
MONTH = """CREATE TABLE IF NOT EXISTS archive_fixitycheck_{name} PARTITION OF archive_fixitycheck
    FOR VALUES FROM ('{start}') TO ('{end}')"""


def _months(now: datetime, count: int) -> list[tuple[str, str, str]]:
    year, month, found = now.year, now.month, []
    for _step in range(count):
        following = (year + month // 12, month % 12 + 1)
        found.append((f"y{year:04d}m{month:02d}", f"{year:04d}-{month:02d}-01 00:00+00",
                      f"{following[0]:04d}-{following[1]:02d}-01 00:00+00"))
        year, month = following
    return found


def create(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(POSTGRESQL)
        for name, start, end in _months(datetime.now(UTC), 3):
            schema_editor.execute(MONTH.format(name=name, start=start, end=end))
    else:
        schema_editor.create_model(apps.get_model("archive", "FixityCheck"))


def drop(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("DROP TABLE archive_fixitycheck CASCADE")
    else:
        schema_editor.delete_model(apps.get_model("archive", "FixityCheck"))


class Migration(migrations.Migration):

    dependencies = [
        ('archive', '0055_file_formats'),
    ]

    operations = [
        # Literal SQL, as 0055: Django's AddField of a NOT NULL column rebuilds the table on
        # SQLite and drops the triggers of 0007 and 0012 on archive_itemfile.
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunSQL(
                "ALTER TABLE archive_itemfile ADD COLUMN sha512 varchar(128) DEFAULT '' NOT NULL",
                "ALTER TABLE archive_itemfile DROP COLUMN sha512")],
            state_operations=[migrations.AddField(
                model_name='itemfile',
                name='sha512',
                field=models.CharField(blank=True, db_default='', default='', max_length=128,
                                       verbose_name='SHA-512'),
            )]),
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.CreateModel(
                name='FixityCheck',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('key', models.CharField(max_length=1024, verbose_name='stored at')),
                    ('at', models.DateTimeField(verbose_name='checked')),
                    ('outcome', models.CharField(choices=[('pass', 'pass'), ('fail', 'fail')], max_length=4, verbose_name='outcome')),
                    ('sha256', models.CharField(blank=True, default='', max_length=64, verbose_name='SHA-256 found')),
                    ('sha512', models.CharField(blank=True, default='', max_length=128, verbose_name='SHA-512 found')),
                    ('size', models.BigIntegerField(blank=True, null=True, verbose_name='bytes found')),
                    ('problem', models.CharField(blank=True, default='', max_length=255, verbose_name='problem')),
                    ('file', models.ForeignKey(db_constraint=False, null=True, on_delete=django.db.models.deletion.DO_NOTHING, related_name='fixity_checks', to='archive.itemfile', verbose_name='file')),
                ],
                options={
                    'verbose_name': 'fixity check',
                    'verbose_name_plural': 'fixity checks',
                    'ordering': ['-at', '-id'],
                    'indexes': [models.Index(fields=['file', 'at'], name='fixity_check_of_file'), models.Index(fields=['outcome', 'at'], name='fixity_check_by_outcome')],
                },
            ),
        ]),
        migrations.RunPython(create, drop),
    ]
