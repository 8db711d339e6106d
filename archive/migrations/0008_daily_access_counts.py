"""Accesses kept as daily counts, no longer one row per access (issue 12, item 5).

The Access rows become DailyAccessCount rows (per item, UTC day and kind; their sessions
counted by client addresses and UTC hour, the User-Agent never having been kept) in one INSERT …
SELECT … GROUP BY done by the database, whatever the size of the table; the urlkeys young
enough to be acknowledged again (IBI_URLKEY_MAX_AGE) move to AcknowledgedUrlkey; then Access,
and with it every reader's address it held (client_ips), is dropped.

Going back turns each count into as many Access rows (at noon UTC of their day, without
address or relation) and forgets which urlkeys were acknowledged.
"""
from datetime import timedelta

import django.db.models.deletion
import django.db.models.functions.datetime
from django.conf import settings
from django.db import migrations, models
from django.utils import timezone

_DAY = {"postgresql": "(at AT TIME ZONE 'UTC')::date", "sqlite": "date(at)"}
# A session of old rows: their client addresses and UTC hour (no User-Agent was kept).
_SESSION = {"postgresql": "client_ips || to_char(at AT TIME ZONE 'UTC', 'HH24')",
            "sqlite": "client_ips || strftime('%H', at)"}


def to_daily_counts(apps, schema_editor):
    connection = schema_editor.connection
    day = _DAY.get(connection.vendor, "CAST(at AS DATE)")
    session = _SESSION.get(connection.vendor, "client_ips")
    cutoff = timezone.now() - timedelta(seconds=settings.IBI_URLKEY_MAX_AGE + 120)
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO archive_dailyaccesscount (item_id, day, kind, n, unique_n)"
            f" SELECT item_id, {day}, kind, COUNT(*), COUNT(DISTINCT {session})"
            " FROM archive_access"
            f" GROUP BY item_id, {day}, kind")
        cursor.execute(
            "INSERT INTO archive_acknowledgedurlkey (urlkey, at)"
            " SELECT urlkey, MAX(at) FROM archive_access"
            " WHERE urlkey IS NOT NULL AND at >= %s GROUP BY urlkey",
            [connection.ops.adapt_datetimefield_value(cutoff)])


def to_access_rows(apps, schema_editor):
    connection = schema_editor.connection
    columns = "INSERT INTO archive_access (item_id, kind, relation, urlkey, client_ips, at)"
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                f"{columns} SELECT d.item_id, d.kind, '', NULL, '',"
                " (d.day + time '12:00') AT TIME ZONE 'UTC'"
                " FROM archive_dailyaccesscount d, generate_series(1, d.n)")
        else:
            cursor.execute(
                "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k"
                " WHERE i < (SELECT MAX(n) FROM archive_dailyaccesscount))"
                f" {columns} SELECT d.item_id, d.kind, '', NULL, '', d.day || ' 12:00:00'"
                " FROM archive_dailyaccesscount d JOIN k ON k.i <= d.n")


class Migration(migrations.Migration):

    dependencies = [
        ('archive', '0007_full_text_search'),
    ]

    operations = [
        migrations.CreateModel(
            name='AcknowledgedUrlkey',
            fields=[
                ('urlkey', models.CharField(max_length=64, primary_key=True, serialize=False)),
                ('at', models.DateTimeField(db_default=django.db.models.functions.datetime.Now(), db_index=True)),
            ],
        ),
        migrations.CreateModel(
            name='DailyAccessCount',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('day', models.DateField()),
                ('kind', models.CharField(choices=[('download', 'download'), ('acknowledgment', 'acknowledgment')], max_length=16)),
                ('n', models.PositiveBigIntegerField(db_default=0, default=0)),
                ('unique_n', models.PositiveBigIntegerField(db_default=0, default=0)),
                ('item', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='access_counts', to='archive.item')),
            ],
        ),
        migrations.AddConstraint(
            model_name='dailyaccesscount',
            constraint=models.UniqueConstraint(fields=('item', 'day', 'kind'), name='daily_access_count_once'),
        ),
        migrations.RunPython(to_daily_counts, to_access_rows, elidable=False),
        migrations.DeleteModel(
            name='Access',
        ),
    ]
