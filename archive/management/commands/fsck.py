"""`manage.py fsck` — what the database and the storage under col/ disagree about.

  missing  a file row whose bytes are not in storage
  size     a stored file whose size is not the one its row records
  orphan   a stored file under col/ that no file row claims, e.g. left by a crash between
           storing a deposit's files and committing its row

--fix-orphans removes orphan files, never a file a row claims (checked again just before), and
only those older than --min-age seconds: a deposit in progress has stored its files but not yet
committed them. An import journals its writes (archive/deposit/staging.py): the files of one
whose lease has passed (a process killed between storing an item's files and committing it)
are removed by every run, whatever their age, and those of one at work are "writing", no
problem. The storage is walked with listdir, so S3 works as the local disk does.
Exit status 1 while problems remain.

Every run also sweeps the upload folder (FILE_UPLOAD_TEMP_DIR, IBI_UPLOAD_TEMP_DIR) and, on
the local disk, the folder where files are written before they get their name
(MEDIA_ROOT/.incoming, archive/deposit/storage.py): a file there older than --min-age is what
a process killed mid-upload or mid-write left behind ("swept" lines); one at work is younger.
And the pending uploads (archive/deposit/pending.py): every one past its expiry goes with its
bytes, and so do bytes in the upload folder's pending/ (or the bucket's uploads/) that no
pending upload claims, once older than --min-age.
"""
from __future__ import annotations

import os
import stat
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.core.files.storage import default_storage
from django.core.management.base import (
    CommandError,
    CommandParser,
)
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from archive.deposit import pending, staging, storage
from archive.management.base import DocumentedCommand
from archive.models import Bundle, Item, ItemFile

ROOT = "col"


def walk(folder: str = ROOT) -> Iterator[str]:
    """Every file key under folder, depth first."""
    stack = [folder]
    while stack:
        current = stack.pop()
        try:
            dirs, files = default_storage.listdir(current)
        except FileNotFoundError:
            continue
        yield from (f"{current}/{name}" for name in files)
        stack.extend(f"{current}/{name}" for name in dirs)


def split_key(key: str) -> tuple[str, str, str] | None:
    """col/<rep>/doc/<name> → (rep, name, "ORIGINAL"), col/<rep>/bundles/<bundle>/<name> →
    (rep, name, BUNDLE); None for a key outside any doc/ or bundle folder."""
    folder, sep, name = key.rpartition("/doc/")
    bundle = str(Bundle.ORIGINAL)
    if not sep:
        rest, sep, name = key.rpartition("/")
        folder, bundles, bundle = rest.rpartition("/bundles/")
        if (not bundles or bundle.upper() not in Bundle.values or bundle == bundle.upper()
                or bundle.upper() == Bundle.ORIGINAL):
            return None
        bundle = bundle.upper()
    if not sep or not folder.startswith(f"{ROOT}/") or "/" in name or not name:
        return None
    return folder[len(ROOT) + 1:], name, bundle



