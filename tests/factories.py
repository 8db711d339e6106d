"""The suite's one toolkit: items, files, editions, translations, copies and deposits over HTTP,
made the way the repository makes them (through its services or its API), and the small waits
and reads the tests share. Fixtures (a librarian, API clients, a throw-away PostgreSQL
database) are in conftest.py.
"""
from __future__ import annotations

from archive.accesses import counter as access_counter
from archive.accesses.selectors import item_counts


def counts(item_id: int, *, unique: bool = False) -> dict[str, int]:
    """An item's access counts as a page shows them: what this process counted, written first."""
    access_counter.flush()
    return item_counts(item_id, unique=unique)
