"""`manage.py extracttext [--all | --due | IBI …]` — read the text of files, page by page.

Each file of the items named (an IBI in either form), of every item (`--all`), or the files
never read yet (`--due`, what the beat's task does) is read again in the sandbox
(archive/fulltext/): its text layer, OCR of its pages without text, DSpace's TEXT bundle where
an import kept one; its thumbnail is made again too. Prints each file with how it went (a
failure with its reason), then how many were read and how many are flagged for a librarian.
Idempotent: a second run replaces what the first recorded.
"""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from archive.deposit.selectors import item_by_ibi
from archive.fulltext import sandbox, services
from archive.models import ItemFile


class Command(BaseCommand):
    help = __doc__.split("\n\n")[0].strip("` ")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("ibis", nargs="*", metavar="IBI")
        parser.add_argument("--all", action="store_true", help=_("every item's files"))
        parser.add_argument("--due", action="store_true", help=_("the files never read yet"))

    def handle(self, *args, ibis: list[str], all: bool, due: bool, **options) -> None:
        if sum((bool(ibis), all, due)) != 1:
            raise CommandError(_("name IBIs, or --all, or --due"))
        if not sandbox.network_isolated():
            self.stderr.write(_("warning: no network namespace can be made here: the "
                                "extraction runs without network isolation"))
        files = self._files(ibis, all, due)
        flagged = 0
        for pk, name in files:
            row = services.process(pk)
            if row is None:
                continue
            flagged += row.flagged
            line = f"{name}: {row.get_state_display()}"
            if row.reason:
                line += f" ({row.reason})"
            self.stdout.write(line)
        self.stdout.write(ngettext("%(count)d file read, %(flagged)d flagged",
                                   "%(count)d files read, %(flagged)d flagged", len(files))
                          % {"count": len(files), "flagged": flagged})

    @staticmethod
    def _files(ibis: list[str], all: bool, due: bool) -> list[tuple[int, str]]:
        if due:
            rows = services.due()
        elif all:
            rows = ItemFile.objects.order_by("pk")
        else:
            items = []
            for ibi in ibis:
                item = item_by_ibi(ibi)
                if item is None:
                    raise CommandError(_("%(ibi)s: no such item") % {"ibi": ibi})
                items.append(item)
            rows = ItemFile.objects.filter(item__in=items).order_by("pk")
        return [(pk, f"{ibi}/doc/{name}") for pk, ibi, name in rows.values_list(
            "pk", "item__ibi", "name")]
