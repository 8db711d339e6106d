"""The tools the checks before review call, each wrapped thinly (checks.py decides what their
answers mean):

- `identify`: a file's format from its content, by siegfried (`pygfried`, its signatures
  built in: PRONOM's, in a process of its own), never by its name;
- `pdf_text`: the text of a PDF's first pages, by pypdf;
- `scan`: ClamAV's `clamscan` (settings.IBI_CLAMSCAN; `clamdscan` works the same way and
  asks a running clamd, without loading the signatures each time) with the signature
  database settings.IBI_CLAMAV_DB (empty: ClamAV's own, /var/lib/clamav, which `freshclam`
  keeps). Not installed, no database, an error: the files are "not scanned", never clean.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from django.conf import settings
from pypdf import PdfReader

from ..preservation import formats
from .checks import Identified, Scan, clamscan_output, siegfried_answer

PAGES = 3  # a PDF's first pages read for its text layer


def identify(path: Path) -> Identified:
    """The file's format by its content: PRONOM id, MIME type and name ("" puid: none).
    siegfried runs in a process of its own (preservation/formats.py: Go's runtime, which
    pygfried starts, does not survive the fork of a worker that imported it)."""
    try:
        answer = formats.siegfried([path])[1][0]
    except (OSError, subprocess.TimeoutExpired):
        return Identified("")
    return Identified("") if "error" in answer else siegfried_answer(answer)


def pdf_text(path: Path, pages: int = PAGES) -> tuple[str | None, int]:
    """The text of the PDF's first `pages` pages (None: it could not be read) and how many
    pages were read."""
    try:
        reader = PdfReader(str(path))
        if reader.is_encrypted:
            reader.decrypt("")
        read = reader.pages[:pages]
        return "".join(page.extract_text() or "" for page in read), len(read)
    except Exception:  # a submitter's PDF, malformed in any of the ways pypdf meets
        return None, 0


def scan(paths: dict[str, str], timeout: float = 600) -> dict[str, Scan]:
    """Each file's scan (`paths`: a file's path → its key), one clamscan run for them all."""
    command = settings.IBI_CLAMSCAN
    program = shutil.which(command)
    if program is None:
        return {key: Scan(False, error=f"{command} is not installed") for key in paths.values()}
    args = [program, "--no-summary", "--stdout"]
    if settings.IBI_CLAMAV_DB:
        args.append(f"--database={settings.IBI_CLAMAV_DB}")
    try:
        done = subprocess.run([*args, "--", *paths], capture_output=True, text=True,
                              timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return {key: Scan(False, error=str(exc)[:300]) for key in paths.values()}
    return clamscan_output(paths, done.returncode, done.stdout, done.stderr)
