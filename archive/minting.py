"""Minting: Algorithm 4 over the database-held last-date-for-suffix, then Algorithms 1–7.

The lock is the standard's "waiting room": `SELECT … FOR UPDATE` on PostgreSQL, an IMMEDIATE
transaction on SQLite (see settings). Inside it we read the clock, run the temporal distributor
and store its new state; the wait until the creation date happens after the lock is released.
That gives the same suffixes as serving the requests one at a time (the next request starts
from the stored state whether or not the previous one has finished waiting) without making
everyone queue behind a sleeping process.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from django.conf import settings
from django.db import transaction

from . import ibi
from .models import MintingState

log = logging.getLogger(__name__)


class MintingError(RuntimeError):
    """The subsystem cannot mint now (e.g. the clock is far behind the last minted date)."""


@dataclass(frozen=True)
class Minted:
    rep: str
    ibip: str
    date: Decimal  # date-for-suffix, POSIX seconds
    creation_date: Decimal
    current_date: Decimal  # the clock reading used, kept for audits and tests


def now() -> Fraction:
    """The system clock, exactly, in POSIX seconds."""
    return Fraction(time.time_ns(), 10**9)


def exact_decimal(value: Fraction | Decimal | int) -> Decimal:
    """A finite decimal equal to value; dates on a 10**-k or 60 s grid always have one."""
    if isinstance(value, Decimal):
        return value
    value = Fraction(value)
    digits = 0
    while (value * 10**digits).denominator != 1:
        digits += 1
        if digits > 30:
            raise ValueError(f"{value} has no short decimal expansion")
    return Decimal(int(value * 10**digits)).scaleb(-digits)


def mint(*, clock: Callable[[], Fraction] = now,
         sleep: Callable[[float], None] = time.sleep) -> Minted:
    """Mint one IBI for the configured subsystem; both forms come from the same date."""
    granularity = settings.IBI_GRANULARITY
    MintingState.objects.get_or_create(name="default")
    with transaction.atomic():
        state = MintingState.objects.select_for_update().get(name="default")
        distributor = ibi.TemporalDistributor(granularity)
        if state.last_date_for_suffix:
            distributor.last = Decimal(state.last_date_for_suffix)
        current = clock()
        date, creation = distributor.create(current)
        delay = Fraction(creation) - Fraction(current)
        max_wait = Fraction(granularity) + 5
        if delay > max_wait:
            # The clock stepped back: waiting it out could take hours. Refuse rather than
            # mint a date that is far ahead of the clock; nothing is stored.
            raise MintingError(
                f"the system clock is {float(delay):.3f} s behind the last minted IBI date; "
                "minting resumes when it catches up")
        state.last_date_for_suffix = str(exact_decimal(distributor.last))
        state.save(update_fields=["last_date_for_suffix", "updated"])
    if delay > 0:
        sleep(float(delay))
    return Minted(
        rep=ibi.repository_name(settings.IBI_HOSTNAME, settings.IBI_PORT, date),
        ibip=ibi.ibip(settings.IBI_IP, settings.IBI_IP_PORT, date),
        date=exact_decimal(date),
        creation_date=exact_decimal(creation),
        current_date=exact_decimal(current),
    )
