"""Each file's format from its content (issue 38, 2): PRONOM's identifier (PUID), name,
version and MIME type, as siegfried (`pygfried`, PRONOM's signatures built in) reads the bytes,
stored on the file and told by a "format identification" event.

A match on the file's name alone (siegfried's "match on extension only": bytes no signature
knows, an empty file) is no identification: the PUID stays empty and the event is a warning
naming what siegfried said.

    >>> found_in({"files": [{"matches": [{"ns": "pronom", "id": "fmt/354",
    ...     "format": "Acrobat PDF/A - Portable Document Format", "version": "1b",
    ...     "mime": "application/pdf", "basis": "byte match at 0, 8", "warning": ""}]}]})[:4]
    ('fmt/354', 'Acrobat PDF/A - Portable Document Format', '1b', 'application/pdf')
    >>> found_in({"files": [{"matches": [{"ns": "pronom", "id": "fmt/1149",
    ...     "format": "Markdown", "basis": "extension match md",
    ...     "warning": "match on extension only"}]}]}).puid
    ''

Files are identified once their deposit commits (apps.py `files_stored` nudges
`identify_files`), those a nudge missed by the beat (`identify_due`), and again on a
librarian's word (`manage.py identifyformats`). The report (`report`) is the librarians'
format-risk page: formats by count and size, those without an open specification flagged.
"""
from __future__ import annotations

import atexit
import contextlib
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from django.conf import settings
from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import Count, QuerySet, Sum
from django.utils import timezone

from ..deposit import storage
from ..models import ItemFile
from ..runtime.threads import Helper
from . import events

# Formats whose specification is open (published, free to read and implement), by PUID: the
# report flags every other. A short list, kept by hand; PRONOM's record of each says more.
OPEN_SPECIFICATION = {
    # PDF/A-1a, 1b, 2a, 2b, 2u, 3a, 3b, 3u (ISO 19005, PDF 1.7's reference published by Adobe)
    "fmt/95", "fmt/354", "fmt/476", "fmt/477", "fmt/478", "fmt/479", "fmt/480", "fmt/481",
    # PDF 1.0 to 1.7 and 2.0 (ISO 32000; Adobe's references are public)
    "fmt/14", "fmt/15", "fmt/16", "fmt/17", "fmt/18", "fmt/19", "fmt/20", "fmt/276",
    "fmt/1129",
    # Plain text, UTF-8 and ASCII; CSV; Markdown
    "x-fmt/111", "x-fmt/16", "x-fmt/22", "x-fmt/18", "fmt/1149",
    # XML 1.0, XHTML, HTML 4 and 5, SVG
    "fmt/101", "fmt/102", "fmt/103", "fmt/100", "fmt/471", "fmt/96", "fmt/92", "fmt/91",
    # OpenDocument text, spreadsheet, presentation (ODF 1.0 to 1.3, ISO/IEC 26300)
    "fmt/290", "fmt/291", "fmt/1756", "fmt/294", "fmt/295", "fmt/1755", "fmt/292",
    "fmt/293", "fmt/1754", "x-fmt/3",
    # TIFF (Adobe's TIFF 6.0), PNG (ISO/IEC 15948), JPEG (JFIF 1.00 to 1.02, Exif), JPEG 2000
    "fmt/353", "fmt/11", "fmt/12", "fmt/13", "fmt/42", "fmt/43", "fmt/44", "fmt/645",
    "x-fmt/392", "x-fmt/398", "fmt/392",
    # FLAC, Ogg Vorbis, WAVE; Matroska; JSON
    "fmt/279", "fmt/203", "fmt/141", "fmt/142", "fmt/569", "fmt/817",
}

BATCH = 200  # files a run of identify_due takes, so that a run stays short


class Found(NamedTuple):
    """What siegfried said of one file: its PUID ("" when nothing matched the content)."""

    puid: str
    name: str = ""
    version: str = ""
    mime: str = ""
    note: str = ""  # the basis of the match, or why there is none

    @property
    def open(self) -> bool:
        return self.puid in OPEN_SPECIFICATION


def found_in(answer: dict) -> Found:
    """siegfried's detailed answer about one file, read: its first PRONOM match by content."""
    matches = [m for f in answer.get("files", []) for m in f.get("matches", [])
               if m.get("ns") == "pronom"]
    errors = "; ".join(f.get("errors", "") for f in answer.get("files", []) if f.get("errors"))
    if not matches:
        return Found("", note=errors or "no match")
    match = matches[0]
    warning = match.get("warning", "")
    if match.get("id") in (None, "", "UNKNOWN") or "extension only" in warning:
        return Found("", note=warning or match.get("basis", "") or "no match")
    return Found(match["id"], match.get("format", ""), match.get("version", ""),
                 match.get("mime", ""), match.get("basis", ""))


