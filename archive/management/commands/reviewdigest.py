"""`manage.py reviewdigest [--today YYYY-MM-DD]` — mail each reviewer the digest of what waits
in their pools.

What the beat's task `review_digest` does every morning (archive/review/notices.py): each
person holding a reviewing role (reviewer, editor, collection administrator) with an email
address and something waiting is owed one digest of the day, then every review notice owed
is mailed. A second run the same day writes no second digest; a mail the server refused stays
owed and goes at the next run. Prints how many digests were written and mails sent.
"""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandParser
from django.utils.translation import ngettext

from archive.management.base import day_argument, day_of
from archive.review import notices


class Command(BaseCommand):
    help = __doc__.split("\n\n")[0].strip("` ")

    def add_arguments(self, parser: CommandParser) -> None:
        day_argument(parser, "write the digest")

    def handle(self, *args, today: str | None, **options) -> None:
        written = notices.digest(day_of(today))
        sent = notices.mail_due()
        self.stdout.write(ngettext("%(count)d digest written", "%(count)d digests written",
                                   written) % {"count": written})
        self.stdout.write(ngettext("%(count)d mail sent", "%(count)d mails sent", sent)
                          % {"count": sent})
