"""`manage.py harvest <OAI-PMH base URL> [--set S] [--from DATE] [--files-from HOST …]` —
the records of an OAI-PMH 2.0 repository (DSpace, EPrints, another Archive of this software)
as items here.

Metadata from DSpace's dim when the source offers it (every qualified value, with its language,
authority and confidence; a field the metadata registry lacks fails its record), else from
oai_dc; files from DSpace's `ore` format (or `mets`) when the source offers it,
fetched only from the base URL's host and the hosts given with --files-from (DSpace 7 serves
files from its UI's host: `--files-from repositorio.example.br`); else metadata only, the
item's page at the source kept as dc:identifier. Incremental: the next run asks from the
newest datestamp harvested (--full asks everything again). A record harvested again updates
its item; a deleted one becomes a tombstone. A run stopped by a crash resumes at its last page
when run again. --delay waits between requests, --page-delay between pages (1 s by default);
a 503's Retry-After is honoured. A run stops at a resumption token it was given before (a list
that never ends: failed) and after --max-pages pages (10 000 by default; the next run goes on).

Each record goes into the collections its header's setSpecs name (the first its owning
collection, the others those it is mapped into): DSpace's `col_123456789_42` is the
collection of Handle 123456789/42, found in --map-collections FILE (CSV, one `handle,slug` a
line, as importsaf reads it) or among the Handles collections here keep; another Archive of
this software's `col_<slug>` is found in the map (its slug as the first column) or as a
collection of that slug here. A record naming a collection found neither way fails, naming
it; the others still come in. A record without a collection set goes into --collection (a
slug), else the default collection.

The report (one CSV row per record: imported, updated, skipped, deleted, failed; a failed page
too) goes to --report, by default harvest-<host>-<UTC time>.csv in the current folder. Exit
status 1 if anything failed. How: archive/dspace/harvest.py.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path
from urllib.parse import urlsplit

from django.core.management.base import CommandError, CommandParser
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from tqdm import tqdm

from archive.dspace import harvest, oaipmh, remote
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

DATESTAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2}Z)?")


class Command(DocumentedCommand):
    help = __doc__

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("base_url", help="the OAI-PMH base URL, e.g. "
                            "https://repositorio.example.br/server/oai/request")
        parser.add_argument("--set", dest="set_spec", default="", help="one set (setSpec)")
        parser.add_argument("--from", dest="from_", default="",
                            help="YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ (default: the last run's)")
        parser.add_argument("--full", action="store_true", help="everything, not since the last")
        parser.add_argument("--files-from", action="append", default=[], metavar="HOST",
                            help="a host files may come from besides the base URL's (repeat)")
        parser.add_argument("--delay", type=float, default=0.0,
                            help="seconds between two requests (default 0)")
        parser.add_argument("--page-delay", type=float, default=None,
                            help="seconds between two pages of the list (default "
                                 "IBI_HARVEST_PAGE_DELAY, 1)")
        parser.add_argument("--max-pages", type=int, default=None,
                            help="pages of the list a run asks at most; the next run goes on "
                                 "(default IBI_HARVEST_MAX_PAGES, 10000)")
        parser.add_argument("--timeout", type=float, default=60.0, help="seconds (default 60)")
        parser.add_argument("--report", type=Path)
        parser.add_argument(
            "--same-repository", action="store_true",
            help="the items already here by a Handle of DSpace's default prefix 123456789 came "
                 "from this repository (an export of it imported): they are updated (by "
                 "default such an item is the same only if nothing changed)")
        parser.add_argument(
            "--published-elsewhere", action="store_true",
            help="the librarian's word that this content was published (and reviewed) at its "
                 "source: without it, nothing new is deposited into a collection whose "
                 "deposits are reviewed (docs/librarians/workflow.md)")
        placement_arguments(parser, "the records whose header names no collection set")
        keeping_arguments(parser)

    def handle(self, *args, base_url: str, set_spec: str, from_: str, full: bool,
               files_from: list[str], delay: float, timeout: float, report: Path | None,
               same_repository: bool = False, page_delay: float | None = None,
               max_pages: int | None = None, published_elsewhere: bool = False,
               collection: str = "", map_collections: Path | None = None,
               **options) -> None:
        check_keeping(options)
        try:
            base = remote.base_url(base_url)
        except remote.RemoteError as exc:
            raise CommandError(str(exc)) from None
        if from_ and not DATESTAMP.fullmatch(from_):
            raise CommandError(_("--from %(value)r is not YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ")
                               % {"value": from_})
        if not 0 <= delay <= 3600 or not 0 < timeout <= 3600:
            raise CommandError(_("--delay and --timeout are seconds, at most 3600"))
        if page_delay is not None and not 0 <= page_delay <= 3600:
            raise CommandError(_("--page-delay is seconds, at most 3600"))
        if max_pages is not None and max_pages < 1:
            raise CommandError(_("--max-pages is a number of pages, at least 1"))
        placed_by = placement_of(collection, map_collections)
        host = urlsplit(base).hostname or "source"
        csv_path = report or Path(
            f"harvest-{host}-{timezone.now().strftime('%Y%m%dT%H%M%SZ')}.csv")
        stream = options.get("stderr") or sys.stderr
        with reports.open_csv(csv_path) as out, tqdm(desc=_("harvesting"), unit="record",
                                                      file=stream) as bar:
            run = reports.Report(out)

            def progress(count: int, total: int | None) -> None:
                if total is not None and bar.total != total:
                    bar.total = total
                bar.update(count)

            try:
                outcome = harvest.harvest(base, report=run, set_spec=set_spec, from_=from_,
                                          full=full, files_from=files_from, delay=delay,
                                          timeout=timeout, progress=progress,
                                          same_repository=same_repository,
                                          keeping=keeping(options, fallback=base),
                                          max_pages=max_pages, page_delay=page_delay,
                                          placed_by=placed_by,
                                          provenance=Provenance.PUBLISHED_ELSEWHERE
                                          if published_elsewhere else Provenance.NEW)
            except (remote.RemoteError, oaipmh.OaiError) as exc:
                run.add(reports.FAILED, base, line=base, reason=str(exc))
                outcome = harvest.Outcome()
        counts = run.counts
        self.stdout.write(_("%(imported)d imported, %(updated)d updated, %(skipped)d skipped, "
                            "%(deleted)d deleted, %(failed)d failed") % {
            "imported": counts[reports.IMPORTED], "updated": counts[reports.UPDATED],
            "skipped": counts[reports.SKIPPED], "deleted": counts[reports.DELETED],
            "failed": counts[reports.FAILED]})
        if outcome.file_format:
            self.stdout.write(_("files from the %(format)s format") % {
                "format": outcome.file_format})
        else:
            self.stdout.write(_("the source offers no file list (ore, mets): metadata only"))
        for source, _line, reason in run.failures:
            self.stdout.write("  " + _("failed %(source)s: %(reason)s") % {
                "source": source, "reason": reason})
        if outcome.capped:
            self.stdout.write(ngettext(
                "stopped after %(count)d page (--max-pages): run the same command again to go "
                "on", "stopped after %(count)d pages (--max-pages): run the same command again "
                "to go on", outcome.pages) % {"count": outcome.pages})
        elif not outcome.completed:
            self.stdout.write(_("the run stopped before the end of the list: run the same "
                                "command again to resume it"))
        self.stdout.write(_("report: %(path)s") % {"path": csv_path})
        if run.failed:
            raise CommandError(ngettext("%(count)d record or page failed; see the report",
                                        "%(count)d records or pages failed; see the report",
                                        run.failed) % {"count": run.failed})
