"""`manage.py importsaf <folder or .zip> [--report FILE] [--collection SLUG]
[--map-collections FILE]` — a DSpace collection, as DSpace's ItemExport writes it (Simple
Archive Format), into this repository.

The folder (or zip) holds one folder per item: dublin_core.xml, optional metadata_<schema>.xml
(dcterms, local …), contents (one file a line: `name<TAB>bundle:ORIGINAL<TAB>primary:true`),
handle, collections, and the files. Each item gets an IBI and keeps its Handle and DSpace UUID
as alternate identifiers, so /handle/<prefix>/<suffix> and the other DSpace links lead to it.
An item already here by a Handle of DSpace's default prefix (123456789, which many
repositories share) is updated only with --same-repository; without it, an item that changed
fails with the reason, so that another repository's export never overwrites it.
Every metadata value is kept under its field of the metadata registry with its language,
authority and confidence; a value of a field the registry lacks fails its item, naming it.
The ORIGINAL bundle becomes the files (primary: the target file); TEXT, THUMBNAIL and LICENSE
are kept as such, beside them (never listed or served as the work's files), and `exportsaf`
writes them back; other bundles are skipped and counted.
Each item goes into the collections its `collections` file names (DSpace Handles, the owning
collection first, then those it is mapped into): a Handle is found in --map-collections FILE
(CSV, one `handle,slug` a line: a DSpace collection's Handle and the slug of a collection here,
which then keeps that Handle) or among the Handles collections here keep; one found neither
way fails the item, naming it. A new item without a `collections` file goes into
--collection (a slug), else the default collection; one imported before stays where it is.
Running it again updates what changed and skips the rest: an item is known again by its
Handle or DSpace UUID, or, in a package without either (DSpace's own batch-ingest SAF has
none), by its title and files (names and SHA-256; with no files, all its
metadata), so a second run never makes an item, or an IBI, twice. --dry-run says what would
be imported, updated, skipped or would fail, in the summary and the report, and changes
nothing.

Each item that fails is reported with its reason, file and line, and imports nothing; the
others still come in. The report (one CSV row per item: imported, updated, skipped, failed)
is written beside the source, <source>.report.csv, or to --report. Exit status 1 if any item
failed. Mapping of DSpace's fields, access and editions: archive/dspace/crosswalk.py.
"""
from __future__ import annotations

import sys
import zipfile
from pathlib import Path

from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from tqdm import tqdm

from archive.dspace import imports, packages
from archive.dspace import report as reports
from archive.management.base import (
    DocumentedCommand,
    check_keeping,
    keeping,
    keeping_arguments,
    placement_arguments,
    placement_of,
)
from archive.models import Provenance


def summary(command, run: reports.Report, csv_path: Path, dry_run: bool = False) -> None:
    """The counts, the first failures, the skipped bundles and where the CSV is."""
    counts = run.counts
    numbers = {"imported": counts[reports.IMPORTED], "updated": counts[reports.UPDATED],
               "skipped": counts[reports.SKIPPED], "failed": counts[reports.FAILED]}
    if dry_run:
        command.stdout.write(_("dry run, nothing changed: %(imported)d would be imported, "
                               "%(updated)d updated, %(skipped)d skipped, %(failed)d would "
                               "fail") % numbers)
    else:
        command.stdout.write(_("%(imported)d imported, %(updated)d updated, %(skipped)d "
                               "skipped, %(failed)d failed") % numbers)
    if run.bundles_skipped:
        command.stdout.write(_("bundles not imported: %(bundles)s") % {"bundles": ", ".join(
            f"{name} {count}" for name, count in sorted(run.bundles_skipped.items()))})
    for source, line, reason in run.failures:
        command.stdout.write("  " + _("failed %(source)s (%(line)s): %(reason)s") % {
            "source": source, "line": line or source, "reason": reason})
    command.stdout.write(_("report: %(path)s") % {"path": csv_path})


def _provenance(published_elsewhere: bool) -> str:
    return Provenance.PUBLISHED_ELSEWHERE if published_elsewhere else Provenance.NEW


class Command(DocumentedCommand):
    help = __doc__

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("source", type=Path, help="a folder of item folders, or a .zip")
        parser.add_argument("--report", type=Path, help="default: <source>.report.csv")
        parser.add_argument(
            "--same-repository", action="store_true",
            help="the export comes from the repository the items already here came from: an "
                 "item found by a Handle of DSpace's default prefix 123456789 is updated (by "
                 "default such an item is the same only if nothing changed: many repositories "
                 "share that prefix)")
        parser.add_argument(
            "--dry-run", action="store_true",
            help="say what would be imported, updated, skipped or would fail (the summary and "
                 "the report), changing nothing")
        placement_arguments(parser, "the items without a `collections` file")
        parser.add_argument(
            "--published-elsewhere", action="store_true",
            help="the librarian's word that this content was published (and reviewed) at its "
                 "source: without it, nothing new is deposited into a collection whose "
                 "deposits are reviewed (docs/librarians/workflow.md)")
        keeping_arguments(parser)

    def handle(self, *args, source: Path, report: Path | None, same_repository: bool = False,
               dry_run: bool = False, collection: str = "", map_collections: Path | None = None,
               published_elsewhere: bool = False, **options) -> None:
        check_keeping(options)
        placed_by = placement_of(collection, map_collections, keep_handles=not dry_run)
        source = source.expanduser().resolve()
        if not source.is_dir() and not (source.is_file() and zipfile.is_zipfile(source)):
            raise CommandError(_("%(source)s is neither a folder nor a zip file")
                               % {"source": source})
        csv_path = report or source.with_name(source.name + ".report.csv")
        try:
            found, strays, archive = packages.open_source(source)
        except (zipfile.BadZipFile, OSError) as exc:
            raise CommandError(_("%(source)s cannot be read: %(reason)s")
                               % {"source": source, "reason": exc}) from None
        stream = options.get("stderr") or sys.stderr
        try:
            with reports.open_csv(csv_path) as out, tqdm(total=len(found), desc=_("importing"),
                                                     unit="item", file=stream) as bar:
                run = reports.Report(out)
                for entry, reason in strays:
                    run.add(reports.FAILED, entry, line=entry, reason=reason)
                imports.import_packages(found, run, progress=bar.update,
                                        same_repository=same_repository, dry_run=dry_run,
                                        keeping=keeping(options), placed_by=placed_by,
                                        provenance=_provenance(published_elsewhere))
        finally:
            if archive is not None:
                archive.close()
        summary(self, run, csv_path, dry_run)
        if run.failed:
            raise CommandError(ngettext("%(count)d item or entry failed; see the report",
                                        "%(count)d items or entries failed; see the report",
                                        run.failed) % {"count": run.failed})
