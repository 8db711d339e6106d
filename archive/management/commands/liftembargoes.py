"""`manage.py liftembargoes [--today YYYY-MM-DD]` — open every item whose embargo has ended.

An embargoed Original whose embargo_until (its first open day) is today or before, in
TIME_ZONE, becomes open; its datestamp moves, so harvesters and every kept answer see it.
Prints each IBI opened, then how many. Idempotent, safe to run at any time: the Celery beat
task `lift-embargoes` runs the same shortly after midnight. A Copy follows its Original (on
the next refresh). `--today` lifts as of another day (a test, a catch-up).
"""
from __future__ import annotations

from datetime import date

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from archive.access import services


class Command(BaseCommand):
    help = __doc__.split("\n\n")[0].strip("` ")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--today", metavar="YYYY-MM-DD",
                            help="lift as of this day instead of today in TIME_ZONE")

    def handle(self, *args, today: str | None, **options) -> None:
        try:
            day = date.fromisoformat(today) if today else None
        except ValueError:
            raise CommandError(_("--today %(value)r is not a date YYYY-MM-DD")
                               % {"value": today}) from None
        opened = services.lift_embargoes(today=day)
        for ibi in opened:
            self.stdout.write(ibi)
        self.stdout.write(ngettext("%(count)d embargo lifted", "%(count)d embargoes lifted",
                                   len(opened)) % {"count": len(opened)})
