"""The circuit breaker (#40, 4): one state machine for whatever this app depends on and may
find failing (an Archive the resolver asks, resolver/health.py; the cache's Redis,
db/cache.py; the read replica, db/replica.py).

* closed: it is called. Each failure in a row is counted (`failed`); a success (`succeeded`)
  starts the count again;
* open: `threshold` failures in a row left it alone for `seconds` (`allows` is false);
* half-open: that time is over, and the next call tries it: a success closes it, a failure
  opens it again for as long.

Where a breaker is kept (this process's memory, or the shared cache so that every process
sees the same) and who makes the call that tries a half-open one are its user's. The clock
(`now`) is the caller's too: any monotonic or POSIX time, the same one throughout.

>>> breaker = Breaker()
>>> breaker.failed(100.0, threshold=2, seconds=30), breaker.state(100.0, threshold=2)
(False, 'closed')
>>> breaker.failed(101.0, threshold=2, seconds=30), breaker.state(101.0, threshold=2)
(True, 'open')
>>> breaker.allows(120.0), breaker.state(131.0, threshold=2), breaker.allows(131.0)
(False, 'half-open', True)
>>> breaker.succeeded(); breaker.state(131.0, threshold=2)
'closed'
"""
from __future__ import annotations

from dataclasses import dataclass

CLOSED, OPEN, HALF_OPEN = "closed", "open", "half-open"
STATES = (CLOSED, OPEN, HALF_OPEN)


@dataclass
class Breaker:
    """One breaker's state: its failures in a row, and until when (`now`'s clock) it is open."""

    failures: int = 0
    open_until: float = 0.0

    def state(self, now: float, *, threshold: int = 1) -> str:
        """closed, open or half-open at `now`, `threshold` failures in a row opening it."""
        if self.failures < threshold:
            return CLOSED
        return OPEN if now < self.open_until else HALF_OPEN

    def allows(self, now: float) -> bool:
        """Whether a call may go (closed, or half-open: the call that tries it)."""
        return now >= self.open_until

    def failed(self, now: float, *, threshold: int = 1, seconds: float) -> bool:
        """Count a failure at `now`: from `threshold` in a row on, it is open for `seconds`.
        True when this failure opened it (it was not open already)."""
        opened = self.allows(now)
        self.failures += 1
        if self.failures < threshold:
            return False
        self.open_until = now + seconds
        return opened

    def succeeded(self) -> None:
        """A call answered: closed, the count of failures in a row starts again."""
        self.failures, self.open_until = 0, 0.0
