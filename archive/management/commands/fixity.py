"""`manage.py fixity [--all | --oldest N]` — hash stored files again, oldest-checked first.

Prints one line per file that changed or went missing:

  changed  col/<rep>/doc/<name>: sha256 <found> (<n> bytes), recorded <sha256> (<n> bytes)
  missing  col/<rep>/doc/<name>

then a summary. Every check is kept (archive/preservation/fixity.py): the row records when it
was checked and what was found (the admin lists the problems), a FixityCheck row both digests
found, and a PREMIS fixity-check event its outcome. Exit status 1 when any checked file
changed or went missing. The daily task runs the 90-day scheduler's slice instead.
Without an option every file is checked (as --all).
"""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from archive.preservation import fixity


class Command(BaseCommand):
    help = __doc__.split("\n\n")[0].strip("` ")

    def add_arguments(self, parser: CommandParser) -> None:
        which = parser.add_mutually_exclusive_group()
        which.add_argument("--all", action="store_true", help="every file (the default)")
        which.add_argument("--oldest", type=int, metavar="N",
                           help="the N files checked longest ago (never checked first)")

    def handle(self, *args, all: bool, oldest: int | None, **options) -> None:
        if oldest is not None and oldest < 1:
            raise CommandError(_("--oldest takes a positive number of files"))
        checked = bad = 0
        for finding in fixity.check(oldest):
            checked += 1
            if not finding.ok:
                bad += 1
                kind, _colon, detail = finding.problem.partition(": ")
                self.stdout.write(f"{kind:<8} {finding.key}" + (f": {detail}" if detail else ""))
        self.stdout.write(ngettext("%(checked)d file checked: %(bad)d changed or missing",
                                   "%(checked)d files checked: %(bad)d changed or missing",
                                   checked) % {"checked": checked, "bad": bad})
        if bad:
            raise CommandError(ngettext("%(count)d file changed or missing",
                                        "%(count)d files changed or missing", bad)
                               % {"count": bad})