# siegfried runs in a process of its own: pygfried starts Go's runtime when imported, which does
# not survive a fork, and gunicorn's and Celery's workers are forked from a process that imported
# the app (archive/review/tools.py asks here too). The process is kept from one batch to the
# next: reading PRONOM's signatures is most of a run (0.13 s of CPU, then a millisecond a file),
# and a bulk import or a submission's checks ask one file after another. It ends by itself when
# no file came for IDLE seconds (an idle worker does not hold its ~100 MB), or when its input
# closes (this process ended). One file at a time: a path (JSON, one line) in, its answer out.
_SIEGFRIED = """
import json, select, sys
import pygfried
print(json.dumps({"version": pygfried.version()}), flush=True)
idle = float(sys.argv[1])
while select.select([sys.stdin], [], [], idle)[0]:
    line = sys.stdin.readline()
    if not line:
        break
    try:
        answer = pygfried.identify(json.loads(line), detailed=True)
    except Exception as exc:  # GoError, EmptySourceError: no identification, said why
        answer = {"error": str(exc)}
    print(json.dumps(answer), flush=True)
"""
TIMEOUT = 60  # seconds for a batch, and one more a file
IDLE = 60  # seconds siegfried's process waits for another file before it ends


class _Siegfried:
    """This process's siegfried, started on first use and again when it has ended; a forked
    child starts its own (the parent's pipes are not the child's to use)."""

    def __init__(self) -> None:
        self._forget()
        os.register_at_fork(after_in_child=self._forget)
        # Its end, when it ends by itself, reaped at once: no zombie waits for the next batch.
        self._reaper = Helper("siegfried-reaper", self._reap)

    def _forget(self) -> None:
        process = getattr(self, "process", None)
        if process is not None:  # in a forked child: its copies of the pipes closed, unused
            for pipe in (process.stdin, process.stdout, self._errors):
                with contextlib.suppress(OSError):
                    pipe.close()
        self._lock = threading.Lock()
        self.process: subprocess.Popen | None = None
        self._errors = None
        self.version = ""

    def answers(self, paths: list[str]) -> tuple[str, list[dict]]:
        with self._lock:
            deadline = time.monotonic() + TIMEOUT + len(paths)
            try:
                try:
                    return self._answers(paths, deadline)
                except (BrokenPipeError, EOFError):  # it had ended, idle, as the batch came
                    self._stop()
                    return self._answers(paths, deadline)
            except (OSError, EOFError, ValueError) as exc:
                raise self._failed(exc) from exc

    def _reap(self) -> None:
        process = self.process
        if process is not None:
            process.wait()

    def _answers(self, paths: list[str], deadline: float) -> tuple[str, list[dict]]:
        if self.process is None:
            self._errors = tempfile.TemporaryFile()
            self.process = subprocess.Popen(
                [sys.executable, "-c", _SIEGFRIED, str(IDLE)], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=self._errors, text=True, bufsize=1)
            self._reaper.wake()
            self.version = json.loads(self._line(deadline))["version"]
        found = []
        for path in paths:
            self.process.stdin.write(json.dumps(path) + "\n")
            self.process.stdin.flush()
            found.append(json.loads(self._line(deadline)))
        return self.version, found

    def _line(self, deadline: float) -> str:
        stdout = self.process.stdout
        if not select.select([stdout], [], [], max(0.0, deadline - time.monotonic()))[0]:
            raise TimeoutError(f"no answer in {TIMEOUT} s")
        line = stdout.readline()
        if not line:
            raise EOFError
        return line

    def _failed(self, exc: BaseException) -> OSError:
        """The process stopped, and why it failed (its last words, if it said any)."""
        said = ""
        if self._errors is not None:
            self._errors.seek(0)
            said = self._errors.read()[-300:].decode(errors="replace").strip()
        code = self._stop()
        return OSError(f"siegfried failed ({code}): {said or str(exc) or type(exc).__name__}")

    def _stop(self) -> int | None:
        process, self.process = self.process, None
        if process is None:
            return None
        with contextlib.suppress(OSError):
            process.stdin.close()
        try:
            code = process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            code = process.wait()
        process.stdout.close()
        if self._errors is not None:
            self._errors.close()
            self._errors = None
        return code


_siegfried = _Siegfried()
atexit.register(_siegfried._stop)  # its input closed: it ends at once


def siegfried(paths: list[Path | str]) -> tuple[str, list[dict]]:
    """siegfried's version and its answer for each file at `paths` (a dict with "error"
    when it could not identify one), from its process (OSError if it failed or hung)."""
    if not paths:
        return "", []
    return _siegfried.answers([str(path) for path in paths])


