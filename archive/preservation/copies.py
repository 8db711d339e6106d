"""Copies of items held by other Archives, kept fresh (RTC-11 §5.2).

An IBI has one Original in the whole system and any number of Copies, all under the same
IBI; an Archive never holds both for one IBI. Everything here talks to other Archives running
this software through their REST API (archive.peer).

Copying (`copy_item`), idempotent and resumable:

1. Refuse when the IBI is held here as Original (or was, and is now a tombstone).
2. Fetch the record; for each file, keep what storage already holds with the right sha256
   (left by an interrupted run), replace a partial or different one, fetch the rest into a
   temporary file while hashing it and store it only when its checksum is right.
3. Only then create or update the row, its Dublin Core and its file rows in one transaction.
   A crash before 3 leaves files under an IBI with no row (fsck calls them orphans, the next
   run keeps them); never a Copy row pointing at missing files. Nothing differs → nothing is
   written, so a second run changes nothing.

The copy keeps both IBI forms as the source spells them, its state is Copy, and it records
its provenance: `source_archive` (the base URL copied from), `copied_at` (when its content
last changed here) and `origin_timestamp` (the source's timestamp, which the archive service
answers for a Copy). Edition and translation links are made when the related item is held
here too, whichever of the two is copied first.

A Copy also keeps its Original's relations as the source's records name them
(`origin_relations`): the next edition and the members of the translation family by language,
refreshed with the copy. The archive service names those not held here, so that a resolver
asking for the last edition or a translation of a Copy goes on to the Archives holding them
instead of settling on the Copy (RTC-11 §8.2).

Decision — deleted at the source: the copy becomes a tombstone too (state Deleted, files
kept, like a deposit deleted here). A resolver taking the first answer must not keep serving
what the Original's Archive withdrew. A tombstone stays one.

Refreshing (`refresh_copies`, hourly): every Copy is copied again from its source_archive; the
record's timestamp (or anything else in it) differing from ours is what makes a run write.

A Copy keeps its Original's access conditions (level, embargo, reason, restricted files), so
this Archive serves to its readers exactly what the Original's serves: nothing of an embargoed
item, until the Original's Archive lifts the embargo and a refresh brings the open level here
(`manage.py liftembargoes` lifts Originals only; a Copy follows its Original).

Told, at the Original's Archive (`copied_elsewhere`): a run that made or changed a Copy tells
the source so, when it copies with an account there (IBI_PEER_TOKENS), and the source records a
replication event whose agent is the copying Archive, by its archive service IBI. Reads alone
cannot say so: a copy's requests look like a reader's, and an Archive copying open items with
no account is vouched for by nobody, so it is not recorded. The notice is best effort: a source
that is down or refuses it never fails the copy.

Migration (hand-over of an Original between Archives) is migration.py's, on top of copying.
"""
from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import httpx
from django.core.exceptions import ValidationError
from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from ..deposit import links, selectors, services, storage
from ..identifiers import ibi as ibilib
from ..models import DcValue, Item, ItemFile, PeerAccount, PremisEvent, normalize_language
from ..refusals import BadGateway, Forbidden
from ..registry import names
from ..registry import selectors as registry
from . import events, peer
from .peer import PeerError, Record

logger = logging.getLogger(__name__)


class CopyRefused(services.Conflict):
    """This Archive will not copy (or hand over) the item, for the reason given."""


class PeerFailed(BadGateway):
    """The other Archive could not be asked or answered nonsense: 502 for the API."""


@dataclass
class CopyResult:
    item: Item | None
    outcome: str  # created | updated | unchanged | deleted | promoted
    fetched: list[str] = field(default_factory=list)  # files downloaded by this run
    kept: list[str] = field(default_factory=list)  # found stored already, checksum right


@contextmanager
def peer_client(http: httpx.Client | None) -> Iterator[httpx.Client]:
    if http is not None:
        yield http
        return
    with peer.client() as fresh:
        yield fresh


def same_archive(a: str, b: str) -> bool:
    """Two base URLs of one Archive: scheme and a trailing slash aside, any case of host."""
    if not a or not b:
        return False
    x, y = urlsplit(a), urlsplit(b)
    default = {"http": 80, "https": 443}
    return ((x.hostname, x.port or default.get(x.scheme), x.path.rstrip("/"))
            == (y.hostname, y.port or default.get(y.scheme), y.path.rstrip("/")))


