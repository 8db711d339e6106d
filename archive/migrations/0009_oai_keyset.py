"""OAI-PMH's keyset pages (issue 12, item 3): an index on (updated, id) of the public items.

A page is `(updated, id) > (last served) ORDER BY updated, id LIMIT n`
(archive/harvest/selectors.py `page`). The index on `updated` alone serves it only while
datestamps are nearly unique: items sharing one datestamp (a collection loaded by COPY in one
go) would be sorted again on every page, so a page would cost in proportion to the ties. On
this index the comparison is one index range, in order, whatever the depth and the ties.
"""
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("archive", "0008_daily_access_counts"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="item",
            index=models.Index(condition=models.Q(("is_archive_service", False)),
                               fields=["updated", "id"], name="item_oai_keyset"),
        ),
    ]
