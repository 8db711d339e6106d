"""Migration of a transferable Original from one Archive to another (RTC-11 §5.2).

From Archive S to Archive T, run at T by
`migrateitem <IBI> --from S --token <S's API token>`:

  step                                  S        T        requireditemstatus=Original
  1. T copies the item from S           Original Copy     S
  2. T asks S to hand over (POST        Copy     Copy     none (one round trip)
     /api/items/<ibi>/handover): S checks that T holds it as a complete, current Copy
     (same files and timestamp), then commits Copy, source_archive = T
  3. T, on S's 200, commits Original    Copy     Original T

Two Originals are never visible: S gives the Original up before T takes it, and S's
transaction (row locked, unchanged since the check) makes the hand-over happen once. The
window without an Original is one HTTP answer and one UPDATE wide; during it every Archive
still answers the item as a Copy, so plain resolution goes on working. If T never sees the
answer (a crash, a lost connection), S stays a Copy pointing at T and T a Copy of S: running
`migrateitem` again finds S already handed over to T and finishes step 3. We accept that
short, self-repairing gap because the opposite order (T first) would show the resolver two
Originals, which RTC-11 §8.2 treats as an Archive under suspicion. The refresh task does not
finish a migration by itself: from the records alone the two sides look alike (each a Copy
pointing at the other), so only the side that asked may promote itself; it logs the case.
"""
from __future__ import annotations

import logging
from collections.abc import Callable

import httpx
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from ..deposit import selectors, services
from ..identifiers import ibi as ibilib
from ..models import Item
from . import events, peer
from .copies import (
    CopyRefused,
    CopyResult,
    PeerFailed,
    allowed,
    copy_item,
    own_base_url,
    peer_client,
    refuse_original,
    same_archive,
)
from .peer import PeerError

logger = logging.getLogger(__name__)


def hand_over(*, item: Item, target: str, http: httpx.Client | None = None,
              on_saved: Callable[[Item], None] | None = None) -> Item:
    """At the Original's Archive: become a Copy of target's, once target holds it complete.

    Idempotent: handing over again to the same target answers the item as it is. `on_saved`
    runs in the hand-over's own transaction (as deposit's services')."""
    try:
        target = peer.base_url(target)
    except PeerError as exc:
        raise services.ServiceError(str(exc)) from None
    if item.state == Item.State.COPY and same_archive(item.source_archive, target):
        return item
    if item.is_archive_service or not item.transferable:
        raise CopyRefused(_("%(ibi)s is not transferable: its Original stays here")
                          % {"ibi": item.ibi})
    if item.state != Item.State.ORIGINAL:
        raise CopyRefused(_("%(ibi)s is held here as %(state)s: only an Original can be "
                            "handed over") % {"ibi": item.ibi, "state": item.get_state_display()})
    if same_archive(target, own_base_url()):
        raise CopyRefused(_("an Archive cannot hand an Original over to itself"))
    target = allowed(target)
    with peer_client(http) as client:
        try:
            record = peer.fetch_record(client, target, item.ibi)
        except PeerError as exc:
            raise PeerFailed(_("the target's copy could not be checked: %(reason)s")
                             % {"reason": exc}) from None
    ours = {(f.name, f.size, f.sha256) for f in item.files.all()}
    theirs = {(f.name, f.size, f.sha256) for f in record.files}
    if record.state != Item.State.COPY:
        raise CopyRefused(_("%(target)s holds %(ibi)s as %(state)s, not as a Copy")
                          % {"target": target, "ibi": item.ibi, "state": record.state})
    if ibilib.parse(record.ibip) != ibilib.parse(item.ibip):
        raise CopyRefused(_("%(target)s holds %(ibi)s under another IBIp: %(ibip)s")
                          % {"target": target, "ibi": item.ibi, "ibip": record.ibip})
    stamp = item.updated.replace(microsecond=0)
    if ours != theirs or record.timestamp != stamp:
        raise CopyRefused(_(
            "the copy at %(target)s is not complete and current (timestamp %(theirs)s, ours "
            "%(ours)s; %(alike)d of %(count)d files alike): refresh it first") % {
                "target": target, "theirs": f"{record.timestamp:%Y-%m-%dT%H:%M:%SZ}",
                "ours": f"{stamp:%Y-%m-%dT%H:%M:%SZ}", "alike": len(theirs & ours),
                "count": len(ours)})
    with transaction.atomic():
        locked = Item.objects.select_for_update().get(pk=item.pk)
        if locked.state != Item.State.ORIGINAL or locked.updated != item.updated:
            raise CopyRefused(_("%(ibi)s changed during the hand-over: try again")
                              % {"ibi": item.ibi})
        locked.state = Item.State.COPY
        locked.source_archive = target
        locked.origin_timestamp = stamp
        locked.copied_at = timezone.now()
        locked.save()
        # PREMIS "transfer" (custody moved), not "migration", which is a format's.
        events.record(events.Type.TRANSFER, ibi=locked.ibi, detail=(
            f"handed over to {target}: the Original is there, a Copy here"))
        if on_saved is not None:
            on_saved(locked)
    logger.info("%s handed over to %s: the Original is there, a Copy here", locked.ibi, target)
    return locked


