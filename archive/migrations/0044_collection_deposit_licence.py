import django.core.validators
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('archive', '0043_submission_checks'),
    ]

    operations = [
        migrations.AddField(
            model_name='collection',
            name='deposit_licence',
            field=models.TextField(blank=True, db_default='', default='', help_text='the terms a submitter accepts, in full; kept with each submission as accepted; empty: submissions here cannot be submitted', verbose_name='deposit licence'),
        ),
        migrations.AddField(
            model_name='collection',
            name='max_embargo_days',
            field=models.PositiveIntegerField(db_default=730, default=730, help_text='counted from the day of the submission; 0: submitters choose no embargo', validators=[django.core.validators.MaxValueValidator(36500)], verbose_name='longest embargo a submitter may choose (days)'),
        ),
    ]
