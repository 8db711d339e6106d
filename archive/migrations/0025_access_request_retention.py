"""A request's personal data are kept IBI_ACCESS_REQUEST_DAYS (#42, 14): `erased_at` says when
the nightly task erased them. And the reader's name copied into other records goes: the note
of a link an approval made ("request of <name>", in English or Portuguese), and the admin's
history of requests, which named each by its reader (AccessRequest.__str__ does not now)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('archive', '0024_access_answer_mail_owed'),
        ('admin', '0003_logentry_add_action_flag_choices'),
        ('contenttypes', '0002_remove_content_type_name'),
    ]

    operations = [
        migrations.AddField(
            model_name='accessrequest',
            name='erased_at',
            field=models.DateTimeField(blank=True, null=True, verbose_name='personal data erased'),
        ),
        migrations.RunSQL(
            "UPDATE archive_accesslink SET note = '' WHERE request_id IS NOT NULL "
            "OR note LIKE 'request of %' OR note LIKE 'pedido de %'",
            migrations.RunSQL.noop, elidable=False),
        migrations.RunSQL(
            "UPDATE django_admin_log SET object_repr = 'access request ' || object_id "
            "WHERE content_type_id IN (SELECT id FROM django_content_type "
            "WHERE app_label = 'archive' AND model = 'accessrequest')",
            migrations.RunSQL.noop, elidable=False),
    ]
