"""COUNTER R5's filters, applied to a batch of accesses before it is counted (counter.py).
The rules are those of R5's section 7, "Processing Rules for Underlying COUNTER Reporting Data".

* Robots and crawlers: a user agent the COUNTER robots list names — the `counter-robots`
  package, its robot and machine lists (scripts such as curl or python-requests too, as its
  `is_robot_or_machine` does for the Code of Practice) — counts nothing. An empty user agent
  is on that list. Memoised per user agent: readers come back.
* Double-click filtering: the same reader (client addresses and user agent) requesting the
  same URL of the same item again within 30 seconds of the previous request counts once:
  "always remove the first and retain the second", so a run of clicks each less than 30 s
  after the previous one counts once.
* Unique counts ("counting unique items"): what is left counts once more per item and
  kind in each reader session; without a session cookie R5 defines the session as client
  address, user agent and the hour of the day (UTC here). COUNTER R5.1's own two, per item
  and Access_Type in the session: Unique_Item_Investigations (the first access of any kind:
  a request is an investigation too) and Unique_Item_Requests (the first download or
  acknowledgment).

Where the state lives: Django's cache (Redis when CACHE_URL names it, shared by every worker;
a process's local memory otherwise), under keyed hashes: of (client addresses, user agent,
item, kind, URL), expiring 30 seconds after the click, and of (client addresses, user agent,
item, kind, hour), expiring at the end of that UTC hour. The hash key is a random secret made
for each UTC day and kept in the cache for two days, so a hash cannot be linked back to an
address once the day is over; no address is ever written to the database. A double click
across midnight UTC counts twice. Each process keeps the secrets it read for at most
SECRET_MEMO_SECONDS, then reads them from the cache again (a quiet worker writes a batch per
access, and reading the secret was a tenth of its cost: bench/README.md): a cache that lost
its secret (Redis restarted) has every worker hash with the new one within that time. A secret
read while Redis fails (from the process's stand-in memory, db/cache.py) is not kept.

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
from datetime import UTC, date, datetime

import counter_robots
from django.core.cache import DEFAULT_CACHE_ALIAS, caches
from django.core.cache.backends.base import BaseCache

DOUBLE_CLICK_SECONDS = 30
_SALT_SECONDS = 2 * 86400  # a day's secret outlives the day only as long as its last clicks
SECRET_MEMO_SECONDS = 60.0  # how long a process uses a day's secret before reading it again
_PREFIX = "accesses:"
_secrets: dict[date, tuple[bytes, float]] = {}  # day: its secret, time.monotonic() read


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


def _salt(day: str, store: BaseCache) -> bytes | None:
    """The day's secret in the cache (made there by the first worker that asks), or None if
    the cache forgot it at once."""
    key = f"{_PREFIX}salt:{day}"
    salt = store.get(key)
    if salt is None:
        store.add(key, secrets.token_bytes(32), _SALT_SECONDS)  # the first worker's wins
        salt = store.get(key)
    return salt


def day_secret(day: date, store: BaseCache) -> bytes:
    """The secret of a UTC day's hashes, the cache's as this process read it at most
    SECRET_MEMO_SECONDS ago (a secret read longer ago is dropped at the next reading).

    >>> from django.core.cache import cache
    >>> day_secret(date(2026, 11, 20), cache) == day_secret(date(2026, 11, 20), cache)
    True
    """
    now = time.monotonic()
    kept = _secrets.get(day)
    if kept is not None and now - kept[1] < SECRET_MEMO_SECONDS:
        return kept[0]
    for old in [old for old, (_s, at) in _secrets.items() if now - at >= SECRET_MEMO_SECONDS]:
        _secrets.pop(old, None)
    salt = _salt(day.isoformat(), store)
    if salt is None:  # a cache that forgot it at once: count alone, and ask again next time
        return secrets.token_bytes(32)
    if getattr(store, "reachable", _shared)():  # not Redis's stand-in (db/cache.py): kept
        _secrets[day] = (salt, now)
    return salt


def _shared() -> bool:
    return True


def reader_key(salt: bytes, *parts: str, what: str = "click") -> str:
    """The cache key of one reader's clicks on one URL: a keyed hash, never the address.

    >>> len(reader_key(b"s" * 32, "10.0.0.1", "Firefox", "7", "download", "a.pdf"))
    47
    """
    digest = hashlib.blake2b("\x1f".join(parts).encode(), key=salt, digest_size=16)
    return f"{_PREFIX}{what}:{digest.hexdigest()}"


def _salts(store: BaseCache) -> Callable[[datetime], bytes]:
    """The day's secret of a UTC time, each looked up once per batch."""
    salts: dict[date, bytes] = {}

    def salt(hour: datetime) -> bytes:
        day = hour.date()
        if day not in salts:
            salts[day] = day_secret(day, store)
        return salts[day]
    return salt


