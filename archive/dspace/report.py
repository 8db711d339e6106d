"""The report of an import or a harvest: what became of each item, and why, as CSV.

One row per item of the source (and per entry or page that is no item but failed): its
status (imported, updated, skipped, failed, deleted), where it was read (the item's folder and
the file and line, or the OAI identifier and the page's request), the identifier it had there
(Handle, OAI identifier), the IBI it has here, and the reason. Rows are written as they come,
so a report of a million items costs no memory, and a crash leaves the rows written so far.
"""
from __future__ import annotations

import csv
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

IMPORTED, UPDATED, SKIPPED, FAILED, DELETED = "imported", "updated", "skipped", "failed", "deleted"
COLUMNS = ["status", "source", "line", "identifier", "ibi", "reason", "not_kept"]


@dataclass
class Report:
    """Counts, and the CSV rows written to `out` as they come."""

    out: IO[str] | None = None
    counts: Counter = field(default_factory=Counter)
    bundles_skipped: Counter = field(default_factory=Counter)  # THUMBNAIL: 12, TEXT: 12 …
    failures: list[tuple[str, str, str]] = field(default_factory=list)  # first ones, shown
    shown_failures: int = 50

    def __post_init__(self) -> None:
        self.writer = csv.writer(self.out) if self.out is not None else None
        if self.writer is not None:
            self.writer.writerow(COLUMNS)

    def add(self, status: str, source: str, *, line: str = "", identifier: str = "",
            ibi: str = "", reason: str = "", not_kept: list[str] | None = None) -> None:
        self.counts[status] += 1
        if status == FAILED and len(self.failures) < self.shown_failures:
            self.failures.append((source, line, reason))
        if self.writer is not None:
            self.writer.writerow([status, source, line, identifier, ibi, reason,
                                  " ".join(not_kept or ())])
            self.out.flush()

    @property
    def failed(self) -> int:
        return self.counts[FAILED]


def open_csv(path: Path) -> IO[str]:
    path.parent.mkdir(parents=True, exist_ok=True)
    return path.open("w", newline="", encoding="utf-8")
