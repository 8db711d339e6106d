"""How the other included Archives answer (#29): a circuit breaker per Archive
(archive/runtime/breaker.py), its last answer and its answer times. What the administrator
sees of them (`manage.py federation`, the admin's Federation page) is report.py's.

Kept in Django's cache, so that every worker and app server on the same Redis shares it: per
Archive its failures in a row, until when it is left alone, its last answer and the times of
its recent answers. After IBI_RESOLVER_BREAKER_FAILURES failures of its own in a row (`failed`:
no answer in time, no connection, a 5xx, an answer that is no pair list; never a 4xx, which
what was asked may cause) an Archive's breaker is open: it is not asked for
IBI_RESOLVER_BREAKER_SECONDS; then, half-open, one request, of whichever process comes first
(`cache.add`), probes it: an answer closes the breaker, a failure opens it as long again. A
round never waits for an Archive left alone: it is not asked at all (`usable`), unless the
Original is required (§8.2's rival check needs every answer: it is probed).

Several processes write the same entries without a lock: one failure or one time may be
lost when two rounds end at the same instant, which moves a breaker by one request at most.
"""
from __future__ import annotations

import statistics
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from django.conf import settings
from django.core.cache import cache

from ..models import RegisteredArchive
from ..protocol import client
from ..runtime.breaker import CLOSED, HALF_OPEN, OPEN, Breaker

PREFIX = "ibi:resolver:health"
KEPT = 7 * 86400  # seconds an Archive's record lasts without a request
RECENT = 20  # answer times kept per Archive, for the median


@dataclass
class Health(Breaker):
    """What this resolver knows of how one Archive answers: its breaker (failures in a row,
    the POSIX time until which it is left alone), and more."""

    failures_total: int = 0
    answers_total: int = 0
    last_at: float = 0.0  # POSIX time of its last answer or failure
    last_said: str = ""  # "" for an answer, else why none came
    times: list[float] = field(default_factory=list)  # seconds of its recent answers

    @property
    def median(self) -> float | None:
        return statistics.median(self.times) if self.times else None


def threshold() -> int:
    """The failures in a row that open an Archive's breaker (`Health.state`'s threshold)."""
    return settings.IBI_RESOLVER_BREAKER_FAILURES


def _key(archive: int) -> str:
    return f"{PREFIX}:{archive}"


def _probe_key(archive: int) -> str:
    return f"{PREFIX}:probe:{archive}"


def of(archives: Iterable[int]) -> dict[int, Health]:
    """The health of each Archive id, one trip to the cache."""
    ids = list(archives)
    kept = cache.get_many([_key(pk) for pk in ids])
    return {pk: kept.get(_key(pk)) or Health() for pk in ids}


def usable(archives: Sequence[RegisteredArchive], *, probe_all: bool = False,
           known: dict[int, Health] | None = None
           ) -> tuple[list[RegisteredArchive], list[RegisteredArchive]]:
    """(the Archives to ask, in the order to ask them (`in_order`); those left alone): an open
    breaker leaves its Archive alone; one past its time is asked by the first round that claims
    the probe. `probe_all`: every one is asked, whatever its breaker (the Original required).
    `known`: their health (`of`), when read already."""
    now, failures = time.time(), threshold()
    known = of(a.pk for a in archives) if known is None else known
    asked, skipped = [], []
    for archive in archives:
        state = known[archive.pk].state(now, threshold=failures)
        probe = settings.IBI_RESOLVER_TIMEOUT + 1
        if probe_all or state == CLOSED or (state == HALF_OPEN
                                            and cache.add(_probe_key(archive.pk), 1, probe)):
            asked.append(archive)
        else:
            skipped.append(archive)
    return in_order(asked, known), skipped


SLOW = 0.1  # seconds: an Archive expected to take this long or more is asked first


def in_order(archives: Sequence[RegisteredArchive], known: dict[int, Health]
             ) -> list[RegisteredArchive]:
    """The order a round asks them in: the slowest expected first (a silent one is expected to
    take the whole timeout), up to half of a process's places (protocol/client.py), then the
    others fastest first. A round that waits for every answer ends when its slowest Archive
    answers; asked first, that one no longer waits behind the sending of hundreds of requests
    (#29: a fan-out after the breakers tripped ended ~0.7 s after its slowest live Archive). Half
    the places at most: the fast ones, where the answer usually is, never wait behind them."""
    def expected(archive: RegisteredArchive) -> float:
        health = known[archive.pk]
        return settings.IBI_RESOLVER_TIMEOUT if health.failures else (health.median or 0.0)

    slowest = sorted((a for a in archives if expected(a) >= SLOW), key=expected, reverse=True)
    first = slowest[:max(settings.IBI_RESOLVER_MAX_CONNECTIONS // 2, 1)]
    rest = sorted((a for a in archives if a not in first),
                  key=lambda a: (known[a.pk].failures > 0, expected(a)))
    return [*first, *rest]


def failed(reply: client.Reply, unreadable: bool = False) -> bool:
    """Whether a reply is the Archive's own failure: no connection, no answer in time, a 5xx
    (or any status but a 4xx), an answer that is no pair list (`unreadable`: a 200 whose pairs
    cannot be read as one). A 4xx is the Archive refusing what it was asked, which a reader's
    request may cause: it says the Archive is up (#41)."""
    if reply.ok:
        return unreadable
    return reply.status is None or not 400 <= reply.status < 500


def fast(health: Health) -> bool:
    """Whether an Archive is expected to answer at once: its breaker closed, no failure since
    its last answer, and its recent answers' median under SLOW."""
    return not health.failures and health.median is not None and health.median < SLOW


def next_probe(archives: Iterable[int]) -> float | None:
    """In how many seconds the first of these Archives left alone is probed again, or None
    when none is left alone."""
    now, failures = time.time(), threshold()
    times = [health.open_until - now for health in of(archives).values()
             if health.state(now, threshold=failures) == OPEN]
    return min(times) if times else None


def record(replies: Sequence[tuple[int, client.Reply]], unreadable: Iterable[int] = ()
           ) -> None:
    """Keep what each Archive's reply says of it (replies not waited for say nothing);
    `unreadable`: the Archives whose 200 could not be read as a pair list."""
    unreadable = set(unreadable)
    finished = [(pk, reply) for pk, reply in replies if not reply.cut]
    if not finished:
        return
    now = time.time()
    known = of(pk for pk, _ in finished)
    for pk, reply in finished:
        health = known[pk]
        health.last_at = now
        if failed(reply, pk in unreadable):
            health.failed(now, threshold=threshold(),
                          seconds=settings.IBI_RESOLVER_BREAKER_SECONDS)
            health.failures_total += 1
            health.last_said = reply.error[:200]
        else:
            health.succeeded()
            health.answers_total += 1
            health.last_said = ""
            health.times = [*health.times, round(reply.elapsed, 4)][-RECENT:]
    cache.set_many({_key(pk): known[pk] for pk, _ in finished}, KEPT)
    cache.delete_many([_probe_key(pk) for pk, _ in finished])


def forget(archive: int) -> None:
    """A new start for an Archive (its inclusion): its breaker closed."""
    cache.delete_many([_key(archive), _probe_key(archive)])
