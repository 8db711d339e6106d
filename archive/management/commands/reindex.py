"""`manage.py reindex [--missing] [--after ID] [--batch N]` — rebuild the search entries.

The database keeps them current on every write (triggers, also under COPY); run this after
a load with the triggers disabled or a TRUNCATE, or after the text search rules changed.
Safe while the site serves: one short transaction per batch of items, by ascending id.
Interrupted, it loses at most one batch: run it again with --missing, or --after the last id
it printed.
"""
from __future__ import annotations

from django.core.management.base import CommandError, CommandParser
from tqdm import tqdm

from archive.management.base import DocumentedCommand
from archive.search import index


class Command(DocumentedCommand):
    help = __doc__

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--missing", action="store_true",
                            help="only the items that have no search entry")
        parser.add_argument("--after", type=int, default=0, metavar="ID",
                            help="start after this item id (resume)")
        parser.add_argument("--batch", type=int, default=index.BATCH, metavar="N",
                            help=f"items per transaction (default {index.BATCH})")

    def handle(self, *args, missing: bool, after: int, batch: int, **options) -> None:
        if batch < 1 or after < 0:
            raise CommandError("--batch takes a positive number, --after an id from 0")
        last = index.last_id()
        # Progress over the id range: counting a million rows first is what this avoids.
        bar = tqdm(total=max(last - after, 0), unit="id", file=self.stderr,
                   disable=options["verbosity"] == 0)
        position = after

        def done(ids: list[int]) -> None:
            nonlocal position
            bar.update(min(ids[-1], last) - position)
            bar.set_postfix(last_id=ids[-1])
            position = min(ids[-1], last)

        try:
            rebuilt = index.reindex(after=after, missing=missing, size=batch, done=done)
        except KeyboardInterrupt:
            bar.close()
            raise CommandError(f"interrupted: resume with --after {position}") from None
        bar.close()
        self.stdout.write(f"{rebuilt} items reindexed")
