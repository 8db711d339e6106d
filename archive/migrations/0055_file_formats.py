"""Each file's format from its content (issue 38, 2): PRONOM PUID, name, version and MIME type,
and when siegfried said so (archive/preservation/formats.py).

Literal SQL, which both SQLite and PostgreSQL read (as 0035 does): Django's AddField of a
column with a default rebuilds the whole table on SQLite, dropping the triggers of 0007 and
0012 on archive_itemfile."""
from django.db import migrations, models

COLUMNS = [
    ("format_puid", "varchar(32) DEFAULT '' NOT NULL"),
    ("format_name", "varchar(255) DEFAULT '' NOT NULL"),
    ("format_version", "varchar(64) DEFAULT '' NOT NULL"),
    ("format_mime", "varchar(255) DEFAULT '' NOT NULL"),
    ("format_identified", "timestamp with time zone NULL"),
]


class Migration(migrations.Migration):

    dependencies = [
        ("archive", "0054_premis_events"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunSQL(f"ALTER TABLE archive_itemfile ADD COLUMN {column} {kind}",
                                  f"ALTER TABLE archive_itemfile DROP COLUMN {column}")
                for column, kind in COLUMNS
            ],
            state_operations=[
                migrations.AddField(
                    model_name="itemfile", name="format_puid",
                    field=models.CharField(blank=True, db_default="", default="", max_length=32,
                                           verbose_name="PRONOM format")),
                migrations.AddField(
                    model_name="itemfile", name="format_name",
                    field=models.CharField(blank=True, db_default="", default="",
                                           max_length=255, verbose_name="format")),
                migrations.AddField(
                    model_name="itemfile", name="format_version",
                    field=models.CharField(blank=True, db_default="", default="", max_length=64,
                                           verbose_name="format version")),
                migrations.AddField(
                    model_name="itemfile", name="format_mime",
                    field=models.CharField(blank=True, db_default="", default="",
                                           max_length=255, verbose_name="format's MIME type")),
                migrations.AddField(
                    model_name="itemfile", name="format_identified",
                    field=models.DateTimeField(blank=True, null=True,
                                               verbose_name="format identified")),
            ],
        ),
    ]
