"""Requests for a copy reach someone (issue 43): a collection's request handlers (the
addresses told of each request for a copy of its items), and the notices owed to them, one per
request and address (archive/access/notices.py)."""
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('archive', '0036_submission_profiles'),
    ]

    operations = [
        migrations.AddField(
            model_name='collection',
            name='request_handlers',
            field=models.TextField(blank=True, db_default='', default='', help_text="email addresses told of each request for a copy of its items, one a line; empty: the repository's (IBI_REQUEST_HANDLERS, else the librarians who may answer requests)", verbose_name='request handlers'),
        ),
        migrations.CreateModel(
            name='RequestNotice',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('email', models.EmailField(db_index=True, max_length=254, verbose_name='email')),
                ('created', models.DateTimeField(auto_now_add=True, verbose_name='created')),
                ('sent_at', models.DateTimeField(blank=True, db_index=True, null=True, verbose_name='sent')),
                ('attempts', models.PositiveSmallIntegerField(db_default=0, default=0, verbose_name='mail attempts')),
                ('request', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='notices', to='archive.accessrequest', verbose_name='request')),
            ],
            options={
                'verbose_name': 'request notice',
                'verbose_name_plural': 'request notices',
                'ordering': ['id'],
                'constraints': [models.UniqueConstraint(fields=('request', 'email'), name='requestnotice_once_per_address')],
            },
        ),
    ]
