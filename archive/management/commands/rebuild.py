"""`manage.py rebuild <folder>` — recreate the database from a tree of BagIt bags.

The tree is what `exportbags` writes: <folder>/col/<repository name>/ bags with an
ibi-item.json record each (archive/preservation/bagit.py). Every bag is validated (all
checksums); its files are stored under col/<repository name>/doc/ (files already stored with
the right sha256 are kept) and its item recreated with its Dublin Core, files, edition and
translation links, state, timestamps and both IBI forms. Items already in the database are left
alone, so a rebuild can be run again after fixing a bag. Minting moves past the newest restored IBI.
Exit status 1 if any bag failed.
"""
from __future__ import annotations

import logging
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from archive.preservation import bagit


class Command(BaseCommand):
    help = __doc__.split("\n\n")[0].strip("` ")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("folder", type=Path, help="the tree holding col/")

    def handle(self, *args, folder: Path, **options) -> None:
        logging.getLogger("bagit").setLevel(logging.WARNING)
        if not (folder / "col").is_dir():
            raise CommandError(_("%(folder)s holds no col/ folder: not a tree of bags")
                               % {"folder": folder})
        report = bagit.rebuild(folder)
        for where, why in sorted(report.failed.items()):
            self.stdout.write(_("failed    %(ibi)s: %(reason)s") % {"ibi": where, "reason": why})
        for ibi in report.existing:
            self.stdout.write(_("exists    %(ibi)s") % {"ibi": ibi})
        if report.other_service:
            self.stdout.write(_("kept      this Archive's own archive service; the tree's, "
                                "%(ibi)s, is taken over only by an empty one")
                              % {"ibi": report.other_service})
        self.stdout.write(_(
            "%(created)d items rebuilt (%(stored)d files stored, %(kept)d already stored), "
            "%(existing)d already here, %(failed)d failed") % {
                "created": len(report.created), "stored": report.files_stored,
                "kept": report.files_kept, "existing": len(report.existing),
                "failed": len(report.failed)})
        if report.failed:
            raise CommandError(ngettext("%(count)d bag could not be rebuilt",
                                        "%(count)d bags could not be rebuilt",
                                        len(report.failed)) % {"count": len(report.failed)})
