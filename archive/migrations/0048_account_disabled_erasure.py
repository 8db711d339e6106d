from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("archive", "0047_file_text"),
    ]

    operations = [
        migrations.AddField(
            model_name="account", name="disabled_at",
            field=models.DateTimeField(blank=True, null=True, verbose_name="disabled")),
        migrations.AddField(
            model_name="account", name="disabled_reason",
            field=models.TextField(blank=True, db_default="", default="",
                                   verbose_name="why it is disabled")),
        migrations.AddField(
            model_name="account", name="erasure_requested_at",
            field=models.DateTimeField(blank=True, db_index=True, null=True,
                                       verbose_name="erasure asked for")),
        migrations.AddField(
            model_name="account", name="erased_at",
            field=models.DateTimeField(blank=True, null=True,
                                       verbose_name="personal data erased")),
    ]