def allowed(base: str) -> str:
    try:
        return peer.allowed_base(base)
    except PeerError as exc:
        raise services.ServiceError(str(exc)) from None


def own_base_url() -> str:
    return peer.base_url(links.base_url())


# -- Finding the local record -------------------------------------------------------------------

def _local(rep: str, ibip: str, *, lock: bool = False) -> Item | None:
    """The item held here under either form, or None; CopyRefused if the forms disagree."""
    rows = Item.objects.filter(Q(ibi__in=selectors.spellings(ibilib.parse(rep)))
                               | Q(ibip__in=selectors.spellings(ibilib.parse(ibip))))
    found = list((rows.select_for_update() if lock else rows).order_by("pk")[:2])
    if not found:
        return None
    item = found[0]
    if len(found) > 1 or ibilib.parse(item.ibi) != ibilib.parse(rep) \
            or ibilib.parse(item.ibip) != ibilib.parse(ibip):
        raise CopyRefused(_("%(rep)s and %(ibip)s name different items here: they cannot be "
                            "one copied item") % {"rep": rep, "ibip": ibip})
    return item


def refuse_original(item: Item | None) -> None:
    if item is None:
        return
    if item.state == Item.State.ORIGINAL or (item.is_deleted and not item.source_archive):
        refused = (_("%(ibi)s is held here as Original: an Archive cannot also hold a copy of "
                     "it (RTC-11 §5.2)") if not item.is_deleted else
                   _("%(ibi)s is held here as a deleted Original: an Archive cannot also hold a "
                     "copy of it (RTC-11 §5.2)"))
        raise CopyRefused(refused % {"ibi": item.ibi})


# -- Copying --------------------------------------------------------------------------------------

def copy_item(*, ibi: str, source: str, http: httpx.Client | None = None,
              watch=None) -> CopyResult:
    """Copy (or refresh the copy of) the item `ibi` held by the Archive at `source`; `watch`
    (jobs.py Watch) hears of the bytes to fetch and of each chunk fetched."""
    try:
        parsed = ibilib.parse(ibi)
    except ValueError as exc:
        raise services.ServiceError(_("%(ibi)r is not an IBI: %(reason)s")
                                    % {"ibi": ibi, "reason": exc}) from None
    # Before any network: an Original here is never overwritten by anyone's copy.
    refuse_original(selectors.item_by_ibi(str(parsed)))
    source = allowed(source)
    with peer_client(http) as client:
        try:
            record = peer.fetch_record(client, source, ibi)
        except PeerError as exc:
            raise PeerFailed(str(exc)) from None
        return copy_record(record, source=source, http=client, watch=watch)


def copy_record(record: Record, *, source: str, http: httpx.Client, watch=None
                ) -> CopyResult:
    local = _local(record.ibi, record.ibip)
    refuse_original(local)
    if record.state == Item.State.DELETED:
        if local is None:
            raise CopyRefused(_("%(ibi)s is deleted at %(source)s: there is nothing to copy")
                              % {"ibi": record.ibi, "source": source})
        return _tombstone(local, record)
    if local is not None and local.is_deleted:
        raise CopyRefused(_("the copy of %(ibi)s here is a tombstone; it stays one")
                          % {"ibi": record.ibi})
    if record.state == Item.State.COPY and same_archive(record.source_archive, own_base_url()) \
            and local is not None and same_archive(local.source_archive, source):
        logger.warning("%s: %s says it handed the Original over to us, and we hold a Copy of "
                       "it: an unfinished migration; run migrateitem to finish it",
                       record.ibi, source)
    result = CopyResult(item=local, outcome="unchanged")
    try:
        _ensure_files(record, source, http, local, result, watch)
    except PeerError as exc:
        raise PeerFailed(str(exc)) from None
    relations = origin_relations(record, source, http)
    for attempt in (1, 2):
        try:
            result.item, result.outcome = _commit(record, source, relations, result)
            break
        except IntegrityError:
            # Another run created the row first: the second attempt updates it instead.
            if attempt == 2:
                raise
    if result.fetched or result.outcome != "unchanged":
        logger.info("copy of %s from %s: %s, %d files fetched, %d kept", record.ibi, source,
                    result.outcome, len(result.fetched), len(result.kept))
    if result.outcome in ("created", "updated"):
        _tell_source(http, source, record.ibi, refreshed=result.outcome == "updated")
    return result


