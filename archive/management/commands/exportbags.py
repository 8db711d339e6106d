"""`manage.py exportbags <folder> [IBI …] [--force]` — the collection as BagIt bags.

Writes one bag per item (all items, tombstones and the archive service included, unless IBIs
are given) at <folder>/col/<repository name>/, the layout archive/preservation/bagit.py
describes, with manifest-sha256. An item whose bag already holds its current record is skipped
(files never change in place); --force writes every bag again. `manage.py rebuild <folder>`
recreates the database from such a tree. Exit status 1 if any item could not be exported.
"""
from __future__ import annotations

import logging
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from archive.deposit import selectors
from archive.models import Item
from archive.preservation import bagit


class Command(BaseCommand):
    help = __doc__.split("\n\n")[0].strip("` ")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("folder", type=Path)
        parser.add_argument("ibis", nargs="*", metavar="IBI", help="only these items")
        parser.add_argument("--force", action="store_true", help="rewrite unchanged bags too")

    def handle(self, *args, folder: Path, ibis: list[str], force: bool, **options) -> None:
        logging.getLogger("bagit").setLevel(logging.WARNING)  # one line per bag is enough
        if ibis:
            items = []
            for text in ibis:
                item = selectors.item_by_ibi(text)
                if item is None:
                    raise CommandError(_("no item here has the IBI %(ibi)r") % {"ibi": text})
                items.append(item)
        else:
            items = Item.objects.order_by("pk").iterator(chunk_size=200)
        folder.mkdir(parents=True, exist_ok=True)
        written = same = failed = 0
        for item in items:
            try:
                changed = bagit.export_item(item, folder, force=force)
            except (bagit.BagFailure, OSError) as exc:
                failed += 1
                self.stdout.write(_("failed    %(ibi)s: %(reason)s") % {"ibi": item.ibi,
                                                                        "reason": exc})
                continue
            written += changed
            same += not changed
            if changed:
                self.stdout.write(_("exported  col/%(ibi)s") % {"ibi": item.ibi})
        self.stdout.write(_("%(written)d bags written, %(same)d unchanged, %(failed)d failed")
                          % {"written": written, "same": same, "failed": failed})
        if failed:
            raise CommandError(ngettext("%(count)d item could not be exported",
                                        "%(count)d items could not be exported", failed)
                               % {"count": failed})
