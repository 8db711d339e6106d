"""Fixity: hash the stored bytes again and compare them with what each file row recorded; keep
every check; verify every file within a period (90 days) in daily slices; raise the alarm.

A check hashes a file once for both digests (SHA-256 and SHA-512). It compares the SHA-256
with the row's and, once the row has one, the SHA-512; a row without a SHA-512 (a file older
than the field, a copy, a pending upload) gets the one found, when its SHA-256 matched. Each
check stamps the row (`checked_at`, `fixity_problem`, which the admin lists; a later good
check clears an old problem), adds a FixityCheck row (the history, pruned after
IBI_FIXITY_RETENTION_DAYS) and records a PREMIS fixity-check event (agent: this software;
outcome success or failure; both digests in its detail), all in one transaction. A failure is
a finding, an event and an alarm: never an exception in a worker.

`check(limit)` (the command `fixity --oldest N`) walks never-checked files first, then the
longest-checked. The scheduler (`daily`, the beat's task at 03:17) walks files by the time they
were last verified: their last check, or their deposit for a file never checked (its digests
were computed then). A day's slice is the longest-unverified files until both
ceil(files / period) files and ceil(bytes / period) bytes are checked, plus any file whose
last verification would otherwise pass the period by tomorrow, and never more than
IBI_FIXITY_DAILY_BYTES. Since files are taken in the order of their last verification, a file
checked today has before it at most the inventory of today (what is deposited later comes
after it), which the slices cover within the period: every file is verified within it
whenever the budget covers ceil(bytes / period) a day. When it does not, the alarm says so.

The alarm (`alarms()`): a check that failed (a file whose last check found it changed or
missing), a file not verified within the period, a daily budget too small for the inventory.
It is shown on every admin page to staff (templates/admin/base_site.html) and mailed to the
ADMINS and the librarians after a daily run that finds one.
"""
from __future__ import annotations

import logging
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.core.cache import cache
from django.core.files.storage import default_storage
from django.core.mail import send_mail
from django.db import connection, transaction
from django.db.models import Count, F, Q, QuerySet, Sum
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from ..deposit import storage
from ..models import FixityCheck, ItemFile
from . import events

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Finding:
    key: str  # col/<rep>/doc/<name>, or col/<rep>/bundles/<bundle>/<name>
    problem: str  # "" when intact
    sha256: str = ""  # what was found ("" for a missing file)
    sha512: str = ""
    size: int | None = None

    @property
    def ok(self) -> bool:
        return not self.problem


BATCH = 200


def due(since) -> QuerySet[ItemFile]:
    """Files not checked since `since`, oldest-checked first, never-checked ones first."""
    return (ItemFile.every_bundle.select_related("item")
            .only("name", "size", "sha256", "sha512", "checked_at", "fixity_problem",
                  "bundle", "item__ibi")
            .filter(Q(checked_at__isnull=True) | Q(checked_at__lt=since))
            .order_by(F("checked_at").asc(nulls_first=True), "pk"))


def inspect(row: ItemFile) -> Finding:
    """Hash one file row's stored bytes: what was found, and what is wrong ("" when intact)."""
    key = storage.file_key(row.item.ibi, row.name, row.bundle)
    if not default_storage.exists(key):
        return Finding(key, "missing")
    try:
        with default_storage.open(key, "rb") as stored:
            sha256, sha512, size = storage.digests_of(stored)
    except FileNotFoundError:  # removed between the two calls
        return Finding(key, "missing")
    found = {"sha256": sha256, "sha512": sha512, "size": size}
    if sha256 != row.sha256:
        return Finding(key, f"changed: sha256 {sha256} ({size} bytes), recorded {row.sha256} "
                            f"({row.size} bytes)", **found)
    if row.sha512 and sha512 != row.sha512:
        return Finding(key, f"changed: sha512 {sha512}, recorded {row.sha512}", **found)
    if size != row.size:  # the same digest and another size cannot happen; say it if it does
        return Finding(key, f"changed: {size} bytes, recorded {row.size}", **found)
    return Finding(key, "", **found)


