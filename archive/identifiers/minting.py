"""Minting: Algorithm 4 over the database-held last-date-for-suffix, then Algorithms 1–7.

The lock is the standard's "waiting room": `SELECT … FOR UPDATE` on PostgreSQL, an IMMEDIATE
transaction on SQLite (see settings). Inside it we read the clock, run the temporal distributor,
wait until the creation date and store the new state, so requests are served one at a time
exactly as Algorithm 4 assumes. Because the previous request left only when its creation date
had come, a normal wait is at most one grid step r; a much longer one means the system clock
stepped back, and we refuse instead of freezing every deposit for that long.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext as _

from ..models import MintingState
from . import ibi

# A clock stepping back by up to this many seconds is waited out, as Algorithm 4 says.
MAX_CLOCK_STEP_BACK = 5


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


def _locked_state() -> MintingState:
    """The subsystem's row, locked until the transaction ends (created on first use)."""
    try:
        return MintingState.objects.select_for_update().get(name="default")
    except MintingState.DoesNotExist:
        with transaction.atomic():  # a savepoint: losing the creation race is harmless
            MintingState.objects.get_or_create(name="default")
        return MintingState.objects.select_for_update().get(name="default")


def mint(*, clock: Callable[[], Fraction] = now,
         sleep: Callable[[float], None] = time.sleep) -> Minted:
    """Mint one IBI for the configured subsystem; both forms come from the same date."""
    granularity = settings.IBI_GRANULARITY
    with transaction.atomic():
        state = _locked_state()
        distributor = ibi.TemporalDistributor(granularity)
        if state.last_date_for_suffix:
            distributor.last = Decimal(state.last_date_for_suffix)
        current = clock()
        date, creation = distributor.create(current)
        delay = Fraction(creation) - Fraction(current)
        if delay > Fraction(granularity) + MAX_CLOCK_STEP_BACK:
            # Waiting it out could take hours. Nothing is stored: the next request tries again.
            raise MintingError(
                _("the system clock is %(delay).3f s behind the last minted IBI date; minting "
                  "resumes when it catches up") % {"delay": float(delay)})
        state.last_date_for_suffix = str(exact_decimal(distributor.last))
        state.save(update_fields=["last_date_for_suffix", "updated"])
        remaining = Fraction(creation) - Fraction(clock())
        if remaining > 0:
            sleep(float(remaining))  # still holding the lock: the next request is served after us
    return Minted(
        rep=ibi.repository_name(settings.IBI_HOSTNAME, settings.IBI_PORT, date),
        ibip=ibi.ibip(settings.IBI_IP, settings.IBI_IP_PORT, date),
        date=exact_decimal(date),
        creation_date=exact_decimal(creation),
        current_date=exact_decimal(current),
    )


def restored(date: Decimal) -> Minted:
    """Both forms of an IBI this subsystem minted before at `date`, for an item coming back
    (an export of this Archive imported into a fresh database, archive/dspace/ibis.py): the
    date is never handed out again (last-date-for-suffix moves past it), and nothing new is
    minted."""
    with transaction.atomic():
        state = _locked_state()
        if not state.last_date_for_suffix or Decimal(state.last_date_for_suffix) < date:
            state.last_date_for_suffix = str(exact_decimal(date))
            state.save(update_fields=["last_date_for_suffix", "updated"])
    return Minted(rep=ibi.repository_name(settings.IBI_HOSTNAME, settings.IBI_PORT, date),
                  ibip=ibi.ibip(settings.IBI_IP, settings.IBI_IP_PORT, date),
                  date=date, creation_date=date, current_date=date)
