"""`manage.py copyitem <IBI> --from <base URL>` — copy an item held by another Archive.

The other Archive runs this software; its base URL is what its REST API lives under, e.g.
https://archive-b.example.org (its /api/items/<IBI> must answer). Every file is fetched and
its sha256 verified before it is stored; the row appears only when all files are here. Run it
again at any time: an interrupted copy is finished, a finished one is left as it is, a changed
original is refreshed. An IBI held here as Original is refused (exit status 1).

`manage.py copyitem --refresh` copies every Copy again from its source (what the hourly task
does); each line tells what happened to one copy. Exit status 1 if any failed.
"""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext_lazy

from archive.deposit import services
from archive.preservation import copies

OUTCOMES = {
    "created": pgettext_lazy("copy outcome", "created"),
    "updated": pgettext_lazy("copy outcome", "updated"),
    "unchanged": pgettext_lazy("copy outcome", "unchanged"),
    "deleted": pgettext_lazy("copy outcome", "deleted"),
    "promoted": pgettext_lazy("copy outcome", "promoted"),
}


def describe(ibi: str, result: copies.CopyResult) -> str:
    parts = [str(OUTCOMES.get(result.outcome, result.outcome))]
    if result.fetched:
        parts.append(ngettext("%(count)d file fetched", "%(count)d files fetched",
                              len(result.fetched)) % {"count": len(result.fetched)})
    if result.kept:
        parts.append(ngettext("%(count)d found stored already",
                              "%(count)d found stored already", len(result.kept))
                     % {"count": len(result.kept)})
    return f"{ibi}: {', '.join(parts)}"


class Command(BaseCommand):
    help = __doc__.split("\n\n")[0].strip("` ")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("ibi", nargs="?", help="the item's IBI, either form")
        parser.add_argument("--from", dest="source", metavar="URL",
                            help="base URL of the Archive holding it")
        parser.add_argument("--refresh", action="store_true",
                            help="copy every Copy again from its source")

    def handle(self, *args, ibi: str | None, source: str | None, refresh: bool,
               **options) -> None:
        if refresh:
            if ibi or source:
                raise CommandError(_("--refresh takes no IBI and no --from"))
            return self._refresh()
        if not ibi or not source:
            raise CommandError(_("give an IBI and --from <base URL of the Archive holding it>"))
        try:
            result = copies.copy_item(ibi=ibi, source=source)
        except services.ServiceError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(describe(result.item.ibi, result))

    def _refresh(self) -> None:
        failed = 0
        for ibi, result in copies.refresh_copies().items():
            if isinstance(result, Exception):
                failed += 1
                self.stdout.write(_("%(ibi)s: failed: %(reason)s") % {"ibi": ibi, "reason": result})
            else:
                self.stdout.write(describe(ibi, result))
        if failed:
            raise CommandError(ngettext("%(count)d copy could not be refreshed",
                                        "%(count)d copies could not be refreshed", failed)
                               % {"count": failed})
