"""COUNTER R5's filters, applied to a batch of accesses before it is counted (counter.py).

* Robots and crawlers (R5 §7.8): a user agent the COUNTER robots list names — the
  `counter-robots` package, its robot and machine lists (scripts such as curl or
  python-requests too, as its `is_robot_or_machine` does for the Code of Practice) — counts
  nothing. An empty user agent is on that list. Memoised per user agent: readers come back.
* Double clicks (R5 §7.3): the same reader (client addresses and user agent) requesting the
  same URL of the same item again within 30 seconds of the previous request counts once:
  "always remove the first and retain the second", so a run of clicks each less than 30 s
  after the previous one counts once.
* Unique_Item_Requests (R5 §3.3.5, §7.3): what is left counts once more per item and kind in
  each reader session; without a session cookie R5 defines the session as client address,
  user agent and the hour of the day (UTC here).

Where the state lives: Django's cache (Redis when CACHE_URL names it, shared by every worker;
a process's local memory otherwise), under keyed hashes: of (client addresses, user agent,
item, kind, URL), expiring 30 seconds after the click, and of (client addresses, user agent,
item, kind, hour), expiring at the end of that UTC hour. The hash key is a random secret made
for each UTC day and kept in the cache for two days, so a hash cannot be linked back to an
address once the day is over; no address is ever written to the database. A double click
across midnight UTC counts twice.

Example (the filter's rule, with times in seconds):

    >>> list(_runs([0.0, 10.0, 35.0, 70.0]))
    [True, False, False, True]

(10 s after the first: a double click; 35 s is 25 s after 10 s: still one; 70 s is 35 s later.)
"""
from __future__ import annotations

import functools
import hashlib
import secrets
import time
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime

import counter_robots
from django.core.cache import cache

DOUBLE_CLICK_SECONDS = 30
_SALT_SECONDS = 2 * 86400  # a day's secret outlives the day only as long as its last clicks
_PREFIX = "accesses:"


@functools.lru_cache(maxsize=4096)
def is_robot(user_agent: str) -> bool:
    """True when COUNTER's list names this user agent a robot, crawler or script.

    >>> is_robot("Mozilla/5.0 (compatible; Googlebot/2.1)"), is_robot("curl/8.5.0")
    (True, True)
    >>> is_robot("Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0")
    False
    """
    return counter_robots.is_robot_or_machine(user_agent)


def _runs(times: Iterable[float], last: float | None = None) -> Iterable[bool]:
    """Whether each click of one reader on one URL counts, in time order, after a click at
    `last` (None: no click within the window before)."""
    for at in times:
        # abs: another worker's batch may have written a later click of the same reader first
        yield last is None or abs(at - last) >= DOUBLE_CLICK_SECONDS
        last = at


def _salt(day: str) -> bytes:
    key = f"{_PREFIX}salt:{day}"
    salt = cache.get(key)
    if salt is None:
        cache.add(key, secrets.token_bytes(32), _SALT_SECONDS)  # the first worker's wins
        salt = cache.get(key)
    return salt or secrets.token_bytes(32)  # a cache that forgot it at once: count alone


def reader_key(salt: bytes, *parts: str, what: str = "click") -> str:
    """The cache key of one reader's clicks on one URL: a keyed hash, never the address.

    >>> len(reader_key(b"s" * 32, "10.0.0.1", "Firefox", "7", "download", "a.pdf"))
    47
    """
    digest = hashlib.blake2b("\x1f".join(parts).encode(), key=salt, digest_size=16)
    return f"{_PREFIX}{what}:{digest.hexdigest()}"


def _salts() -> Callable[[datetime], bytes]:
    """The day's secret of a time, each read from the cache once per batch."""
    salts: dict[str, bytes] = {}

    def salt(at: datetime) -> bytes:
        day = at.astimezone(UTC).date().isoformat()
        if day not in salts:
            salts[day] = _salt(day)
        return salts[day]
    return salt


def first_in_session(clicks: Sequence[tuple[Sequence[str], datetime]]) -> list[bool]:
    """For each click ((client addresses, user agent, item, kind), aware time), whether it is
    the first of its item and kind in the reader's session (the UTC hour): a Unique_Item_Request.
    A click without client addresses is its own session. One cache `add` per distinct session
    and item of the batch."""
    firsts, seen = [], set()
    salt = _salts()
    now = time.time()
    for parts, at in clicks:
        if not parts[0]:
            firsts.append(True)
            continue
        hour = at.astimezone(UTC).replace(minute=0, second=0, microsecond=0)
        key = reader_key(salt(at), *parts, hour.isoformat(), what="session")
        if key in seen:
            firsts.append(False)
            continue
        seen.add(key)
        ends = hour.timestamp() + 3600  # kept to the end of the session's hour, no longer
        firsts.append(cache.add(key, 1, max(60, int(ends - now) + 1)))
    return firsts


def first_clicks(clicks: Sequence[tuple[Sequence[str], datetime]]) -> list[bool]:
    """For each click ((client addresses, user agent, item, kind, URL), aware time), whether
    it counts after double-click filtering. A click without client addresses (an
    acknowledgment that names none) is always counted: nothing tells its readers apart.

    Reads and writes the cache once or twice per distinct reader and URL of the batch; clicks
    of another worker are seen through the cache (atomic `add` for the first of a window).
    """
    counts = [True] * len(clicks)
    by_key: dict[tuple[str, ...], list[int]] = {}
    for index, (parts, _at) in enumerate(clicks):
        if parts[0]:
            by_key.setdefault(tuple(parts), []).append(index)
    salt = _salts()
    for parts, indexes in by_key.items():
        indexes.sort(key=lambda i: clicks[i][1])
        times = [clicks[i][1].timestamp() for i in indexes]
        key = reader_key(salt(clicks[indexes[0]][1]), *parts)
        if cache.add(key, times[-1], DOUBLE_CLICK_SECONDS):
            last = None  # nobody clicked this within the window: the first counts
        else:
            last = cache.get(key)
            # The window runs from the latest click: it slides while the reader clicks on.
            cache.set(key, max(times[-1], last or 0.0), DOUBLE_CLICK_SECONDS)
        for index, counted in zip(indexes, _runs(times, last), strict=True):
            counts[index] = counted
    return counts