def record(row: ItemFile, finding: Finding, at: datetime | None = None, by=None) -> None:
    """Keep one check: the row stamped (its SHA-512 filled in when it had none and the bytes
    are the recorded ones), the history's row, and the PREMIS event (its agent this software,
    or the person `by` who asked for the check)."""
    at = at or timezone.now()
    stamp = {"checked_at": at, "fixity_problem": finding.problem[:255]}
    if finding.ok and not row.sha512 and finding.sha512:
        stamp["sha512"] = row.sha512 = finding.sha512
    with transaction.atomic():
        ItemFile.every_bundle.filter(pk=row.pk).update(**stamp)
        FixityCheck.objects.create(
            file_id=row.pk, key=finding.key, at=at,
            outcome=FixityCheck.Outcome.PASS if finding.ok else FixityCheck.Outcome.FAIL,
            sha256=finding.sha256, sha512=finding.sha512, size=finding.size,
            problem=finding.problem[:255])
        events.record(
            events.Type.FIXITY_CHECK, ibi=row.item.ibi, file=row.name, at=at,
            agent=events.software() if by is None else events.person(by),
            outcome=events.Outcome.SUCCESS if finding.ok else events.Outcome.FAILURE,
            detail=f"found: sha256 {finding.sha256 or '-'} sha512 {finding.sha512 or '-'} "
                   f"size {finding.size if finding.size is not None else '-'}; recorded: "
                   f"sha256 {row.sha256} sha512 {row.sha512 or '-'} size {row.size}",
            outcome_detail=finding.problem)
    if not finding.ok:
        logger.error("fixity: %s %s", finding.key, finding.problem)
        cache.delete(ALARMS)  # shown on the next admin page, not in ALARMS_TTL


def check_one(row: ItemFile, at: datetime | None = None, by=None) -> Finding:
    """Check and keep one file; never raises for what the storage says (a failure is a
    finding): only an error of the database itself propagates."""
    try:
        finding = inspect(row)
    except OSError as exc:  # the storage failed to read it: a failed check, said so
        finding = Finding(storage.file_key(row.item.ibi, row.name, row.bundle),
                          f"unreadable: {exc}")
    record(row, finding, at, by)
    return finding


def check(limit: int | None = None) -> Iterator[Finding]:
    """Check up to `limit` files (all when None), oldest-checked first; record and yield each.

    Batches are taken afresh, so the rows this run has stamped drop out of the order it
    walks, and files added meanwhile wait for the next run.
    """
    start, done = timezone.now(), 0
    while limit is None or done < limit:
        size = BATCH if limit is None else min(BATCH, limit - done)
        batch = list(due(start)[:size])
        if not batch:
            return
        for row in batch:
            yield check_one(row)
        done += len(batch)


# -- The scheduler --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Plan:
    """A day's share of the inventory.

    >>> p = Plan(files=1_000_000, bytes=10 * 10**12, period_days=90, budget_bytes=500 * 10**9)
    >>> p.slice_files, p.slice_bytes, p.covered
    (11112, 111111111112, True)
    """
    files: int
    bytes: int
    period_days: int
    budget_bytes: int

    @property
    def slice_files(self) -> int:
        return math.ceil(self.files / self.period_days)

    @property
    def slice_bytes(self) -> int:
        return math.ceil(self.bytes / self.period_days)

    @property
    def covered(self) -> bool:
        """Whether the daily budget covers the inventory within the period."""
        return self.slice_bytes <= self.budget_bytes


def inventory() -> tuple[int, int]:
    """Every stored file (every bundle): how many, and their bytes."""
    found = ItemFile.every_bundle.aggregate(files=Count("pk"), bytes=Coalesce(Sum("size"), 0))
    return found["files"], found["bytes"]


def plan() -> Plan:
    files, size = inventory()
    return Plan(files=files, bytes=size, period_days=settings.IBI_FIXITY_PERIOD_DAYS,
                budget_bytes=settings.IBI_FIXITY_DAILY_BYTES)


def _verified() -> Coalesce:
    return Coalesce("checked_at", "created")


def by_verification() -> QuerySet[ItemFile]:
    return (ItemFile.every_bundle.select_related("item")
            .only("name", "size", "sha256", "sha512", "checked_at", "fixity_problem",
                  "bundle", "created", "item__ibi")
            .annotate(verified=_verified()).order_by("verified", "pk"))


def _unverified_since(now: datetime) -> Iterator[ItemFile]:
    """Files last verified before now, the longest-unverified first, in batches taken afresh
    (a file checked drops out: it was verified now)."""
    while batch := list(by_verification().filter(verified__lt=now)[:BATCH]):
        yield from batch


@dataclass
class Day:
    plan: Plan
    files: int = 0
    bytes: int = 0
    failed: list[Finding] = field(default_factory=list)
    budget_spent: bool = False
    alarms: list[str] = field(default_factory=list)


def daily(now: datetime | None = None, *, between=None) -> Day:
    """Run today's slice (module docstring), keep the history's partitions and retention,
    and return what was done with the alarms it leaves. `between()` is called after each
    file (a task renews its lease there)."""
    now = now or timezone.now()
    keep_partitions(now)  # before this run's checks: each lands in its month
    day = Day(plan=plan())
    urgent_before = now - timedelta(days=day.plan.period_days - 1)  # past it by tomorrow
    for row in _unverified_since(now):
        urgent = row.verified < urgent_before
        if not urgent and day.files >= day.plan.slice_files and (
                day.bytes >= day.plan.slice_bytes):
            break
        if day.bytes + row.size > day.plan.budget_bytes:
            day.budget_spent = True
            break
        finding = check_one(row, now)
        day.files += 1
        day.bytes += row.size
        if not finding.ok:
            day.failed.append(finding)
        if between is not None:
            between()
    prune(now)
    day.alarms = refresh_alarms(now)
    return day


