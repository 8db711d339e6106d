"""Item.creators_withdrawn: deleted at its creators' request, the tombstone cites it without
their names. Added by plain SQL that both databases read: SQLite would otherwise rebuild
archive_item, and the search and change triggers of 0007 and 0012 with it."""
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("archive", "0018_controlled_values"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunSQL(
                "ALTER TABLE archive_item ADD COLUMN creators_withdrawn boolean NOT NULL "
                "DEFAULT false",
                "ALTER TABLE archive_item DROP COLUMN creators_withdrawn")],
            state_operations=[migrations.AddField(
                model_name="item",
                name="creators_withdrawn",
                field=models.BooleanField(db_default=False, default=False, editable=False,
                                          verbose_name="removed at its creators' request"),
            )],
        ),
    ]
