"""The minting service: Algorithm 4 over the database-held state, under any concurrency."""
from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from fractions import Fraction

import pytest

from archive.identifiers import ibi
from archive.identifiers.minting import MintingError, mint
from archive.models import Item, MintingState
from tests.conftest import subprocess_database_url
from tests.servers import Zygote

# Table 6.2 of the generation standard (r = 1).
TABLE_6_2 = [
    ("1287587646.394023", "2010/10.20.15.14.06"),
    ("1287588012.2930", "2010/10.20.15.20"),
    ("1287588115.186234", "2010/10.20.15.21"),
    ("1287588115.3462", "2010/10.20.15.21.55"),
    ("1287588115.99623", "2010/10.20.15.21.56"),
    ("1287588116.72", "2010/10.20.15.21.57"),
    ("1287588539.788342", "2010/10.20.15.28"),
]


class FakeClock:
    """A clock the test moves; sleeping moves it forward, as real waiting would."""

    def __init__(self, start: Fraction) -> None:
        self.now = start
        self.slept: list[float] = []

    def __call__(self) -> Fraction:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += Fraction(str(seconds))


@pytest.fixture
def subsystem(settings):
    settings.IBI_HOSTNAME, settings.IBI_PORT = "mtc-m18.sid.inpe.br", 80
    settings.IBI_IP, settings.IBI_IP_PORT = "150.163.34.243", 800
    settings.IBI_GRANULARITY = Decimal(1)
    MintingState.objects.all().delete()


@pytest.mark.django_db
def test_it_mints_table_6_2_from_the_database_state(subsystem):
    for current, suffix in TABLE_6_2:
        clock = FakeClock(Fraction(current))
        minted = mint(clock=clock, sleep=clock.sleep)
        assert minted.rep == f"sid.inpe.br/mtc-m18/{suffix}"
        assert ibi.decode_ibip(minted.ibip) == ("150.163.34.243", 800, minted.date)
        assert ibi.parse(minted.rep).date == minted.date


@pytest.mark.django_db
def test_both_forms_come_from_the_same_date(subsystem):
    clock = FakeClock(Fraction(1234806360))
    minted = mint(clock=clock, sleep=clock.sleep)
    assert minted.ibip == "8JMKD3MGP8W/34PGRBS"
    assert minted.rep == "sid.inpe.br/mtc-m18/2009/02.16.17.46"


@pytest.mark.django_db
def test_it_waits_until_the_creation_date(subsystem):
    clock = FakeClock(Fraction("1287588115.186234"))
    first = mint(clock=clock, sleep=clock.sleep)
    second = mint(clock=clock, sleep=clock.sleep)  # same instant: must wait for the next second
    assert second.date == first.date + 1
    assert clock.slept and Fraction(str(clock.slept[-1])) > 0
    assert clock.now >= second.creation_date


@pytest.mark.django_db
def test_a_clock_that_steps_back_never_repeats_an_ibi(subsystem):
    clock = FakeClock(Fraction(1287588115))
    seen = {mint(clock=clock, sleep=clock.sleep).rep}
    clock.now -= 3  # a small step back: the standard waits it out
    seen.add(mint(clock=clock, sleep=clock.sleep).rep)
    assert len(seen) == 2
    clock.now -= 3600  # an hour back: refuse rather than wait an hour
    state_before = MintingState.objects.get().last_date_for_suffix
    with pytest.raises(MintingError, match="behind"):
        mint(clock=clock, sleep=clock.sleep)
    assert MintingState.objects.get().last_date_for_suffix == state_before


@pytest.mark.django_db
def test_a_change_of_granularity_keeps_ibis_distinct(subsystem, settings):
    clock = FakeClock(Fraction("1287588115.3462"))
    dates = []
    for r in ("0.01", "1", "0.001", "60", "0.1"):
        settings.IBI_GRANULARITY = Decimal(r)
        dates.append(mint(clock=clock, sleep=clock.sleep).date)
        clock.now += Fraction(1, 1000)
    assert dates == sorted(dates) and len(set(dates)) == len(dates)


@pytest.mark.django_db
def test_the_state_survives_a_restart(subsystem):
    clock = FakeClock(Fraction(1287588115))
    first = mint(clock=clock, sleep=clock.sleep)
    # A new process starts from what the database says, not from memory.
    assert Decimal(MintingState.objects.get().last_date_for_suffix) == first.date


@pytest.mark.django_db
def test_plain_orm_create_mints_an_ibi():
    item = Item.objects.create(title="Plain ORM")
    assert ibi.parse(item.ibi).form == "rep"
    assert ibi.parse(item.ibip).form == "ibip"
    before = (item.ibi, item.ibip)
    item.title = "Renamed"
    item.save()
    item.refresh_from_db()
    assert (item.ibi, item.ibip) == before


MINTER = """
import json
from archive.identifiers.minting import mint
for _ in range(15):
    m = mint()
    print(json.dumps({"rep": m.rep, "ibip": m.ibip, "date": str(m.date),
                      "current": str(m.current_date)}), flush=True)
"""


@pytest.mark.django_db(transaction=True)
def test_eight_processes_mint_as_if_served_one_at_a_time(settings, tmp_path):
    """8 OS processes race for the lock; the result equals Algorithm 4 run sequentially. Each
    is a `manage.py shell` forked from a zygote of its own set up in the same settings
    (tests/servers.py `Zygote`): the eight start together, not a Django start apart."""
    MintingState.objects.all().delete()
    env = {**os.environ, "DATABASE_URL": subprocess_database_url(), "IBI_GRANULARITY": "0.01",
           "IBI_HOSTNAME": "mtc-m18.sid.inpe.br", "IBI_IP": "150.163.34.243"}
    with ThreadPoolExecutor(8) as pool:
        zygotes = list(pool.map(Zygote, [env] * 8))
        try:
            done = list(pool.map(
                lambda zygote: zygote.run(("shell", "-v", "0", "-c", MINTER), tmp_path, 120),
                zygotes))
        finally:
            for zygote in zygotes:
                zygote.close()
    rows = []
    for minted in done:
        assert minted is not None and minted.returncode == 0, minted and minted.stderr
        rows += [json.loads(line) for line in minted.stdout.splitlines() if line.startswith("{")]
    assert len(rows) == 120
    assert len({r["rep"] for r in rows}) == 120
    assert len({r["ibip"] for r in rows}) == 120

    rows.sort(key=lambda r: Decimal(r["date"]))
    replay = ibi.TemporalDistributor(Decimal("0.01"))
    for row in rows:
        date, _creation = replay.create(Decimal(row["current"]))
        assert Decimal(date) == Decimal(row["date"])
        assert row["rep"] == ibi.repository_name("mtc-m18.sid.inpe.br", 80, date)