# addresses, user agent, item, kind, URL, time, and the Access_Type ("" when not told)
Click = tuple[str, str, str, str, str, datetime] | tuple[str, str, str, str, str, datetime, str]
REQUESTS = frozenset({"download", "acknowledgment"})  # models.REQUEST_KINDS, without the import


def counted(clicks: Sequence[Click]) -> list[tuple[bool, bool]]:
    """For each click, whether it counts after double-click filtering, and whether it is
    also the first of its item and kind in the reader's session (see `verdicts`)."""
    return [(both[0], both[1]) for both in verdicts(clicks)]


def verdicts(clicks: Sequence[Click]) -> list[tuple[bool, bool, bool, bool]]:
    """For each click: whether it counts after double-click filtering; whether it is the
    first of its item and kind in the reader's session; the first access of any kind to the
    item and Access_Type in the session (a Unique_Item_Investigation); the first request
    (download or acknowledgment) of both (a Unique_Item_Request).

    A click without client addresses (an acknowledgment that names none) counts, and counts
    unique: nothing tells its readers apart. The cache is read once (`get_many`) and written
    once per expiry (`set_many`) for the whole batch, not once per click: with Redis a round
    trip per click would cost the writer more than the batch's INSERT. The price: two workers
    writing the same reader's clicks within the same few milliseconds may both count them.
    """
    if not any(click[0] for click in clicks):  # none (robots') or no reader told apart
        return [(True, True, True, click[3] in REQUESTS) for click in clicks]
    store = caches[DEFAULT_CACHE_ALIAS]  # once: each look through the `cache` proxy costs
    salt, now = _salts(store), time.time()
    by_url: dict[str, list[int]] = {}
    # each click's session keys (its kind's, the item's, the item's requests') and expiry
    sessions: list[tuple[tuple[str, ...], int] | None] = []
    keys: dict[tuple, tuple] = {}  # a reader's clicks hash once a batch
    for index, click in enumerate(clicks):
        ips, agent, item, kind, url, at = click[:6]
        access = click[6] if len(click) > 6 else ""
        if not ips:
            sessions.append(None)
            continue
        hour = at.astimezone(UTC).replace(minute=0, second=0, microsecond=0)
        both = keys.get((ips, agent, item, kind, url, hour, access))
        if both is None:
            ends = hour.timestamp() + 3600  # a session key is kept to the end of its hour
            secret = salt(hour)
            session = functools.partial(reader_key, secret, ips, agent, item, what="session")
            both = keys[ips, agent, item, kind, url, hour, access] = (
                reader_key(secret, ips, agent, item, kind, url),
                ((session(kind, hour.isoformat()),
                  session("investigation*", access, hour.isoformat()),
                  session("request*", access, hour.isoformat()) if kind in REQUESTS else ""),
                 max(60, int(ends - now) + 1)))
        by_url.setdefault(both[0], []).append(index)
        sessions.append(both[1])
    known = store.get_many([*by_url, *{k for s in sessions if s for k in s[0] if k}])
    result = [[True, True, True, clicks[i][3] in REQUESTS] for i in range(len(clicks))]
    latest = {}
    for key, indexes in by_url.items():
        indexes.sort(key=lambda i: clicks[i][5])
        times = [clicks[i][5].timestamp() for i in indexes]
        for index, counts in zip(indexes, _runs(times, known.get(key)), strict=True):
            result[index][0] = counts
        # The window runs from the latest click: it slides while the reader clicks on.
        latest[key] = max(times[-1], known.get(key) or 0.0)
    store.set_many(latest, DOUBLE_CLICK_SECONDS)
    started: dict[int, dict[str, int]] = {}  # expiry: the sessions this batch starts
    for index, session in enumerate(sessions):
        if session is None:
            continue
        session_keys, expiry = session
        for place, key in enumerate(session_keys, start=1):
            first = bool(key) and result[index][0] and key not in known
            result[index][place] = first
            if first:
                known[key] = 1  # the session's later clicks in this batch are not its first
                started.setdefault(expiry, {})[key] = 1
    for expiry, keys in started.items():
        store.set_many(keys, expiry)
    return [(counts, unique, investigation, request)
            for counts, unique, investigation, request in result]
