"""`manage.py liftembargoes [--today YYYY-MM-DD]` — open every item whose embargo has ended.

An embargoed Original whose embargo_until (its first open day) is today or before, in
TIME_ZONE, becomes open; its datestamp moves, so harvesters and every kept answer see it.
Prints each IBI opened, then how many. Idempotent, safe to run at any time: the Celery beat
task `lift-embargoes` runs the same shortly after midnight. A Copy follows its Original (on
the next refresh). `--today` lifts as of another day (a test, a catch-up).
"""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandParser
from django.utils.translation import ngettext

from archive.access import services
from archive.management.base import day_argument, day_of


class Command(BaseCommand):
    help = __doc__.split("\n\n")[0].strip("` ")

    def add_arguments(self, parser: CommandParser) -> None:
        day_argument(parser, "lift")

    def handle(self, *args, today: str | None, **options) -> None:
        day = day_of(today)
        opened = services.lift_embargoes(today=day)
        for ibi in opened:
            self.stdout.write(ibi)
        self.stdout.write(ngettext("%(count)d embargo lifted", "%(count)d embargoes lifted",
                                   len(opened)) % {"count": len(opened)})
