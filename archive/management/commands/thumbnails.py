"""`manage.py thumbnails [--all | IBI …]` — make the thumbnails of files again.

The first page of each PDF, each image, small, as WebP (archive/fulltext/services.py), or
DSpace's THUMBNAIL where an import kept one; of the items named, or of every item (`--all`).
Prints each file with its thumbnail's problem if it has one, then how many were made.
"""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from archive.fulltext import services
from archive.management.commands.extracttext import Command as Extract


class Command(BaseCommand):
    help = __doc__.split("\n\n")[0].strip("` ")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("ibis", nargs="*", metavar="IBI")
        parser.add_argument("--all", action="store_true", help=_("every item's files"))

    def handle(self, *args, ibis: list[str], all: bool, **options) -> None:
        if bool(ibis) == all:
            raise CommandError(_("name IBIs, or --all"))
        made = 0
        for pk, name in Extract._files(ibis, all, due=False):
            row = services.make_thumbnail(pk)
            if row is None:
                continue
            made += bool(row.thumbnail)
            if row.thumbnail_problem:
                self.stdout.write(f"{name}: {row.thumbnail_problem}")
        self.stdout.write(ngettext("%(count)d thumbnail", "%(count)d thumbnails", made)
                          % {"count": made})
