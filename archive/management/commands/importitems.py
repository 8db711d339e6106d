"""`manage.py importitems <folder or CSV>` — migrate a collection, resumably.

CSV (UTF-8, a header row): one row per item. Columns:
  title (required); files: paths relative to the CSV's folder, separated by `;`;
  target_file, language (BCP 47), transferable (true/false);
  previous_edition, translation_of: the IBI of an existing item, or the id of an earlier row;
  id: the item's identifier in the source collection (default: the files cell);
  any Dublin Core element (creator, subject, description, …), values separated by `|`
  (not `;`, which free text such as a description often holds). A `rights` value naming an
  access level in the importers' one vocabulary (archive/deposit/controlled.py `access_of`:
  "Acesso restrito", a COAR access right's URI, info:eu-repo/semantics/closedAccess …) is the
  item's access, the most restrictive one said (embargoed, which needs a day, is restricted);
  a COAR or info:eu-repo access value it does not know imports the item closed (metadata
  only), and a line of the summary says so.

Folder: one subfolder per item holding its files, and optionally `metadata.json` with the keys
above (Dublin Core values as a string or a list); without it the subfolder's name is the
title. The id is the subfolder's name. Names starting with "." (.DS_Store …) are skipped.

Only regular files inside the source folder are read (the CSV's folder for a CSV): a path
with `..`, an absolute path or a symbolic link anywhere (to a file or to an item folder) fails
its item with the reason, and nothing of that item is imported (archive/deposit/bulk_import.py).

Each imported item is appended to a journal, `<source>.imported.jsonl` beside the source
(or --journal), as {"id", "ibi", "ibip"}; a second run skips the ids found there, so an
interrupted import resumes where it stopped. A failed item is reported and retried next run.
"""
from __future__ import annotations

import csv
import json
import os
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from django.core.management.base import (
    CommandError,
    CommandParser,
)
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from tqdm import tqdm

from archive.deposit import bulk_import, controlled, selectors, services, values
from archive.management.base import DocumentedCommand
from archive.models import DC_ELEMENTS, Item, Provenance

FIELDS = {"title", "target_file", "language", "transferable", "previous_edition",
          "translation_of", *DC_ELEMENTS}
CSV_COLUMNS = FIELDS | {"id", "files"}
METADATA_FILE = "metadata.json"


@dataclass
class Entry:
    """One item of the source, as read; `error` when it cannot even be read."""

    id: str
    metadata: dict = field(default_factory=dict)
    paths: list[Path] = field(default_factory=list)
    error: str = ""


def read_csv(path: Path) -> Iterator[Entry]:
    with path.open(newline="", encoding="utf-8-sig") as f:
        reader = csv.DictReader(f)
        columns = set(reader.fieldnames or [])
        unknown = columns - CSV_COLUMNS
        if unknown or not {"title", "files"} <= columns:
            # A misspelt column would silently drop its metadata from every item.
            raise CommandError(_("%(path)s: the header needs title and files; unknown columns: "
                                 "%(columns)s") % {"path": path, "columns": ", ".join(
                                     sorted(unknown)) or _("none")})
        for row in reader:
            line = reader.line_num
            cells = {k: (v or "").strip() for k, v in row.items() if k is not None}
            entry = Entry(id=cells.get("id") or cells["files"] or f"line {line}")
            if None in row:
                entry.error = f"line {line} has more cells than the header"
            try:
                entry.paths = [bulk_import.import_path(path.parent, p)
                               for p in cells["files"].split(";") if p.strip()]
            except bulk_import.UnsafePath as exc:
                entry.error = entry.error or _reason(exc)
            entry.metadata = {
                k: [v.strip() for v in value.split("|")] if k in DC_ELEMENTS else value
                for k, value in cells.items() if k in FIELDS and value}
            yield entry