def _tell_source(http: httpx.Client, source: str, ibi: str, *, refreshed: bool) -> None:
    """The source told of the Copy made or refreshed here, when this Archive copies with an
    account there; a source that does not take it is logged, the copy stands."""
    if not peer.credentials(source):
        return
    try:
        peer.tell_copied(http, source, ibi, archive=selectors.archive_service().ibi,
                         refreshed=refreshed)
    except PeerError as exc:
        logger.warning("the copy of %s stands; telling %s of it failed: %s", ibi, source, exc)


def copied_elsewhere(item: Item, *, archive: str, refreshed: bool, account) -> PremisEvent:
    """Another Archive (`archive`: its archive service IBI) tells, through the account it copies
    with (`account`), that it made or refreshed a Copy of an Original held here: a replication
    event of the item, that Archive its agent."""
    if item.state != Item.State.ORIGINAL:
        raise CopyRefused(_("%(ibi)s is not an Original held here: its copies are its "
                            "Original's Archive's to record") % {"ibi": item.ibi})
    own = selectors.archive_service()
    if ibilib.parse(archive) in (ibilib.parse(own.ibi), ibilib.parse(own.ibip)):
        raise CopyRefused(_("%(archive)s is this Archive's own archive service: an Archive "
                            "holds no Copy of its own Original") % {"archive": archive})
    # The account speaks for one Archive: the one `createpeer --archive` named, or the one
    # its first notice named.
    bound, _created = PeerAccount.objects.get_or_create(user=account,
                                                        defaults={"archive": archive})
    if ibilib.parse(bound.archive) != ibilib.parse(archive):
        raise Forbidden(_("the account %(account)s speaks for the Archive %(bound)s, not for "
                          "%(archive)s") % {"account": account.get_username(),
                                            "bound": bound.archive, "archive": archive})
    said = "Copy refreshed at" if refreshed else "Copy made at"
    return events.record(events.Type.REPLICATION, ibi=item.ibi, agent=events.archive(archive),
                         detail=f"{said} {archive}, as told by its account "
                                f"{account.get_username()}")


def _trusted(local: Item | None) -> dict[str, tuple[int, str]]:
    """Files committed for the local copy that fixity has not found wrong."""
    if local is None:
        return {}
    rows = local.files.filter(fixity_problem="").values_list("name", "size", "sha256")
    return {name: (size, sha) for name, size, sha in rows}


def _stored_matches(rep: str, remote: peer.RemoteFile) -> bool | None:
    """None: nothing stored; else whether the stored bytes are exactly the remote file's."""
    key = storage.file_key(rep, remote.name)
    if not default_storage.exists(key):
        return None
    if default_storage.size(key) != remote.size:
        return False
    with storage.open_file(rep, remote.name) as stored:
        return storage.sha256_of(stored) == (remote.sha256, remote.size)


def _ensure_files(record: Record, source: str, http: httpx.Client, local: Item | None,
                  result: CopyResult, watch=None) -> None:
    trusted = _trusted(local)
    if watch is not None:
        watch.planned(sum(remote.size for remote in record.files))
    for remote in record.files:
        key = storage.file_key(record.ibi, remote.name)
        if trusted.get(remote.name) == (remote.size, remote.sha256) \
                and default_storage.exists(key):
            continue  # committed before and not found wrong since: fixity watches it
        matches = _stored_matches(record.ibi, remote)
        if matches:
            result.kept.append(remote.name)
            continue
        if matches is False:  # partial, stale or damaged: the source's bytes win
            default_storage.delete(key)
        fetched = peer.download(http, source, record.ibi, remote, watch)
        try:
            storage.store(record.ibi, remote.name, fetched)
        except storage.StorageConflict:
            # A concurrent run stored it meanwhile; keep it if it is the right file.
            if not _stored_matches(record.ibi, remote):
                raise PeerError(_("%(key)s was written concurrently with other bytes; "
                                  "run the copy again") % {"key": key}) from None
        finally:
            fetched.close()
        result.fetched.append(remote.name)


