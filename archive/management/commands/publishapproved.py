"""`manage.py publishapproved [--today YYYY-MM-DD]` — publish the approved submissions whose
collection publishes on a day that has come.

A collection's workflow may publish on a day (Admin → Workflows → publish on): its approved
submissions wait, "approved, not yet published", until then. This deposits each one whose
day has come (archive/review/services.py `publish_due`: its IBI is minted now), prints the IBI
of each, then how many; one that cannot be published (an upload gone) is named with the
reason and stays approved for the next run. Idempotent, safe to run at any time. `--today`
publishes as of another day (a test, a catch-up).
"""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from archive.management.base import day_argument, day_of
from archive.review import services


class Command(BaseCommand):
    help = __doc__.split("\n\n")[0].strip("` ")

    def add_arguments(self, parser: CommandParser) -> None:
        day_argument(parser, "publish")

    def handle(self, *args, today: str | None, **options) -> None:
        day = day_of(today)
        published, refused = services.publish_due(today=day)
        for submission in published:
            self.stdout.write(submission.item.ibi)
        for pk, reason in refused:
            self.stdout.write(_("submission %(id)s not published: %(reason)s")
                              % {"id": pk, "reason": reason})
        self.stdout.write(ngettext("%(count)d published", "%(count)d published",
                                   len(published)) % {"count": len(published)})
        if refused:
            raise CommandError(ngettext("%(count)d submission could not be published",
                                        "%(count)d submissions could not be published",
                                        len(refused)) % {"count": len(refused)})
