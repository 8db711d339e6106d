"""Each file's format from its content (issue 38, 2): PRONOM PUID, name, version and MIME type,
and when siegfried said so (archive/preservation/formats.py)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("archive", "0054_premis_events"),
    ]

    operations = [
        migrations.AddField(
            model_name="itemfile", name="format_puid",
            field=models.CharField(blank=True, db_default="", default="", max_length=32,
                                   verbose_name="PRONOM format")),
        migrations.AddField(
            model_name="itemfile", name="format_name",
            field=models.CharField(blank=True, db_default="", default="", max_length=255,
                                   verbose_name="format")),
        migrations.AddField(
            model_name="itemfile", name="format_version",
            field=models.CharField(blank=True, db_default="", default="", max_length=64,
                                   verbose_name="format version")),
        migrations.AddField(
            model_name="itemfile", name="format_mime",
            field=models.CharField(blank=True, db_default="", default="", max_length=255,
                                   verbose_name="format's MIME type")),
        migrations.AddField(
            model_name="itemfile", name="format_identified",
            field=models.DateTimeField(blank=True, db_index=True, null=True,
                                       verbose_name="format identified")),
    ]
