"""`manage.py exportsaf <folder> [IBI …]` — items as DSpace's Simple Archive Format, which
DSpace's ItemImport reads (`dspace import -a -c <collection> -s <folder> -m mapfile`) and so
does `manage.py importsaf` on another repository.

Writes <folder>/item_<n>/ for every item (or those named): dublin_core.xml and
metadata_<schema>.xml, contents (the target file `primary:true`; the TEXT, THUMBNAIL and
LICENSE bundles an import kept, each `bundle:<name>`), handle (when the item came with one),
collections (its owning collection, then those it is mapped into: each one's DSpace Handle,
else its slug) and its files. Tombstones and the archive service are left out. What goes
where: archive/dspace/exports.py.
"""
from __future__ import annotations

from pathlib import Path

from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from archive.deposit import selectors
from archive.dspace import exports
from archive.management.base import DocumentedCommand


class Command(DocumentedCommand):
    help = __doc__

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("folder", type=Path)
        parser.add_argument("ibis", nargs="*", metavar="IBI", help="only these items")

    def handle(self, *args, folder: Path, ibis: list[str], **options) -> None:
        items = None
        if ibis:
            items = []
            for text in ibis:
                item = selectors.item_by_ibi(text)
                if item is None:
                    raise CommandError(_("no item here has the IBI %(ibi)r") % {"ibi": text})
                items.append(item)
        folder.mkdir(parents=True, exist_ok=True)
        count = 0
        for count, item in enumerate(exports.exportable(items), start=1):
            try:
                exports.export_item(item, folder / f"item_{count:06d}")
            except OSError as exc:
                raise CommandError(_("%(ibi)s could not be exported: %(reason)s")
                                   % {"ibi": item.ibi, "reason": exc}) from None
        self.stdout.write(ngettext("%(count)d item exported to %(folder)s",
                                   "%(count)d items exported to %(folder)s", count)
                          % {"count": count, "folder": folder})
