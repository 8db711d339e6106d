"""Access levels (issue 26): an item's access (open, embargoed, restricted, metadata only),
its embargo's end and reason, a file's restriction; access requests, secret links and the
audit trail of reads of closed files.

The four columns are added by literal SQL, which both SQLite and PostgreSQL read: Django's
AddField of a column with a default rebuilds the whole table on SQLite, dropping the triggers
of 0007 (search) and 0012 (the change token) with it; ``ADD COLUMN … DEFAULT … NOT NULL``
keeps them, and costs PostgreSQL no rewrite either.
"""
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

COLUMNS = [
    ("archive_item", "access_rights", "varchar(16) DEFAULT 'open' NOT NULL"),
    ("archive_item", "embargo_until", "date NULL"),
    ("archive_item", "access_reason", "varchar(1000) DEFAULT '' NOT NULL"),
    ("archive_itemfile", "restricted", "boolean DEFAULT false NOT NULL"),
]


class Migration(migrations.Migration):

    dependencies = [
        ('archive', '0013_idempotency_status'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunSQL(f"ALTER TABLE {table} ADD COLUMN {column} {definition}",
                                  f"ALTER TABLE {table} DROP COLUMN {column}")
                for table, column, definition in COLUMNS],
            state_operations=[
                migrations.AddField(
                    model_name='item',
                    name='access_reason',
                    field=models.CharField(blank=True, db_default='', default='', max_length=1000, verbose_name='reason for the access level'),
                ),
                migrations.AddField(
                    model_name='item',
                    name='access_rights',
                    field=models.CharField(choices=[('open', 'open'), ('embargoed', 'embargoed'), ('restricted', 'restricted'), ('metadata-only', 'metadata only')], db_default='open', default='open', max_length=16, verbose_name='access'),
                ),
                migrations.AddField(
                    model_name='item',
                    name='embargo_until',
                    field=models.DateField(blank=True, help_text='the first day the files are open to all', null=True, verbose_name='embargoed until'),
                ),
                migrations.AddField(
                    model_name='itemfile',
                    name='restricted',
                    field=models.BooleanField(db_default=False, default=False, verbose_name='restricted'),
                ),
            ],
        ),
        migrations.CreateModel(
            name='AccessLink',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('token_hash', models.CharField(editable=False, max_length=64, unique=True, verbose_name='token hash')),
                ('note', models.CharField(blank=True, default='', max_length=1000, verbose_name='note')),
                ('expires', models.DateField(help_text='the first day it no longer works', verbose_name='expires')),
                ('created', models.DateTimeField(auto_now_add=True, verbose_name='created')),
                ('revoked_at', models.DateTimeField(blank=True, null=True, verbose_name='revoked')),
                ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='created by')),
                ('item', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='access_links', to='archive.item', verbose_name='item')),
            ],
            options={
                'verbose_name': 'secret link',
                'verbose_name_plural': 'secret links',
                'ordering': ['-created', '-id'],
            },
        ),
        migrations.CreateModel(
            name='AccessRead',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('file_name', models.CharField(max_length=255, verbose_name='file')),
                ('at', models.DateTimeField(db_index=True, verbose_name='when')),
                ('who', models.CharField(blank=True, default='', max_length=150, verbose_name='who')),
                ('item', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='archive.item', verbose_name='item')),
                ('link', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='reads', to='archive.accesslink', verbose_name='secret link')),
                ('user', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='user')),
            ],
            options={
                'verbose_name': 'read of a closed file',
                'verbose_name_plural': 'reads of closed files',
                'ordering': ['-at', '-id'],
            },
        ),
        migrations.CreateModel(
            name='AccessRequest',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(max_length=200, verbose_name='name')),
                ('email', models.EmailField(max_length=254, verbose_name='email')),
                ('reason', models.TextField(max_length=2000, verbose_name='reason')),
                ('language', models.CharField(blank=True, default='', max_length=8, verbose_name='language')),
                ('created', models.DateTimeField(auto_now_add=True, db_index=True, verbose_name='asked')),
                ('status', models.CharField(choices=[('pending', 'waiting'), ('approved', 'approved'), ('refused', 'refused')], db_index=True, default='pending', max_length=8, verbose_name='status')),
                ('decided_at', models.DateTimeField(blank=True, null=True, verbose_name='answered')),
                ('message', models.TextField(blank=True, default='', verbose_name='message to the reader')),
                ('mailed_at', models.DateTimeField(blank=True, null=True, verbose_name='answer mailed')),
                ('decided_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='answered by')),
                ('item', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='access_requests', to='archive.item', verbose_name='item')),
            ],
            options={
                'verbose_name': 'access request',
                'verbose_name_plural': 'access requests',
                'ordering': ['-created', '-id'],
            },
        ),
        migrations.AddField(
            model_name='accesslink',
            name='request',
            field=models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='link', to='archive.accessrequest', verbose_name='request'),
        ),
    ]
