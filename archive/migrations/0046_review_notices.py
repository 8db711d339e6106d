"""The review's mails owed (ReviewNotice: a transition's notice to whoever must act next, a
reviewer's daily digest; archive/review/notices.py), and the tasks by (closed, created, id)
for the reviewer's queue (bench/review_queue.py: a page of the oldest open tasks read in
order, no sort of every task waiting)."""
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('archive', '0045_identities'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='ReviewNotice',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(choices=[('transition', 'a transition'), ('digest', 'the daily digest')], max_length=10, verbose_name='kind')),
                ('email', models.EmailField(max_length=254, verbose_name='email')),
                ('digest_of', models.DateField(blank=True, null=True, verbose_name='digest of')),
                ('subject', models.CharField(max_length=200, verbose_name='subject')),
                ('body', models.TextField(verbose_name='body')),
                ('created', models.DateTimeField(auto_now_add=True, verbose_name='created')),
                ('sent_at', models.DateTimeField(blank=True, db_index=True, null=True, verbose_name='sent')),
                ('attempts', models.PositiveSmallIntegerField(db_default=0, default=0, verbose_name='mail attempts')),
                ('tried_at', models.DateTimeField(blank=True, null=True, verbose_name='last tried')),
            ],
            options={
                'verbose_name': 'review notice',
                'verbose_name_plural': 'review notices',
                'ordering': ['id'],
            },
        ),
        migrations.AddIndex(
            model_name='task',
            index=models.Index(fields=['closed', 'created', 'id'], name='task_by_age'),
        ),
        migrations.AddField(
            model_name='reviewnotice',
            name='submission',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='notices', to='archive.submission', verbose_name='submission'),
        ),
        migrations.AddField(
            model_name='reviewnotice',
            name='user',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='to'),
        ),
        migrations.AddConstraint(
            model_name='reviewnotice',
            constraint=models.UniqueConstraint(condition=models.Q(('digest_of__isnull', False)), fields=('user', 'digest_of'), name='one_review_digest_per_day'),
        ),
    ]