# -- The alarm ------------------------------------------------------------------------------------

ALARMS = "ibi:fixity:alarms"
ALARMS_TTL = 600  # seconds an admin page's alarms may lag behind the database


def _compute_alarms(now: datetime) -> list[str]:
    found = []
    failed = ItemFile.every_bundle.exclude(fixity_problem="").count()
    if failed:
        found.append(ngettext(
            "Fixity: %(count)d file failed its last check (changed or missing): see the item "
            "files with a problem.",
            "Fixity: %(count)d files failed their last check (changed or missing): see the "
            "item files with a problem.", failed) % {"count": failed})
    p = plan()
    overdue = (ItemFile.every_bundle.annotate(verified=_verified())
               .filter(verified__lt=now - timedelta(days=p.period_days)).count())
    if overdue:
        found.append(ngettext(
            "Fixity: %(count)d file was not verified within %(days)d days.",
            "Fixity: %(count)d files were not verified within %(days)d days.", overdue)
            % {"count": overdue, "days": p.period_days})
    if not p.covered:
        found.append(_(
            "Fixity: the daily budget (IBI_FIXITY_DAILY_BYTES, %(budget)s bytes) cannot "
            "verify the %(files)d files (%(bytes)s bytes) within %(days)d days: it needs "
            "%(need)s bytes a day.") % {
                "budget": f"{p.budget_bytes:,}", "files": p.files, "bytes": f"{p.bytes:,}",
                "days": p.period_days, "need": f"{p.slice_bytes:,}"})
    return found


def refresh_alarms(now: datetime | None = None) -> list[str]:
    found = _compute_alarms(now or timezone.now())
    cache.set(ALARMS, found, ALARMS_TTL)
    return found


def alarms() -> list[str]:
    """The fixity alarms now (cached ALARMS_TTL seconds: every admin page shows them)."""
    found = cache.get(ALARMS)
    return refresh_alarms() if found is None else found


def mail_alarms(found: list[str]) -> int:
    """Mail the alarms to the ADMINS and the librarians (the Librarians group's active
    accounts with an address); how many were told. A mail server that refuses is logged:
    the banner still shows the alarm."""
    from django.contrib.auth import get_user_model

    recipients = sorted({email for _name, email in settings.ADMINS} | set(
        get_user_model().objects.filter(groups__name="Librarians", is_active=True)
        .exclude(email="").values_list("email", flat=True)))
    if not found or not recipients:
        return 0
    body = "\n\n".join(found) + "\n\n" + _(
        "Every file is to be verified within IBI_FIXITY_PERIOD_DAYS days; the admin's item "
        "files list those with a problem (docs/operators/preservation.md).") + "\n"
    try:
        send_mail(_("Fixity alarm"), body, None, recipients)
    except OSError:
        logger.exception("fixity: the alarm could not be mailed")
        return 0
    return len(recipients)


# -- The history's table --------------------------------------------------------------------------

def _month_start(year: int, month: int) -> str:
    return f"{year:04d}-{month:02d}-01 00:00+00"


def keep_partitions(now: datetime, ahead: int = 2) -> list[str]:
    """PostgreSQL: the monthly partitions of this month and `ahead` more (names made)."""
    if connection.vendor != "postgresql":
        return []
    made, year, month = [], now.year, now.month
    with connection.cursor() as cursor:
        for _step in range(ahead + 1):
            following = (year + month // 12, month % 12 + 1)
            name = f"archive_fixitycheck_y{year:04d}m{month:02d}"
            cursor.execute(
                f"CREATE TABLE IF NOT EXISTS {name} PARTITION OF archive_fixitycheck FOR VALUES "
                f"FROM ('{_month_start(year, month)}') TO ('{_month_start(*following)}')")
            made.append(name)
            year, month = following
    return made


def prune(now: datetime) -> int:
    """Drop the checks older than IBI_FIXITY_RETENTION_DAYS: on PostgreSQL whole months first
    (a partition past the retention is dropped, not emptied row by row), then the rest."""
    cutoff = now - timedelta(days=settings.IBI_FIXITY_RETENTION_DAYS)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("""SELECT c.relname FROM pg_inherits i
                JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
                WHERE p.relname = 'archive_fixitycheck'
                  AND c.relname ~ '^archive_fixitycheck_y[0-9]{4}m[0-9]{2}$'""")
            for (name,) in cursor.fetchall():
                year, month = int(name[-7:-3]), int(name[-2:])
                end = datetime(year + month // 12, month % 12 + 1, 1, tzinfo=cutoff.tzinfo)
                if end <= cutoff:
                    cursor.execute(f"DROP TABLE {name}")
    deleted, _by_model = FixityCheck.objects.filter(at__lt=cutoff).delete()
    return deleted
