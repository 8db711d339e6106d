"""Files on their way under col/ before their rows commit: a journal that `fsck` reads.

A deposit stores an item's files, then commits its rows; a process killed in between leaves
files that no row claims, which fsck used to call orphans and remove only when told to and
only past an age (a deposit in progress looks the same). An import (importsaf, harvest) is long
and meant to be stopped and run again, so it journals each item's write:

1. `begin`: a row (models.StagedWrite) naming the item's folder, committed before the first
   byte, with a lease of LEASE;
2. `renew` before each file: the lease goes on while the writer lives;
3. `end`, in the rows' own transaction: the row goes, and the files are the item's. A row
   fsck claimed (`claim_expired`) makes `end` refuse, so the item is refused and its files
   removed, never committed without them;
4. `forget` after a failure the writer saw (its files removed).

A row whose lease has passed is a writer killed, or stuck for LEASE: `claim_expired` marks
it abandoned (the writer can no longer commit) and fsck removes the files under its folder
that no row claims, then the row, whatever their age.
"""
from __future__ import annotations

from datetime import timedelta

from django.utils import timezone
from django.utils.translation import gettext as _

from ..models import StagedWrite

# Long enough for one file of IBI_MAX_FILE_SIZE to be written; what a kill leaves is removed
# by the first fsck after it.
LEASE = timedelta(minutes=5)


class Abandoned(RuntimeError):
    """fsck took the write for a dead one: its files are being removed; nothing commits."""

    def __init__(self) -> None:
        super().__init__(_("the write of this item's files outlived its lease and was given "
                           "up; run the import again"))


def begin(rep: str) -> StagedWrite:
    """The journal row of a write under col/<rep>/doc/, committed before any byte when the
    caller is in no transaction (as the importers are): fsck sees it only once committed."""
    return StagedWrite.objects.create(rep=rep, until=timezone.now() + LEASE)


def renew(staged: StagedWrite) -> None:
    if not StagedWrite.objects.filter(pk=staged.pk, abandoned=False).update(
            until=timezone.now() + LEASE):
        raise Abandoned


def end(staged: StagedWrite) -> None:
    """In the rows' transaction: the files are the item's (Abandoned when fsck took them)."""
    if not StagedWrite.objects.filter(pk=staged.pk, abandoned=False).delete()[0]:
        raise Abandoned


def forget(staged: StagedWrite) -> None:
    StagedWrite.objects.filter(pk=staged.pk).delete()


def claim_expired() -> list[StagedWrite]:
    """The writes whose lease has passed (or that fsck claimed before, and did not finish),
    each claimed so that its writer can no longer commit."""
    now = timezone.now()
    StagedWrite.objects.filter(until__lt=now, abandoned=False).update(abandoned=True)
    return list(StagedWrite.objects.filter(abandoned=True))


def writing() -> set[str]:
    """The folders a live write is storing files in: what is there is no orphan yet."""
    return set(StagedWrite.objects.filter(abandoned=False).values_list("rep", flat=True))