def origin_relations(record: Record, source: str, http: httpx.Client) -> dict[str, str]:
    """The Original's relations (Table 9.5 names → IBI) as the source's records give them:
    ``.nextedition``, and ``.translation(<tag>)`` for each live member of its translation
    family but itself, read from the members' own records (only they say their language);
    and, not relations of Table 9.5 but kept for the same reason, ``.previousedition`` and
    ``.translationof``, whatever Archive holds them: a record never loses a link because the
    related item is held elsewhere (the API's record states them, migration keeps them).

    A member whose record cannot be read now is left out rather than failing the copy: a
    relation missing here only sends the resolver to the other Archives, as for any Copy.
    """
    named = {".nextedition": record.next_edition, ".previousedition": record.previous_edition,
             ".translationof": record.translation_of}
    relations = {name: ibi for name, ibi in named.items() if ibi}
    root = _member(http, source, record.translation_of) if record.translation_of else record
    if root is None:
        return relations
    members = [root, *filter(None, (_member(http, source, ibi) for ibi in root.translations
                                    if not ibilib.same(ibi, record.ibi)))]
    for member in members:
        if member.language and member.state != Item.State.DELETED \
                and not ibilib.same(member.ibi, record.ibi):
            relations[f".translation({normalize_language(member.language)})"] = member.ibi
    return relations


def _member(http: httpx.Client, source: str, ibi: str) -> Record | None:
    try:
        return peer.fetch_record(http, source, ibi)
    except PeerError as exc:
        logger.info("copy: the relation to %s is left out for now: %s", ibi, exc)
        return None


def _desired(record: Record, source: str, relations: dict[str, str]) -> dict:
    return {
        "title": record.title,
        "language": normalize_language(record.language) if record.language else "",
        "target_file": record.target_file,
        "transferable": record.transferable,
        "state": Item.State.COPY,
        "source_archive": source,
        "origin_timestamp": record.timestamp,
        "origin_relations": relations,
        "access_rights": record.access_rights,
        "embargo_until": record.embargo_until,
        "access_reason": record.access_reason,
    }


def _metadata_rows(record: Record) -> list[tuple[str, str, int, str, str, int]]:
    """(field, value, position, language, authority, confidence) of every value the record
    gives with its field of the registry (issue 34: a copy loses no qualifier)."""
    positions: dict[str, int] = {}
    rows = []
    for name, value, language, authority, confidence in record.metadata:
        position = positions[name] = positions.get(name, -1) + 1
        rows.append((name, value, position, language, authority, confidence))
    return sorted(rows)


def _stored_metadata(item: Item) -> list[tuple[str, str, int, str, str, int]]:
    return sorted((names.join(schema, element, qualifier), value, position, language,
                   authority, confidence)
                  for schema, element, qualifier, value, position, language, authority,
                  confidence in item.dc_values.values_list(
                      "field__schema__name", "field__element", "field__qualifier", "value",
                      "position", "language", "authority", "confidence"))


def _qualified_values(item: Item, record: Record) -> list[DcValue]:
    """The rows of the record's values under their fields here; a field this registry lacks
    refuses the copy, naming it (nothing is written)."""
    fields = registry.fields_by_name()
    rows = []
    for name, value, position, language, authority, confidence in _metadata_rows(record):
        field = fields.get(name)
        if field is None:
            raise CopyRefused(_("%(field)s is not a field of this Archive's metadata registry")
                              % {"field": name})
        rows.append(DcValue(item=item, field=field, element=field.dc_element, value=value,
                            position=position, language=language, authority=authority,
                            confidence=confidence))
    return rows


def _dc_rows(record: Record) -> list[tuple[str, str, int, str]]:
    """(element, value, position, ORCID iD) of every Dublin Core value: creators' iDs too."""
    orcids = dict(enumerate(record.creator_orcids))
    return sorted((element, value, position, orcids.get(position, "") if element == "creator"
                   else "") for element, values in record.dc.items()
                  for position, value in enumerate(values))