def migrate_item(*, ibi: str, source: str, token: str, self_url: str | None = None,
                 http: httpx.Client | None = None) -> CopyResult:
    """At the target: copy the Original held at source, have source hand it over, become it."""
    try:
        self_url = peer.base_url(self_url or own_base_url())
    except PeerError as exc:
        raise services.ServiceError(str(exc)) from None
    source = allowed(source)
    with peer_client(http) as client:
        local = selectors.item_by_ibi(ibi)
        if local is not None and local.state == Item.State.ORIGINAL:
            if _handed_to_us(client, source, ibi, self_url):
                return CopyResult(item=local, outcome="unchanged")  # migrated before
            refuse_original(local)
        copied = copy_item(ibi=ibi, source=source, http=client)
        if copied.item.is_deleted:
            raise CopyRefused(_("%(ibi)s is deleted: there is nothing to migrate")
                              % {"ibi": copied.item.ibi})
        try:
            answer = peer.hand_over_request(client, source, copied.item.ibi, target=self_url,
                                            token=token)
            record = peer.parse_record(answer, copied.item.ibi)
        except PeerError as exc:
            raise PeerFailed(str(exc)) from None
        if record.state != Item.State.COPY or not same_archive(record.source_archive, self_url):
            raise PeerFailed(_("%(source)s answered the hand-over without handing %(ibi)s over")
                             % {"source": source, "ibi": ibi})
        return _promote(copied.item, source, copied)


def _handed_to_us(client: httpx.Client, source: str, ibi: str, self_url: str) -> bool:
    try:
        record = peer.fetch_record(client, source, ibi)
    except PeerError:
        return False
    return record.state == Item.State.COPY and same_archive(record.source_archive, self_url)


def _promote(item: Item, source: str, copied: CopyResult) -> CopyResult:
    with transaction.atomic():
        locked = Item.objects.select_for_update().get(pk=item.pk)
        if locked.state == Item.State.ORIGINAL:
            return CopyResult(item=locked, outcome="unchanged", fetched=copied.fetched)
        if locked.state != Item.State.COPY or not same_archive(locked.source_archive, source):
            raise CopyRefused(_("%(ibi)s changed here during the migration")
                              % {"ibi": locked.ibi})
        # The Original keeps the timestamp it had at its former Archive, and the relations
        # its records stated there (origin_relations): its previous and next editions, the
        # members of its translation family, wherever they are held. An item keeps naming its
        # next edition and translations wherever they went (#25, 1.).
        Item.objects.filter(pk=locked.pk).update(
            state=Item.State.ORIGINAL, source_archive="", origin_timestamp=None,
            updated=locked.origin_timestamp or timezone.now())
        events.record(events.Type.TRANSFER, ibi=locked.ibi, agent=events.archive_at(source),
                      detail=f"handed over from {source}: the Original is here now")
    locked.refresh_from_db()
    logger.info("%s migrated from %s: the Original is here now", locked.ibi, source)
    return CopyResult(item=locked, outcome="promoted", fetched=copied.fetched,
                      kept=copied.kept)
