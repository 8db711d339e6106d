"""`manage.py identifyformats [--all | --due | IBI …]` — each file's format from its content.

The files of the items named (an IBI in either form), of every item (`--all`), or those never
identified (`--due`, what the beat's task does), every bundle's, are read by siegfried
(archive/preservation/formats.py): PRONOM's identifier, name, version and MIME type stored on
the file, and a "format identification" event recorded for each. Prints each file with its
PUID (or why it has none), then how many were identified. Idempotent: a second run records
another event and the same format.
"""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from archive.deposit.selectors import item_by_ibi
from archive.models import ItemFile
from archive.preservation import formats


class Command(BaseCommand):
    help = __doc__.split("\n\n")[0].strip("` ")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("ibis", nargs="*", metavar="IBI")
        parser.add_argument("--all", action="store_true", help=_("every item's files"))
        parser.add_argument("--due", action="store_true",
                            help=_("the files never identified yet"))

    def handle(self, *args, ibis: list[str], all: bool, due: bool, **options) -> None:
        if sum((bool(ibis), all, due)) != 1:
            raise CommandError(_("name IBIs, or --all, or --due"))
        rows = self._files(ibis, all, due)
        rows = list(rows)
        count, unknown = len(rows), 0
        for first in range(0, count, formats.BATCH):  # one siegfried run a batch
            batch = rows[first:first + formats.BATCH]
            for row, found in zip(batch, formats.identify_files(batch), strict=True):
                unknown += not found.puid
                self.stdout.write(f"{row.item.ibi} {row.name}: "
                                  + (f"{found.puid} {found.name} {found.version}".rstrip()
                                     if found.puid else _("not identified (%(why)s)")
                                     % {"why": found.note}))
        self.stdout.write(ngettext("%(count)d file identified, %(unknown)d without a format",
                                   "%(count)d files identified, %(unknown)d without a format",
                                   count) % {"count": count, "unknown": unknown})

    @staticmethod
    def _files(ibis: list[str], all: bool, due: bool):
        rows = ItemFile.every_bundle.select_related("item").order_by("pk")
        if due:
            return rows.filter(format_identified__isnull=True)
        if all:
            return rows
        items = []
        for ibi in ibis:
            item = item_by_ibi(ibi)
            if item is None:
                raise CommandError(_("%(ibi)s: no such item here") % {"ibi": ibi})
            items.append(item.pk)
        return rows.filter(item_id__in=items)