def _commit(record: Record, source: str, relations: dict[str, str], result: CopyResult
            ) -> tuple[Item, str]:
    now = timezone.now()
    with transaction.atomic():
        item = _local(record.ibi, record.ibip, lock=True)
        refuse_original(item)  # again, under the lock
        if item is not None and item.is_deleted:
            raise CopyRefused(_("the copy of %(ibi)s here is a tombstone; it stays one")
                              % {"ibi": record.ibi})
        created = item is None
        if created:
            item = Item(ibi=record.ibi, ibip=record.ibip)
        desired = _desired(record, source, relations)
        changed = created or any(getattr(item, k) != v for k, v in desired.items())
        for name, value in desired.items():
            setattr(item, name, value)
        changed |= _link_editions(item, record)
        changed |= _link_translation(item, record)
        if record.metadata:
            dc_changed = created or _metadata_rows(record) != _stored_metadata(item)
        else:
            dc_changed = created or _dc_rows(record) != sorted(
                item.dc_values.values_list("element", "value", "position", "authority"))
        files_changed = created or _files_differ(item, record)
        if not (changed or dc_changed or files_changed or result.fetched or result.kept):
            return item, "unchanged"
        item.copied_at = now
        _full_clean(item)
        item.save()
        if dc_changed and record.metadata:
            item.dc_values.all().delete()
            DcValue.objects.bulk_create(_qualified_values(item, record))
        elif dc_changed:
            item.dc_values.all().delete()
            fields = registry.dc_fields()
            DcValue.objects.bulk_create(
                DcValue(item=item, field=fields[e], element=e, value=v, position=p, authority=o,
                        confidence=600 if o else -1) for e, v, p, o in _dc_rows(record))
        dropped = _sync_files(item, record, now, set(result.fetched) | set(result.kept))
        _link_followers(item, record)
        _copy_events(item, record, source, result, created, dropped)
    # Files the source no longer lists go once their rows are gone for good.
    transaction.on_commit(lambda: storage.remove(item.ibi, dropped))
    return item, "created" if created else "updated"


def _copy_events(item: Item, record: Record, source: str, result: CopyResult, created: bool,
                 dropped: list[str]) -> None:
    """A Copy received (ingestion) or refreshed (replication), the other Archive its agent;
    each file fetched its own event, with the digest it was checked against."""
    agent = events.archive_at(source)
    kind = events.Type.INGESTION if created else events.Type.REPLICATION
    said = "Copy received from" if created else "Copy refreshed from"
    events.record(kind, ibi=item.ibi, agent=agent, detail=(
        f"{said} {source}: {len(record.files)} files, {len(result.fetched)} fetched"
        + (f", {len(dropped)} dropped" if dropped else "")))
    digests = {f.name: f.sha256 for f in record.files}
    for name in result.fetched:
        events.record(kind, ibi=item.ibi, file=name, agent=agent,
                      detail=f"{said} {source}, SHA-256 {digests.get(name, '')}")


def _full_clean(item: Item) -> None:
    try:
        item.full_clean(exclude=["ibi", "ibip"])
    except ValidationError as exc:
        raise CopyRefused(_("the record of %(ibi)s cannot be kept here: %(reasons)s") % {
            "ibi": item.ibi, "reasons": "; ".join(
                f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items())}) from None


def _files_differ(item: Item, record: Record) -> bool:
    ours = set(item.files.values_list("name", "size", "sha256", "content_type", "restricted"))
    return ours != {(f.name, f.size, f.sha256, f.content_type, f.restricted)
                    for f in record.files}


def _sync_files(item: Item, record: Record, now, verified: set[str]) -> list[str]:
    rows = {row.name: row for row in item.files.all()}
    wanted = {f.name: f for f in record.files}
    for name, remote in wanted.items():
        row = rows.get(name)
        if row is None:
            ItemFile.objects.create(item=item, name=name, size=remote.size,
                                    sha256=remote.sha256, content_type=remote.content_type,
                                    restricted=remote.restricted, checked_at=now)
        elif (row.size, row.sha256, row.content_type) != (
                remote.size, remote.sha256, remote.content_type) or name in verified:
            row.size, row.sha256, row.content_type = remote.size, remote.sha256, \
                remote.content_type
            row.restricted = remote.restricted
            row.checked_at, row.fixity_problem = now, ""  # its bytes were verified just now
            row.save(update_fields=["size", "sha256", "content_type", "restricted",
                                    "checked_at", "fixity_problem"])
        elif row.restricted != remote.restricted:
            row.restricted = remote.restricted
            row.save(update_fields=["restricted"])
    dropped = sorted(set(rows) - set(wanted))
    item.files.filter(name__in=dropped).delete()
    return dropped