class Command(DocumentedCommand):
    help = __doc__

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--fix-orphans", action="store_true",
                            help="remove orphan files (never a file an item row claims)")
        parser.add_argument("--min-age", type=int, default=3600, metavar="SECONDS",
                            help="only remove orphans at least this old (default 3600)")

    def handle(self, *args, fix_orphans: bool, min_age: int, **options) -> None:
        given_up = self._abandoned_writes()
        writing = staging.writing()
        stored = set(walk())
        expected: dict[str, int] = {}
        problems = 0
        # Every bundle's files: a DSpace item's TEXT, THUMBNAIL and LICENSE are no orphans.
        rows = ItemFile.every_bundle.select_related("item").only("name", "size", "bundle",
                                                                 "item__ibi")
        for row in rows.iterator(chunk_size=2000):
            key = storage.file_key(row.item.ibi, row.name, row.bundle)
            expected[key] = row.size
            if key not in stored:
                problems += 1
                self.stdout.write(_("missing  %(key)s") % {"key": key})
            elif (size := default_storage.size(key)) != row.size:
                problems += 1
                self.stdout.write(
                    _("size     %(key)s: %(stored)d bytes stored, %(recorded)d recorded")
                    % {"key": key, "stored": size, "recorded": row.size})

        items = set(Item.objects.values_list("ibi", flat=True))
        removed = given_up
        for key in sorted(stored - expected.keys()):
            parts = split_key(key)
            if parts and parts[0] in writing:
                self.stdout.write(_("writing  %(key)s (an import is storing its item)")
                                  % {"key": key})
                continue
            where = (_("not in a doc/ or bundle folder") if parts is None else
                     _("its item exists") if parts[0] in items else _("no item has this IBI"))
            if fix_orphans and self._remove(key, parts, min_age):
                removed += 1
                self.stdout.write(_("removed  %(key)s (%(where)s)") % {"key": key, "where": where})
            else:
                problems += 1
                self.stdout.write(_("orphan   %(key)s (%(where)s)") % {"key": key, "where": where})

        swept = self._sweep_uploads(min_age)
        self.stdout.write(_("%(recorded)d files recorded, %(stored)d stored: %(problems)d "
                            "problems, %(removed)d orphans removed, %(swept)d stale uploads "
                            "swept") % {"recorded": len(expected), "stored": len(stored),
                                        "problems": problems, "removed": removed,
                                        "swept": swept})
        if problems:
            raise CommandError(ngettext("%(count)d problem found", "%(count)d problems found",
                                        problems) % {"count": problems})

    def _abandoned_writes(self) -> int:
        """The files of journaled writes whose lease has passed (staging.py): an import killed
        between storing an item's files and committing it. Removed whatever their age, but a
        file a row claims (its item's, committed before)."""
        removed = 0
        for staged in staging.claim_expired():
            claimed = set(ItemFile.every_bundle.filter(item__ibi=staged.rep).values_list(
                "bundle", "name"))
            for bundle in Bundle.values:
                for name in storage.list_folder(staged.rep, bundle):
                    if (bundle, name) not in claimed:
                        key = storage.file_key(staged.rep, name, bundle)
                        default_storage.delete(key)
                        removed += 1
                        self.stdout.write(_("removed  %(key)s (an import stopped before its "
                                            "item committed)") % {"key": key})
            staging.forget(staged)
        return removed

    def _sweep_uploads(self, min_age: int) -> int:
        folders = [Path(settings.FILE_UPLOAD_TEMP_DIR)]
        try:
            folders.append(Path(default_storage.path(storage.INCOMING)))
        except NotImplementedError:  # S3: a file is whole or absent, nothing to sweep
            pass
        cutoff = time.time() - min_age
        swept = 0
        for found in pending.sweep(min_age):
            swept += 1
            why = (_("an expired upload") if found.what == "expired"
                   else _("bytes no upload claims"))
            self.stdout.write(_("swept    %(path)s (%(size)d bytes, %(why)s)")
                              % {"path": found.name, "size": found.size, "why": why})
        for path in [p for folder in folders if folder.is_dir() for p in sorted(folder.iterdir())]:
            # lstat: a link is swept as a link, never followed out of the folder.
            info = path.lstat()
            if stat.S_ISDIR(info.st_mode) or info.st_mtime > cutoff:
                continue
            path.unlink(missing_ok=True)
            swept += 1
            self.stdout.write(_("swept    %(path)s (%(size)d bytes, a stale upload)")
                              % {"path": path, "size": info.st_size})
        return swept

    def _remove(self, key: str, parts: tuple[str, str, str] | None, min_age: int) -> bool:
        age = timezone.now() - default_storage.get_modified_time(key)
        if age < timedelta(seconds=min_age):
            self.stderr.write(_("kept %(key)s: younger than %(age)d s, a deposit may be running")
                              % {"key": key, "age": min_age})
            return False
        if parts and ItemFile.every_bundle.filter(item__ibi=parts[0], name=parts[1],
                                                  bundle=parts[2]).exists():
            return False  # committed since the walk: it is no orphan any more
        default_storage.delete(key)
        _prune(key)
        return True


def _prune(key: str) -> None:
    """Remove the folders a removal left empty, on storages that have folders."""
    folder = key.rpartition("/")[0]
    while folder.count("/") >= 1:  # up to, not including, col/
        try:
            os.rmdir(default_storage.path(folder))
        except (NotImplementedError, OSError):  # S3 has no folders; or not empty
            return
        folder = folder.rpartition("/")[0]
