"""`manage.py migrateitem <IBI> --from <base URL> --token <API token>` — take over an Original.

Run at the Archive that is to hold the Original. It copies the item from the Archive holding
it (as `copyitem` does), then asks that Archive, with a token of a librarian there allowed to
change and delete items, to hand the Original over: it checks that this Archive holds a
complete, current Copy and turns its own record into a Copy of ours; only then does our record
become the Original. Never two Originals; the moment without one is a single HTTP answer (see
archive/preservation/migration.py). If anything stops it midway, run it again: it finishes what
was started.

--self-url is this Archive's base URL as the other one must reach it (default: from
ARCHIVE_ADDRESS). The token may also come from the environment variable IBI_PEER_TOKEN, which
keeps it out of the process list.
"""
from __future__ import annotations

import os

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _

from archive.deposit import services
from archive.preservation import migration


class Command(BaseCommand):
    help = __doc__.split("\n\n")[0].strip("` ")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("ibi", help="the item's IBI, either form")
        parser.add_argument("--from", dest="source", metavar="URL", required=True,
                            help="base URL of the Archive holding the Original")
        parser.add_argument("--token", help="API token at that Archive (or IBI_PEER_TOKEN)")
        parser.add_argument("--self-url", metavar="URL",
                            help="this Archive's base URL as seen from the other one")

    def handle(self, *args, ibi: str, source: str, token: str | None, self_url: str | None,
               **options) -> None:
        token = token or os.environ.get("IBI_PEER_TOKEN")
        if not token:
            raise CommandError(_("the other Archive wants an API token: --token or "
                                 "IBI_PEER_TOKEN"))
        try:
            result = migration.migrate_item(ibi=ibi, source=source, token=token,
                                            self_url=self_url)
        except services.ServiceError as exc:
            raise CommandError(str(exc)) from None
        item = result.item
        if result.outcome == "promoted":
            self.stdout.write(_("%(ibi)s: the Original is here now; %(source)s holds a Copy")
                              % {"ibi": item.ibi, "source": source})
        else:
            self.stdout.write(_("%(ibi)s: already the Original here; nothing to do")
                              % {"ibi": item.ibi})
