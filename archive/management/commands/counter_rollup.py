"""`manage.py counter_rollup [--month YYYY-MM]` — roll up usage for the COUNTER reports.

Without --month: every month before this one (UTC) that has counts and was not rolled up
after its end, as the Celery beat task `roll-up-months` does on day 1 of each month. With
--month: that month, again if it was before (its rows are replaced: idempotent). Prints each
month and how many item rows it wrote.
"""
from __future__ import annotations

from datetime import UTC, date, datetime

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _

from archive.usage import counter, rollup


class Command(BaseCommand):
    help = __doc__.split("\n\n")[0].strip("` ")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--month", metavar="YYYY-MM", help=_("roll up this month"))

    def handle(self, *args, month: str | None, **options) -> None:
        counter.flush()
        if month:
            try:
                months = [date.fromisoformat(f"{month}-01")]
            except ValueError:
                raise CommandError(_("--month %(value)r is not YYYY-MM")
                                   % {"value": month}) from None
        else:
            months = rollup.months_due(datetime.now(UTC).date())
        for first in months:
            rows = rollup.roll_up(first)
            self.stdout.write(f"{first:%Y-%m}: {rows}")