# -- Links between copies: whichever of two related items arrives first ------------------------

def _reflatten(first: Item) -> None:
    """Carry first's edition family and numbers along the chain after it."""
    current = first
    while (following := Item.objects.filter(previous_edition=current).first()) is not None:
        family, number = current.edition_family, current.edition_number + 1
        if (following.edition_family, following.edition_number) == (family, number):
            return
        following.edition_family, following.edition_number = family, number
        following.save(update_fields=["edition_family", "edition_number"])
        current = following


def _link_editions(item: Item, record: Record) -> bool:
    previous = selectors.item_by_ibi(record.previous_edition) if record.previous_edition \
        else None
    if previous is not None and (previous.pk == item.pk or Item.objects.filter(
            previous_edition=previous).exclude(pk=item.pk).exists()):
        previous = None  # that edition has another next edition here: leave the chain alone
    wanted = ((previous.pk, previous.edition_family, previous.edition_number + 1)
              if previous else (None, item.ibi, 1))
    if (item.previous_edition_id, item.edition_family, item.edition_number) == wanted:
        return False
    item.previous_edition = previous
    _pk, item.edition_family, item.edition_number = wanted
    return True


def _link_translation(item: Item, record: Record) -> bool:
    original = selectors.item_by_ibi(record.translation_of) if record.translation_of else None
    if original is not None and original.pk == item.pk:
        original = None
    if item.translation_of_id == (original.pk if original else None):
        return False
    item.translation_of = original
    return True


def _names(other: Item, relation: str, item: Item) -> bool:
    """Whether other is a Copy, or an Original whose relations held elsewhere name item (a
    migrated Original naming its previous edition or the item it translates)."""
    return other.state == Item.State.COPY or ibilib.same(
        other.origin_relations.get(relation) or "", item.ibi)


def _link_followers(item: Item, record: Record) -> None:
    """Items held here that the record names as this item's next edition or translations,
    copied (or migrated) before it and so left unlinked, are linked now."""
    if record.next_edition:
        following = selectors.item_by_ibi(record.next_edition)
        if following is not None and _names(following, ".previousedition", item) \
                and following.previous_edition_id is None and following.pk != item.pk \
                and not Item.objects.filter(previous_edition=item).exists():
            following.previous_edition = item
            following.save(update_fields=["previous_edition"])
    _reflatten(item)
    for text in record.translations:
        translation = selectors.item_by_ibi(text)
        if translation is not None and _names(translation, ".translationof", item) \
                and translation.translation_of_id is None and translation.pk != item.pk:
            translation.translation_of = item
            translation.save(update_fields=["translation_of"])


def _tombstone(local: Item, record: Record) -> CopyResult:
    with transaction.atomic():
        item = _local(record.ibi, record.ibip, lock=True)
        if item.is_deleted:
            return CopyResult(item=item, outcome="unchanged")
        item.state = Item.State.DELETED
        item.deleted_at = record.deleted_at or timezone.now()
        item.origin_timestamp = record.timestamp
        item.copied_at = timezone.now()
        item.save()
        events.record(events.Type.DELETION, ibi=item.ibi,
                      agent=events.archive_at(item.source_archive),
                      detail=f"tombstone: deleted at {item.source_archive}, the Copy follows")
    logger.info("copy of %s: deleted at its source, now a tombstone", item.ibi)
    return CopyResult(item=item, outcome="deleted")


# -- Keeping copies fresh -------------------------------------------------------------------------

def copies_to_refresh() -> list[tuple[str, str]]:
    """(IBI, source) of every live Copy, least recently copied first."""
    rows = (Item.objects.filter(state=Item.State.COPY).exclude(source_archive="")
            .order_by("copied_at", "pk").values_list("ibi", "source_archive"))
    return list(rows)


def refresh_copies(*, http: httpx.Client | None = None) -> dict[str, CopyResult | Exception]:
    """Copy every Copy again from its source; a failure of one is reported, not raised."""
    results: dict[str, CopyResult | Exception] = {}
    with peer_client(http) as client:
        for ibi, source in copies_to_refresh():
            try:
                results[ibi] = copy_item(ibi=ibi, source=source, http=client)
            except services.ServiceError as exc:
                logger.warning("refreshing the copy of %s from %s failed: %s", ibi, source, exc)
                results[ibi] = exc
    return results