def read_folder(path: Path) -> Iterator[Entry]:
    # A link to a folder is listed too (is_dir follows it), so that it fails as an item.
    for sub in sorted(p for p in path.iterdir() if p.is_dir() and not p.name.startswith(".")):
        entry = Entry(id=sub.name, metadata={"title": sub.name})
        try:
            bulk_import.check_item_folder(path, sub)
            children = sorted(c for c in sub.iterdir() if not c.name.startswith("."))
            nested = [c.name for c in children if c.is_dir() and not c.is_symlink()]
            if nested:
                raise ValueError(_("subfolders are not supported: %(names)s")
                                 % {"names": ", ".join(nested)})
            entry.paths = [bulk_import.folder_file(path, c) for c in children]
            metadata = next((p for p in entry.paths if p.name == METADATA_FILE), None)
            entry.paths = [p for p in entry.paths if p.name != METADATA_FILE]
            if metadata is not None:
                entry.metadata = {"title": sub.name, **_metadata_json(metadata)}
        except (OSError, ValueError) as exc:
            entry.error = _reason(exc)
        yield entry


def _metadata_json(path: Path) -> dict:
    with bulk_import.open_import_file(path) as f:
        data = values.read_json(f.read().decode("utf-8"))
    if not isinstance(data, dict):
        raise ValueError(_("%(name)s must hold a JSON object") % {"name": path.name})
    unknown = set(data) - FIELDS
    if unknown:
        raise ValueError(_("%(name)s: unknown keys %(keys)s") % {
            "name": path.name, "keys": ", ".join(sorted(unknown))})
    return data


def access_of(rights: list[str]) -> tuple[list[str], services.Access | None, list[str]]:
    """(the rights values that are no access right, the item's Access, what was unknown)."""
    kept, level, unknown = [], controlled.OPEN, []
    for value in rights:
        named = controlled.access_of(value)
        if named is None and controlled.in_access_namespace(value):
            named = controlled.METADATA_ONLY
            unknown.append(_("unknown access value %(value)r in %(field)s: imported closed "
                             "(metadata only)") % {"value": value, "field": "rights"})
        if named is None:
            kept.append(value)
        else:
            level = controlled.most_restrictive(level, named)
    if level == controlled.EMBARGOED:  # no day to lift it on: closed until a librarian says
        level = controlled.RESTRICTED
    return kept, services.Access(rights=level) if level != controlled.OPEN else None, unknown


def _flag(value) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "yes", "1"):
        return True
    if text in ("false", "no", "0"):
        return False
    raise ValueError(_("transferable must be true or false, not %(value)r") % {"value": value})



