"""`manage.py ocfl export PATH` | `ocfl rebuild PATH` | `ocfl validate PATH` — the collection as
an OCFL 1.1 storage root (archive/preservation/ocfl.py).

export    writes the storage root at PATH (a missing or empty folder, or a root written
          before, which is updated: only objects whose items changed get new versions)
rebuild   recreates the items, files, collections and events a root holds, in a fresh
          instance: the whole root is validated first (ocfl-py, every digest); anything
          wrong stops it naming the object, with nothing written
validate  ocfl-py's validation of the root: its errors and warnings (exit status 1 on any)
"""
from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _

from archive.preservation import ocfl


class Command(BaseCommand):
    help = __doc__.split("\n\n")[0].strip("` ")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("action", choices=["export", "rebuild", "validate"])
        parser.add_argument("path", type=Path, help="the OCFL storage root")

    def handle(self, *args, action: str, path: Path, **options) -> None:
        try:
            getattr(self, action)(path)
        except ocfl.OcflFailure as exc:
            raise CommandError(str(exc)) from None

    def export(self, path: Path) -> None:
        report = ocfl.export(path)
        self.stdout.write(_("%(written)d objects written (%(versions)d new versions), "
                            "%(unchanged)d unchanged") % {
            "written": report.objects_written, "versions": report.versions,
            "unchanged": report.objects_unchanged})

    def rebuild(self, path: Path) -> None:
        report = ocfl.rebuild(path)
        for ibi in report.existing:
            self.stdout.write(_("exists    %(ibi)s") % {"ibi": ibi})
        if report.other_service:
            self.stdout.write(_("kept      this Archive's own archive service; the root's, "
                                "%(ibi)s, is taken over only by an empty one")
                              % {"ibi": report.other_service})
        self.stdout.write(_("%(created)d items rebuilt (%(stored)d files stored, %(events)d "
                            "events), %(existing)d already here") % {
            "created": len(report.created), "stored": report.files_stored,
            "events": report.events, "existing": len(report.existing)})

    def validate(self, path: Path) -> None:
        report = ocfl.validate(path)
        for message in report.errors + report.warnings:
            self.stdout.write(message)
        self.stdout.write(_("%(objects)d objects: %(errors)d errors, %(warnings)d warnings") % {
            "objects": report.objects, "errors": len(report.errors),
            "warnings": len(report.warnings)})
        if report.errors or report.warnings:
            raise CommandError(_("the storage root is not valid"))
