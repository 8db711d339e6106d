"""Django's `flush`, allowed to empty the append-only tables (archive/db/append_only.py):
the suite cleans the database with it between transactional tests, an operator empties a
database with it on purpose. Nothing else in the app deletes a PREMIS event."""
from __future__ import annotations

from django.core.management.commands.flush import Command as Flush

from ...db import append_only


class Command(Flush):
    def handle(self, **options):
        with append_only.flushing():
            return super().handle(**options)