class Command(DocumentedCommand):
    help = __doc__

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("source", help="a CSV file or a folder with one subfolder per item")
        parser.add_argument("--journal", help="default: <source>.imported.jsonl beside it")
        parser.add_argument(
            "--published-elsewhere", action="store_true",
            help="the librarian's word that this content was published (and reviewed) at its "
                 "source: without it, nothing new is deposited into a collection whose "
                 "deposits are reviewed (docs/librarians/workflow.md)")

    def handle(self, *args, source: str, journal: str | None, published_elsewhere: bool = False,
               **options) -> None:
        self.provenance = (Provenance.PUBLISHED_ELSEWHERE if published_elsewhere
                           else Provenance.NEW)
        source_path = Path(source).expanduser().resolve()
        if source_path.is_dir():
            entries = list(read_folder(source_path))
        elif source_path.is_file():
            entries = list(read_csv(source_path))
        else:
            raise CommandError(_("%(source)s is neither a CSV file nor a folder")
                               % {"source": source})
        journal_path = (Path(journal) if journal else
                        source_path.with_name(source_path.name + ".imported.jsonl"))
        self.done = self._read_journal(journal_path)
        self.notes: list[tuple[str, str]] = []  # (id, what the import chose for it)
        self.stdout.write(ngettext("%(count)d item in %(source)s; journal: %(journal)s",
                                   "%(count)d items in %(source)s; journal: %(journal)s",
                                   len(entries)) % {
            "count": len(entries), "source": source_path, "journal": journal_path})

        imported, skipped, failures, seen = 0, 0, [], set()
        stream = options.get("stderr") or sys.stderr
        with journal_path.open("a", encoding="utf-8") as log, \
                tqdm(entries, desc="importing", unit="item", file=stream) as bar:
            for entry in bar:
                if entry.id in seen:
                    entry.error = entry.error or _("id %(id)r appears more than once") % {
                        "id": entry.id}
                seen.add(entry.id)
                if entry.id in self.done and not entry.error:
                    skipped += 1
                    continue
                try:
                    item = self._import(entry)
                except Exception as exc:  # one bad item must not stop a long migration
                    reason = _reason(exc)
                    failures.append((entry.id, reason))
                    bar.write(_("failed %(id)s: %(reason)s") % {"id": entry.id, "reason": reason},
                              file=stream)
                    continue
                # After the commit: a crash just here imports the item again next run, which
                # is better than a journal naming an item that never committed.
                log.write(json.dumps({"id": entry.id, "ibi": item.ibi, "ibip": item.ibip},
                                     ensure_ascii=False) + "\n")
                log.flush()
                os.fsync(log.fileno())
                self.done[entry.id] = item.ibi
                imported += 1

        self.stdout.write(_("%(imported)d imported, %(skipped)d skipped, %(failed)d failed") % {
            "imported": imported, "skipped": skipped, "failed": len(failures)})
        for entry_id, note in self.notes:
            self.stdout.write(f"  {entry_id}: {note}")
        for entry_id, reason in failures:
            self.stdout.write("  " + _("failed %(id)s: %(reason)s")
                              % {"id": entry_id, "reason": reason})
        if failures:
            raise CommandError(ngettext(
                "%(failed)d of %(count)d item failed; fix it and run the same command again",
                "%(failed)d of %(count)d items failed; fix them and run the same command again",
                len(entries)) % {"failed": len(failures), "count": len(entries)})

    def _read_journal(self, path: Path) -> dict[str, str]:
        done = {}
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    record = values.read_json(line)
                    done[record["id"]] = record["ibi"]
                except (ValueError, KeyError, TypeError):
                    continue  # a line cut short by a crash: that item is imported again
        return done

    def _link(self, value: str | None) -> Item | None:
        if not value:
            return None
        item = selectors.item_by_ibi(self.done.get(value, value))
        if item is None:
            raise ValueError(_("no item %(value)r (neither an IBI here nor an imported id)")
                             % {"value": value})
        return item

    def _import(self, entry: Entry) -> Item:
        if entry.error:
            raise ValueError(entry.error)
        meta = entry.metadata
        if not entry.paths:
            raise ValueError(_("no files"))
        dc = {e: [meta[e]] if isinstance(meta[e], str) else meta[e]
              for e in DC_ELEMENTS if e in meta}
        dc["rights"], access, unknown = access_of(dc.get("rights", []))
        self.notes += [(entry.id, note) for note in unknown]
        with ExitStack() as stack:
            # No declared type: deposit.content_types guesses from the name, as for every path.
            uploads = [services.Upload(
                name=p.name, file=stack.enter_context(bulk_import.open_import_file(p)))
                for p in entry.paths]
            return services.item_deposit(
                title=str(meta.get("title", "")), uploads=uploads,
                target_file=meta.get("target_file", ""), language=meta.get("language", ""),
                previous_edition=self._link(meta.get("previous_edition")),
                translation_of=self._link(meta.get("translation_of")),
                transferable=_flag(meta.get("transferable", True)), dc=dc, access=access,
                provenance=self.provenance)


def _reason(exc: Exception) -> str:
    if isinstance(exc, bulk_import.UnsafePath):  # pure: its English template, said here
        return _(exc.template) % exc.params
    if isinstance(exc, services.ServiceError | OSError | ValueError):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"