def identify_paths(paths: list[Path | str]) -> tuple[str, list[Found]]:
    """The formats of the files at `paths`, from their content, and the tool's name."""
    if not paths:
        return "", []
    version, answers = siegfried(paths)
    found = [Found("", note=answer["error"][:255]) if "error" in answer else found_in(answer)
             for answer in answers]
    return f"siegfried {version} (PRONOM signatures)", found


def identify_path(path: Path | str) -> Found:
    """The format of the file at `path`, from its content."""
    return identify_paths([path])[1][0]


@contextlib.contextmanager
def local_path(row: ItemFile) -> Iterator[Path]:
    """A path on this machine to a stored file's bytes: its own, or (S3) a temporary copy."""
    key = storage.file_key(row.item.ibi, row.name, row.bundle)
    if not storage.on_s3():
        path = Path(default_storage.path(key))
        if not path.is_file():
            raise FileNotFoundError(key)
        yield path
        return
    Path(settings.FILE_UPLOAD_TEMP_DIR).mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=settings.FILE_UPLOAD_TEMP_DIR, prefix="format-") as copy:
        with default_storage.open(key, "rb") as source:
            shutil.copyfileobj(source, copy, storage.CHUNK)
        copy.flush()
        yield Path(copy.name)


def identify_files(rows: list[ItemFile], *, agent=None) -> list[Found]:
    """Identify stored files, one siegfried run for them all: each one's format stored on
    its row and its event recorded, in one transaction for them all. A file gone from storage
    is a failed identification, not an exception."""
    found: dict[int, tuple[Found, str]] = {}
    with contextlib.ExitStack() as stack:
        readable = {}
        for row in rows:
            try:
                readable[row.pk] = stack.enter_context(local_path(row))
            except OSError as exc:
                found[row.pk] = (Found("", note=f"not readable: {exc}"[:255]),
                                 events.Outcome.FAILURE)
        name, answers = identify_paths(list(readable.values()))
        for pk, one in zip(readable, answers, strict=True):
            found[pk] = (one, events.Outcome.SUCCESS if one.puid else events.Outcome.WARNING)
    with transaction.atomic():  # the batch's rows and their events, committed together
        for row in rows:
            one, outcome = found[row.pk]
            _store(row, one, outcome, name, agent)
    return [found[row.pk][0] for row in rows]


def identify_file(row: ItemFile, *, agent=None) -> Found:
    """Identify one stored file (`identify_files`)."""
    return identify_files([row], agent=agent)[0]


def _store(row: ItemFile, found: Found, outcome: str, tool: str, agent) -> None:
    """One file's format on its row, and its event (in the caller's transaction)."""
    ItemFile.every_bundle.filter(pk=row.pk).update(
        format_puid=found.puid, format_name=found.name[:255],
        format_version=found.version[:64], format_mime=found.mime[:255],
        format_identified=timezone.now())
    said = (f"PRONOM {found.puid}: {found.name}"
            + (f" {found.version}" if found.version else "")
            + (f" ({found.mime})" if found.mime else "")) if found.puid else "not identified"
    # This software identifies, whoever's deposit nudged it (a worker in process runs it
    # within the request).
    events.record(events.Type.FORMAT_IDENTIFICATION, ibi=row.item.ibi, file=row.name,
                  agent=agent or events.software(), outcome=outcome,
                  detail=f"{tool or 'siegfried'}: {said}", outcome_detail=found.note)


def _rows(file_ids) -> QuerySet[ItemFile]:
    return ItemFile.every_bundle.select_related("item").filter(pk__in=list(file_ids))


def identify(file_ids) -> int:
    """The files of these ids identified, in batches of BATCH; how many there were."""
    rows = list(_rows(file_ids).order_by("pk"))
    for first in range(0, len(rows), BATCH):
        identify_files(rows[first:first + BATCH])
    return len(rows)


def due() -> QuerySet[ItemFile]:
    """Files never identified (a nudge lost, a copy or a rebuilt bag), oldest first."""
    return ItemFile.every_bundle.filter(format_identified__isnull=True).order_by("pk")


def report() -> list[dict]:
    """Formats by count and total size, the most held first, each with whether its
    specification is open; files not identified (yet, or by content) are one row of PUID ""."""
    rows = (ItemFile.every_bundle.values("format_puid", "format_name", "format_version")
            .annotate(files=Count("pk"), bytes=Sum("size"))
            .order_by("-files", "format_puid", "format_name", "format_version"))
    return [{**row, "bytes": row["bytes"] or 0,
             "open": row["format_puid"] in OPEN_SPECIFICATION} for row in rows]
