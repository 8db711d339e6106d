"""Writes: deposit, new files, metadata, tombstones, the archive service item, the librarians.

Every function is keyword-only and refuses with a Refusal (archive/refusals.py), which the
edges answer with its status.
Files are stored before the row commits and removed again if anything after them fails, so a
crash leaves at worst orphan files under a never-committed IBI, which `manage.py fsck` finds;
an import journals its writes (`journal`, staging.py), so that fsck removes those at once.
"""
from __future__ import annotations

import copy
import functools
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import IO, Any

from django.apps import apps
from django.conf import settings
from django.contrib.auth.models import Group, Permission
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from ..identifiers import orcid
from ..identifiers.minting import mint, restored
from ..models import (
    DC_ELEMENTS,
    AccessRights,
    Bundle,
    Collection,
    Confidence,
    DcValue,
    Item,
    ItemFile,
    PremisEvent,
    Provenance,
    normalize_language,
    validate_language,
)
from ..profiles import check as profiles
from ..profiles import selectors as profile_selectors
from ..refusals import Conflict, Refusal
from ..registry import authorities, names
from ..registry import selectors as registry
from ..registry.names import Qualified
from . import content_types, controlled, limits, selectors, staging, storage
from .values import DATE_EXAMPLES, is_date

# The name these services' refusals have had since before the one family (archive/refusals.py),
# which other packages and commands catch: any refusal.
ServiceError = Refusal


class ChecksumMismatch(Conflict):
    """The bytes received are not the ones the client's sha256 names."""


@dataclass
class Upload:
    """A file on its way in: a name as the client sent it, a readable binary file, and the
    content type the client declared if any (only a hint: see content_types.stored_type)."""

    name: str
    file: IO[bytes]
    content_type: str = ""
    # The work's files are ORIGINAL; an item from DSpace keeps its TEXT, THUMBNAIL and
    # LICENSE bundles beside them (models/files.py), stored apart (storage.bundle_folder).
    bundle: str = Bundle.ORIGINAL


def _clean_text(what: str, value: str) -> str:
    """Text a database and an XML record can hold: no NUL or other control characters."""
    if any(unicodedata.category(c) == "Cc" and c not in "\t\n\r" for c in value):
        raise ServiceError(_("%(what)s contains a control character") % {"what": what})
    return value.strip()


def clean_orcid(value: str) -> str:
    """The bare ORCID iD of what a depositor gave ("" for nothing), or a ServiceError whose
    message says what is wrong: the form, or the check digit (identifiers/orcid.py)."""
    if not value or not value.strip():
        return ""
    try:
        return orcid.normalize(value)
    except orcid.OrcidError as exc:
        if exc.reason == "check digit":
            raise ServiceError(_("%(value)r is not an ORCID iD: its check digit is wrong") % {
                "value": value}) from None
        raise ServiceError(_("%(value)r is not an ORCID iD: write it as 0000-0000-0000-000X")
                           % {"value": value}) from None


def clean_date(value: str) -> str:
    """A dc:date as given, if EDTF level 0 (values.py); else a ServiceError saying the forms."""
    text = value.strip()
    if not is_date(text):
        raise ServiceError(_("%(value)r is not a date: write it as ISO 8601, e.g. %(examples)s")
                           % {"value": value, "examples": DATE_EXAMPLES})
    return text


def clean_language(value: str | None) -> str:
    """A valid BCP 47 tag in its usual case (pt-br → pt-BR), "" for none, or a ServiceError
    naming the tag as given. The rule is models.validate_language, the model's own."""
    text = (value or "").strip()
    if not text:
        return ""
    try:
        validate_language(text)
    except ValidationError as exc:
        raise ServiceError(_("language: %(reason)s") % {"reason": " ".join(exc.messages)}
                           ) from None
    return normalize_language(text)


# A value as the edges give it: text; for a creator (text, ORCID iD); or a Qualified value
# (text, language, authority, confidence). The keys of the `dc` they come in are Dublin Core
# elements (a value of dc.<element>, no qualifier) or fields of the registry by name
# (dc.contributor.advisor, local.degree.level).
DcInput = str | tuple[str, str] | Qualified


def clean_authority(field: str, value: str) -> str:
    """The authority id of a value of `field` as kept (registry/authorities.py), or a
    ServiceError naming the field and the id."""
    try:
        return authorities.clean(value)
    except authorities.BadAuthority as exc:
        if exc.kind == "ORCID":
            reason = (_("its check digit is wrong") if exc.reason == "check digit"
                      else _("write it as 0000-0000-0000-000X"))
            raise ServiceError(_("%(field)s: %(value)r is not an ORCID iD: %(reason)s") % {
                "field": field, "value": value, "reason": reason}) from None
        raise ServiceError(_("%(field)s: %(value)r is not a Lattes CV id: it has 16 digits")
                           % {"field": field, "value": value}) from None


def _field_of(key: str, fields: dict) -> Any:
    """The registry's field a key of `dc` names: an element is dc.<element>; else a ServiceError
    naming the key."""
    if key in DC_ELEMENTS:
        return fields[f"dc.{key}"]
    parts = names.split(key)
    if parts is None:
        raise ServiceError(_("%(element)r is not a Dublin Core element nor a field of the "
                             "registry (schema.element.qualifier)") % {"element": key})
    found = fields.get(names.join(*parts))
    if found is None:
        if parts[2] and names.join(*parts[:2]) in fields:
            raise ServiceError(_("%(field)s: the qualifier %(qualifier)r is not registered for "
                                 "%(element)s") % {"field": key, "qualifier": parts[2],
                                                   "element": names.join(*parts[:2])})
        raise ServiceError(_("%(field)s is not a field of the metadata registry")
                           % {"field": key})
    return found


@functools.cache
def _translated_in(code: str) -> controlled.Translate:
    """gettext under `code`, each message looked up once a process (the catalogues are
    compiled before it starts)."""
    @functools.cache
    def translated(message: str) -> str:
        with translation.override(code):
            return translation.gettext(message)
    return translated


def as_stored(dc: dict[str, Iterable[DcInput]] | None,
              kept_dates: Iterable[str] = ()) -> dict[str, list[str]]:
    """The values as a deposit or an edit would store them (element → values in order): a
    type or licence by its URI, text cleaned, empty values gone. ServiceError as they would."""
    stored: dict[str, list[str]] = {}
    for row in _clean_metadata(dc, kept_dates):
        stored.setdefault(_key_of(row.field), []).append(row.value)
    return stored


def _key_of(field: Any) -> str:
    """The key of `dc` that names a field: its element for dc.<element>, else its name."""
    name = field.name
    return name[3:] if name.startswith("dc.") and name[3:] in DC_ELEMENTS else name


def clean_metadata(dc: dict[str, Iterable[DcInput]] | None,
                   kept_dates: Iterable[str] = ()) -> list[DcValue]:
    """The rows (unsaved DcValue, with their fields) the given values would be stored as, or
    the ServiceError a deposit would raise."""
    return _clean_metadata(dc, kept_dates)


def _clean_metadata(dc: dict[str, Iterable[DcInput]] | None,
                    kept_dates: Iterable[str] = ()) -> list[DcValue]:
    """The rows of the given values; a date must be EDTF level 0 unless it is one of
    `kept_dates`, already stored (older deposits), which an edit may keep as they are. A type
    or licence named by its label in any of the site's languages is stored as its URI
    (controlled.py), once."""
    rows, kept_dates = [], set(kept_dates)
    languages = [_translated_in(code) for code, _name in settings.LANGUAGES]
    fields = registry.fields_by_name() if dc else {}
    for key, values in (dc or {}).items():
        field = _field_of(key, fields)
        # dc.<element>'s values are checked as the element's always were (dates, vocabularies).
        element = key if key in DC_ELEMENTS else (
            field.element if field.schema.name == "dc" and not field.qualifier else "")
        if isinstance(values, str | Qualified):
            values = [values]
        position, seen = 0, set()
        for given in values:
            if isinstance(given, Qualified):
                text, orcid_id = given.value, ""
                language, confidence = given.language, given.confidence
                authority = clean_authority(key, given.authority or "")
            else:
                text, orcid_id = (given, "") if isinstance(given, str) else given
                language, authority, confidence = "", "", -1
            # A type or licence by its URI, whatever field says it (dc.rights.uri too).
            vocabulary = element or (field.dc_element if field.dc_element in ("type", "rights")
                                     else "")
            text = controlled.stored(vocabulary, _clean_text(key, text or ""), languages)
            if element in ("type", "rights") and text in seen:
                continue
            seen.add(text)
            orcid_id = clean_orcid(orcid_id or "")
            if element == "date" and text and text not in kept_dates:
                text = clean_date(text)
            if orcid_id and element != "creator":
                raise ServiceError(_("only a creator has an ORCID iD"))
            if orcid_id:
                authority, confidence = orcid_id, 600  # DSpace's CF_ACCEPTED
            if not text:
                if orcid_id:
                    raise ServiceError(_("a creator with an ORCID iD needs a name"))
                if authority:
                    raise ServiceError(_("%(field)s: a value with an authority id needs its "
                                         "text") % {"field": key})
                continue
            if confidence not in _CONFIDENCES:
                raise ServiceError(_("%(field)s: %(confidence)r is not a confidence (one of "
                                     "%(choices)s)") % {
                    "field": key, "confidence": confidence,
                    "choices": ", ".join(str(c) for c in sorted(_CONFIDENCES))})
            rows.append(DcValue(field=field, element=field.dc_element, value=text,
                                language=clean_language(language), position=position,
                                authority=authority, confidence=confidence))
            position += 1
    return rows


_CONFIDENCES = frozenset(Confidence.values)


def _grouped(rows: Iterable[DcValue]) -> dict[str, list[profiles.Row]]:
    found: dict[str, list[profiles.Row]] = {}
    for row in rows:
        found.setdefault(row.field.name, []).append(
            profiles.Row(row.value, row.language, row.authority))
    return found


def check_profile(*, collection: Collection | None, rows: list[DcValue],
                  named: Iterable[Any] = (), item: Item | None = None) -> None:
    """What the collection's submission profile (its own, else the default one) refuses of
    the values `rows` (of the fields `named`, which they replace) given to `item` (None: a
    deposit), raised as a ProfileRefusal naming the field (archive/profiles/check.py). The
    admin's form and the API check so; imports and harvests keep what the source says."""
    profile = profile_selectors.profile_of(collection)
    if profile is None:  # not even the default one (a librarian deleted it): nothing to check
        return
    entries = profile_selectors.entries_of(profile)
    given = {field.name: [] for field in named} | _grouped(rows)
    stored = _grouped(item.dc_values.select_related("field__schema")
                      .order_by("position", "id")) if item is not None else {}
    profiles.check(entries, given, stored)


def _safe_name(what: str, name: str) -> str:
    """storage.safe_name, its refusal a ServiceError (a 400), not a ValueError (a 500)."""
    try:
        return storage.safe_name(name)
    except storage.FileNameError as exc:
        raise ServiceError(_("%(what)s: %(reason)s") % {"what": what, "reason": exc}) from None


def _clean_uploads(uploads: list[Upload], existing: set[str] = frozenset(),
                   held: int = 0) -> list[Upload]:
    """The uploads under their stored names, checked: none named as a file of the item
    (`existing`, every bundle's) or as another upload, and the work's files within the count
    limit, with the `held` ones the item has (the other bundles, a thumbnail or extracted text
    a file, do not count)."""
    limits.check_count(sum(u.bundle == Bundle.ORIGINAL for u in uploads) + held)  # a 400
    clean, seen = [], set(existing)
    for upload in uploads:
        name = _safe_name(_("file name"), upload.name)
        if upload.bundle not in Bundle.values:
            raise ServiceError(_("%(name)s: %(bundle)r is not a bundle kept here") % {
                "name": name, "bundle": upload.bundle})
        if name in existing:
            raise Conflict(_("the item already has a file named %(name)r") % {"name": name})
        if name in seen:
            raise ServiceError(_("two files would be named %(name)r") % {"name": name})
        seen.add(name)
        clean.append(Upload(name=name, file=upload.file,
                            content_type=content_types.stored_type(name, upload.content_type),
                            bundle=upload.bundle))
    return clean


def _checksums(uploads: list[Upload], expected: list[str] | None) -> list[tuple[str, int]]:
    """Checksums and sizes, compared with the client's before anything is stored."""
    sums = []
    for upload in uploads:
        sha = getattr(upload.file, "sha256", None)
        size = getattr(upload.file, "size", None)
        if sha is None or size is None:
            # Both digests in one reading (the second for fixity, issue 38); a file that
            # comes with its sha256 (a pending upload) gets its sha512 at its first check.
            sha, sha512, size = storage.digests_of(upload.file)
            upload.file.sha512 = sha512
        limits.check_size(upload.name, size)  # FileTooLarge, a 413
        sums.append((sha, size))
    if expected is not None:
        if len(expected) != len(uploads):
            raise ServiceError(_("%(sums)d sha256 values for %(files)d files") % {
                "sums": len(expected), "files": len(uploads)})
        for upload, (sha, _size), claimed in zip(uploads, sums, expected, strict=True):
            if sha != claimed.strip().lower():
                raise ChecksumMismatch(_("sha256 of %(name)s is %(sha)s, not %(claimed)s") % {
                    "name": upload.name, "sha": sha, "claimed": claimed})
    return sums


def _remove(rep: str, uploads: Iterable[Upload]) -> None:
    for upload in uploads:
        storage.remove(rep, [upload.name], upload.bundle)


def _store_all(rep: str, uploads: list[Upload], sums, staged=None) -> list[ItemFile]:
    stored: list[Upload] = []
    try:
        for upload, (sha, size) in zip(uploads, sums, strict=True):
            if staged is not None:
                staging.renew(staged)
            upload.file.sha256, upload.file.size = sha, size
            storage.store(rep, upload.name, upload.file, upload.bundle)
            stored.append(upload)
    except storage.StorageConflict as exc:
        _remove(rep, stored)
        raise Conflict(_("%(key)s already exists") % {"key": exc.key}) from None
    except BaseException:  # a full storage (StorageFull, a 507) among others
        _remove(rep, stored)
        raise
    return [ItemFile(name=u.name, size=size, sha256=sha, content_type=u.content_type,
                     bundle=u.bundle, sha512=getattr(u.file, "sha512", ""))
            for u, (sha, size) in zip(uploads, sums, strict=True)]


def _read_once_committed(item: Item, files: list[ItemFile]) -> None:
    """Once the files' rows commit, their text is read and their thumbnails made, by a
    worker (apps.py `files_stored`, archive/fulltext/): the work's files, and those a TEXT or
    THUMBNAIL file arriving now was made of by DSpace (`tese.pdf` of `tese.pdf.txt`), which
    become their text and thumbnail."""
    ids = [f.pk for f in files if f.bundle == Bundle.ORIGINAL]
    made_of = {f.name.rpartition(".")[0] for f in files
               if f.bundle in (Bundle.TEXT, Bundle.THUMBNAIL)}
    if made_of:
        ids += ItemFile.objects.filter(item=item, name__in=made_of).exclude(
            pk__in=ids).values_list("pk", flat=True)
    transaction.on_commit(lambda: apps.get_app_config("archive").files_stored(ids))


Event = PremisEvent.Type


def _event(type: str, item: Item, **fields) -> None:
    """A preservation event of `item` in the caller's transaction (apps.py `record_event`:
    archive/preservation/ imports this package), its agent whoever acts now."""
    apps.get_app_config("archive").record_event(type, ibi=item.ibi, **fields)


def _files_ingested(item: Item, files: list[ItemFile], how: str) -> None:
    for f in files:
        _event(Event.INGESTION, item, file=f.name,
               detail=f"{how}: {f.bundle} file, {f.size} bytes, SHA-256 {f.sha256}")


def _full_clean(item: Item) -> None:
    try:
        # is_archive_service: services never create the archive service, and checking its
        # conditional unique constraint costs a query per deposit.
        item.full_clean(exclude=["ibi", "ibip", "is_archive_service"])
    except ValidationError as exc:
        raise ServiceError("; ".join(
            f"{field}: {' '.join(msgs)}" for field, msgs in exc.message_dict.items())) from None


# -- Access: who may read the files (archive/access/policy.py decides for every channel) -------

class _Unset:
    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()  # a field of set_access left as it is
_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


@dataclass(frozen=True)
class Access:
    """An item's access as the edges give it: a level of AccessRights (COAR), the first day
    an embargo is over (a date or its ISO text, only with "embargoed"), and why."""

    rights: str = AccessRights.OPEN
    embargo_until: date | str | None = None
    reason: str = ""


def _embargo_day(value: date | str | None) -> date | None:
    if value is None or isinstance(value, date):
        return value
    text = value.strip() if isinstance(value, str) else value
    try:
        if not isinstance(text, str) or not _DAY.fullmatch(text):
            raise ValueError
        return date.fromisoformat(text)
    except ValueError:
        raise ServiceError(_("embargo_until %(value)r is not a date: write it as YYYY-MM-DD")
                           % {"value": value}) from None


def clean_access(*, rights: str = UNSET, embargo_until: date | str | None = UNSET,
                 reason: str = UNSET, current: Item | None = None,
                 today: date | None = None) -> tuple[str, date | None, str]:
    """(level, embargo's first open day, reason) of an item's access, from what is given and,
    for what is not, `current`'s: a level other than "embargoed" drops a stored date. Refused
    with the reason (a ServiceError, nothing changed): an unknown level, a malformed date,
    "embargoed" without a date, a date with another level, an embargo that would end today or
    before (a date already stored may stay, until liftembargoes opens the item)."""
    today = today or timezone.localdate()
    level = rights if rights is not UNSET else (
        current.access_rights if current is not None else AccessRights.OPEN)
    if level not in AccessRights.values:
        raise ServiceError(_("%(value)r is not an access level: one of %(levels)s") % {
            "value": level, "levels": ", ".join(AccessRights.values)})
    stored = current.embargo_until if current is not None else None
    if embargo_until is UNSET:
        day = stored if level == AccessRights.EMBARGOED else None
    else:
        day = _embargo_day(embargo_until)
    if level == AccessRights.EMBARGOED and day is None:
        raise ServiceError(_("an embargoed item needs embargo_until, the first day its files "
                             "are open to all (YYYY-MM-DD)"))
    if level != AccessRights.EMBARGOED and day is not None:
        raise ServiceError(_("embargo_until goes with the access level embargoed only, not "
                             "with %(level)s") % {"level": level})
    if day is not None and day != stored and day <= today:
        raise ServiceError(_("embargo_until %(day)s is not after today (%(today)s): an "
                             "embargo ends on a day to come") % {
            "day": day.isoformat(), "today": today.isoformat()})
    if reason is UNSET:
        reason = current.access_reason if current is not None else ""
    reason = _clean_text(_("reason"), reason or "")
    limit = Item._meta.get_field("access_reason").max_length
    if len(reason) > limit:
        raise ServiceError(_("the reason is limited to %(count)d characters") % {"count": limit})
    return level, day, reason


def access_of(collection: Collection, today: date | None = None) -> Access:
    """The access a deposit into `collection` gets when it names none: the collection's
    defaults, as archive/access/policy.py `default_access` reads them."""
    # Through the app config, as Item.save mints and finds the default collection:
    # archive/access/ and archive/communities/ import this package (access's services refuse
    # and link through it), so this package imports neither.
    level, day = apps.get_app_config("archive").default_access(
        collection.default_access_rights, collection.default_embargo_days,
        today or timezone.localdate())
    return Access(rights=level, embargo_until=day)


def _clean_restricted(names: Iterable[str] | None, files: Iterable[str]) -> set[str] | None:
    if names is None:
        return None
    known = set(files)
    wanted = {_safe_name(_("restricted file"), name) for name in names}
    if unknown := sorted(wanted - known):
        raise ServiceError(_("restricted files %(names)s are not files of the item") % {
            "names": ", ".join(repr(name) for name in unknown)})
    return wanted


@transaction.atomic
def _access_said(level: str, day: date | None, reason: str) -> str:
    """An access level as an event tells it: "embargoed until 2027-03-01 (reason)"."""
    said = f"{level} until {day.isoformat()}" if day else level
    return f"{said} ({reason})" if reason else said


def item_set_access(*, item: Item, rights: str = UNSET, embargo_until: date | str | None = UNSET,
                    reason: str = UNSET, restricted_files: Iterable[str] | None = None,
                    on_saved: Callable[[Item], None] | None = None) -> Item:
    """Set who may read an item's files: its level (what is not given stays; see
    `clean_access`) and, when given, exactly which of its files are restricted. The item's
    datestamp moves (harvesters and every kept answer see the change at once). For the admin,
    the API, imports (a DSpace embargo or resource policy mapped onto a level) and copies."""
    if item.is_deleted:
        raise Conflict(_("%(ibi)s is deleted") % {"ibi": item.ibi})
    if item.is_archive_service:
        raise ServiceError(_("the archive service is open to all"))
    level, day, reason = clean_access(rights=rights, embargo_until=embargo_until,
                                      reason=reason, current=item)
    files = list(ItemFile.every_bundle.filter(item=item))  # an import restricts its TEXT too
    restricted = _clean_restricted(restricted_files, [f.name for f in files])
    # Against the stored row: a form may have set the values on `item` already (the admin's).
    before = _access_said(*Item.objects.filter(pk=item.pk).values_list(
        "access_rights", "embargo_until", "access_reason").get())
    item.access_rights, item.embargo_until, item.access_reason = level, day, reason
    item.save(update_fields=["access_rights", "embargo_until", "access_reason", "updated"])
    changes = [] if before == _access_said(level, day, reason) else [
        f"access {before} -> {_access_said(level, day, reason)}"]
    if restricted is not None:
        for file in files:
            if file.restricted != (file.name in restricted):
                file.restricted = file.name in restricted
                file.save(update_fields=["restricted"])
                changes.append(f"{file.name} {'restricted' if file.restricted else 'open'}")
    if changes:
        _event(Event.POLICY_ASSIGNMENT, item, detail="; ".join(changes))
    if on_saved is not None:
        on_saved(item)
    return item


def item_deposit(
    *,
    title: str,
    uploads: list[Upload],
    target_file: str = "",
    language: str = "",
    previous_edition: Item | None = None,
    translation_of: Item | None = None,
    sha256: list[str] | None = None,
    dc: dict[str, Iterable[DcInput]] | None = None,
    transferable: bool = True,
    access: Access | None = None,
    restricted_files: Iterable[str] = (),
    on_saved: Callable[[Item], None] | None = None,
    restored_date: Decimal | None = None,
    journal: bool = False,
    collection: Collection | None = None,
    by_profile: bool = False,
    provenance: str = Provenance.NEW,
) -> Item:
    """Deposit a new Original: mint its IBI, store its files, commit its record.

    `restored_date`: the item comes back under the IBI this Archive minted for it at that
    date (archive/dspace/ibis.py), which is not minted again (minting.restored).

    `collection`: its owning collection (the default collection when None). `access` (when
    None, the collection's default: `access_of`) and `restricted_files` (names among the
    files) say who may read its files; they are checked before anything is stored
    (`clean_access`). `journal`: the
    write is journaled (staging.py), so that fsck removes what a kill leaves (imports).

    `on_saved(item)` runs in the record's own transaction, so what it writes commits with the
    item or not at all (idempotency.py links the client's key to the item so; every write here
    takes one).

    `by_profile`: the values are checked against the collection's submission profile
    (`check_profile`), as the admin and the API deposit.

    `provenance` (models.Provenance): new content (the default) is refused (a 403) where its
    collection, or that of the item it is an edition or translation of, reviews deposits
    (archive/review/policy.py `check_deposit`): it goes through a submission. Only the review's
    publication says "reviewed"; an import of content published elsewhere says "elsewhere"
    on a librarian's explicit word (tests/test_review_bypass.py holds every path to it)."""
    item, uploads, metadata, restricted = _checked_deposit(
        title=title, uploads=uploads, target_file=target_file, language=language,
        previous_edition=previous_edition, translation_of=translation_of, dc=dc,
        transferable=transferable, access=access, restricted_files=restricted_files,
        collection=collection, by_profile=by_profile, provenance=provenance)
    sums = _checksums(uploads, sha256)

    minted = mint() if restored_date is None else restored(restored_date)
    item.ibi, item.ibip = minted.rep, minted.ibip
    staged = staging.begin(item.ibi) if journal else None
    try:
        files = _store_all(item.ibi, uploads, sums, staged)
        try:
            with transaction.atomic():
                item.save()
                for row in metadata:
                    row.item = item
                DcValue.objects.bulk_create(metadata)
                for f in files:
                    f.item = item
                    f.restricted = f.name in restricted
                ItemFile.objects.bulk_create(files)
                _read_once_committed(item, files)
                how = ("restored under the IBI this Archive minted before"
                       if restored_date is not None else f"deposit ({provenance})")
                _event(Event.INGESTION, item, detail=_deposit_said(item, how, files))
                _files_ingested(item, files, how)
                if staged is not None:
                    staging.end(staged)
                if on_saved is not None:
                    on_saved(item)
        except IntegrityError:
            # Lost a race the checks above could not see, e.g. two new editions of one item.
            _remove(item.ibi, uploads)
            raise Conflict(_("a concurrent change took this edition link or file name; "
                             "reload and try again")) from None
        except BaseException:
            _remove(item.ibi, uploads)
            raise
    finally:
        if staged is not None:
            staging.forget(staged)  # gone already when the rows committed
    return item


def _deposit_said(item: Item, how: str, files: list[ItemFile]) -> str:
    """An ingestion event's detail: how the item came, what it is, its files and access."""
    said = [how, f"collection {item.collection.slug}",
            f"access {_access_said(item.access_rights, item.embargo_until, item.access_reason)}",
            f"{len(files)} files"]
    if item.previous_edition_id:
        said.append(f"new edition of {item.previous_edition.ibi}")
    if item.translation_of_id:
        said.append(f"translation of {item.translation_of.ibi}")
    return "; ".join(said)


def _checked_deposit(
    *,
    title: str,
    uploads: list[Upload],
    target_file: str = "",
    language: str = "",
    previous_edition: Item | None = None,
    translation_of: Item | None = None,
    dc: dict[str, Iterable[DcInput]] | None = None,
    transferable: bool = True,
    access: Access | None = None,
    restricted_files: Iterable[str] = (),
    collection: Collection | None = None,
    by_profile: bool = False,
    provenance: str = Provenance.NEW,
) -> tuple[Item, list[Upload], list[DcValue], set[str]]:
    """The unsaved item, its uploads under their stored names, its Dublin Core rows and its
    restricted files, as item_deposit stores them; or its refusal."""
    title = _clean_text("title", title or "")
    if not title:
        raise ServiceError(_("title is required"))
    uploads = _clean_uploads(uploads)
    names = [u.name for u in uploads]
    originals = [u.name for u in uploads if u.bundle == Bundle.ORIGINAL]
    target_file = (_safe_name("target_file", target_file) if target_file
                   else (originals[0] if originals else ""))
    if target_file and target_file not in originals:
        raise ServiceError(_("target_file %(name)r is not one of the files")
                           % {"name": target_file})
    metadata = _clean_metadata(dc)
    collection = collection or Collection.objects.get(
        pk=apps.get_app_config("archive").default_collection())
    apps.get_app_config("archive").check_deposit(
        collection_ids=[collection.pk, *(linked.collection_id for linked in
                                         (previous_edition, translation_of) if linked)],
        provenance=provenance)
    if by_profile:
        check_profile(collection=collection, rows=metadata)
    access = access or access_of(collection)
    level, day, reason = clean_access(rights=access.rights, embargo_until=access.embargo_until,
                                      reason=access.reason)
    restricted = _clean_restricted(restricted_files, names) or set()
    item = Item(title=title, language=clean_language(language),
                target_file=target_file, previous_edition=previous_edition,
                translation_of=translation_of, transferable=transferable,
                access_rights=level, embargo_until=day, access_reason=reason,
                collection=collection)
    _check_links(item)
    _refuse_copy(previous_edition, EDITION_OF_COPY)
    _refuse_copy(translation_of, TRANSLATION_OF_COPY)
    _full_clean(item)
    return item, uploads, metadata, restricted


def item_deposit_check(**deposit: Any) -> None:
    """What `item_deposit(**deposit)` would refuse before it stores anything, raised, and
    nothing written: a form validates with it and deposits once valid (the admin's
    ItemAdminForm; ItemAdmin.save_model writes). Files are checked by name here (an
    Upload's file may be None); their sizes and checksums as item_deposit reads them."""
    _checked_deposit(**deposit)


def _check_links(item: Item) -> None:
    previous = item.previous_edition
    if previous is not None:
        if item.pk is not None and previous.pk == item.pk:
            raise ServiceError(_("an item cannot be its own previous edition"))
        newer = Item.objects.filter(previous_edition=previous).exclude(pk=item.pk).first()
        if newer is not None:
            raise Conflict(_("%(previous)s already has a newer edition: %(newer)s")
                           % {"previous": previous.ibi, "newer": newer.ibi})
        if previous.is_archive_service:
            raise ServiceError(_("the archive service has no editions"))
    _check_translation(item, item.translation_of)


EDITION_OF_COPY = gettext_noop(
    "%(ibi)s is held here as a Copy: its new edition is deposited at the Archive of its "
    "Original, %(archive)s")
TRANSLATION_OF_COPY = gettext_noop(
    "%(ibi)s is held here as a Copy: its translation is deposited at the Archive of its "
    "Original, %(archive)s")


def _refuse_copy(linked: Item | None, message: str) -> None:
    """A new edition or a translation is made from the Original, at its Archive (RTC-11
    §5.2): a Copy here (or a Copy's tombstone) is never the previous edition or the item
    translated of a deposit, or the Copy would answer a relation its Original does not know."""
    if linked is None or not (linked.state == Item.State.COPY
                              or linked.is_deleted and linked.source_archive):
        return
    raise ServiceError(_(message) % {"ibi": linked.ibi,
                                     "archive": selectors.original_archive(linked)})


def _check_translation(item: Item, original: Item | None) -> None:
    """A translation points at the original itself: never at itself, nor at a translation
    (whose original is the one to name), nor may an item with translations become one."""
    if original is None:
        return
    if original.is_archive_service:
        raise ServiceError(_("the archive service has no translations"))
    if item.pk is not None and original.pk == item.pk:
        raise ServiceError(_("an item cannot be a translation of itself"))
    if original.translation_of_id is not None:
        raise ServiceError(
            _("%(ibi)s is itself a translation: name its original, %(original)s")
            % {"ibi": original.ibi, "original": original.translation_of.ibi})
    if item.pk is not None and item.translations.exists():
        raise ServiceError(_("%(ibi)s has translations of its own, so it cannot be a "
                             "translation") % {"ibi": item.ibi})


def item_add_files(*, item: Item, uploads: list[Upload], sha256: list[str] | None = None,
                   on_saved: Callable[[Item], None] | None = None, journal: bool = False
                   ) -> list[ItemFile]:
    """Add files to an existing item; existing names are never overwritten. `on_saved(item)`
    runs in the rows' own transaction, and `journal` journals the write (as item_deposit's)."""
    if item.is_deleted:
        raise Conflict(_("%(ibi)s is deleted") % {"ibi": item.ibi})
    uploads = _clean_uploads(uploads, existing=set(
        ItemFile.every_bundle.filter(item=item).values_list("name", flat=True)),
        held=item.files.count())
    sums = _checksums(uploads, sha256)
    staged = staging.begin(item.ibi) if journal else None
    try:
        files = _store_all(item.ibi, uploads, sums, staged)
        try:
            with transaction.atomic():
                for f in files:
                    f.item = item
                ItemFile.objects.bulk_create(files)
                _read_once_committed(item, files)
                _files_ingested(item, files, "file added")
                originals = [f for f in files if f.bundle == Bundle.ORIGINAL]
                if not item.target_file and originals:
                    item.target_file = originals[0].name
                item.save(update_fields=["target_file", "updated"])
                if staged is not None:
                    staging.end(staged)
                if on_saved is not None:
                    on_saved(item)
        except IntegrityError:
            _remove(item.ibi, uploads)
            raise Conflict(_("a concurrent upload took one of these file names")) from None
        except BaseException:
            _remove(item.ibi, uploads)
            raise
    finally:
        if staged is not None:
            staging.forget(staged)
    return files


@transaction.atomic
def item_update(*, item: Item, dc: dict[str, Iterable[DcInput]] | None = None,
                on_saved: Callable[[Item], None] | None = None, by_profile: bool = False,
                collection: Collection | None = None, **fields) -> Item:
    """Change metadata (title, language, target file, links, Dublin Core); never the IBI.
    `on_saved(item)` runs in the change's own transaction (as item_deposit's). `by_profile`:
    the values given are checked against the submission profile of `collection` (the item's
    own when None, for a change that moves it there), as the admin and the API change."""
    if item.is_deleted:
        raise Conflict(_("%(ibi)s is deleted") % {"ibi": item.ibi})
    fields, rows = _checked_update(item, fields, dc, by_profile=by_profile,
                                   collection=collection)
    # Against the stored row: a form may have set more on `item` already (the admin's: its
    # access and collection too), which this save writes.
    stored = Item.objects.get(pk=item.pk)
    for name, value in fields.items():
        setattr(item, name, value)
    item.save()
    changed = [f.name for f in Item._meta.concrete_fields if f.name not in _UNTOLD
               and getattr(stored, f.attname) != getattr(item, f.attname)]
    access = [name for name in changed if name in _ACCESS]
    if access:
        was, now = (_access_said(i.access_rights, i.embargo_until, i.access_reason)
                    for i in (stored, item))
        _event(Event.POLICY_ASSIGNMENT, item, detail=f"access {was} -> {now}")
    changed = [name for name in changed if name not in _ACCESS]
    if rows is not None:
        named = item.dc_values.select_related("field").filter(
            field__in={row.field for row in rows} | _fields_named(dc))
        before = _dc_said(named)
        named.delete()
        for row in rows:
            row.item = item
        DcValue.objects.bulk_create(rows)
        after = _dc_said(rows)
        changed += sorted({name for name, *_rest in before ^ after})
    if changed:
        _event(Event.METADATA_MODIFICATION, item, detail="changed: " + ", ".join(changed))
    if on_saved is not None:
        on_saved(item)
    return item


_ACCESS = {"access_rights", "embargo_until", "access_reason"}
_UNTOLD = {"updated"}  # moves with every save


def _dc_said(rows: Iterable[DcValue]) -> set[tuple]:
    """Dublin Core rows as comparable values, named by their field."""
    return {(row.field.name if row.field_id else row.element, row.value, row.language,
             row.position, row.authority) for row in rows}


def _fields_named(dc: dict[str, Any]) -> set[Any]:
    """The fields the keys of `dc` name (an update replaces their values, even by none). The
    element "creator" names every field given as a creator (dc.creator, and a DSpace thesis's
    dc.contributor.author): the API reads them all as `creator`, and what it writes back
    replaces them."""
    fields = registry.fields_by_name()
    named = {_field_of(key, fields) for key in dc}
    if "creator" in dc:
        named |= {field for field in fields.values() if field.dc_element == "creator"}
    return named


def _checked_update(item: Item, fields: dict[str, Any],
                    dc: dict[str, Iterable[DcInput]] | None,
                    new_files: Iterable[str] = (), by_profile: bool = False,
                    collection: Collection | None = None,
                    ) -> tuple[dict[str, Any], list[DcValue] | None]:
    """The fields and Dublin Core rows as item_update writes them, or its refusal; `item`
    is left as it is (the changes are checked on a copy). `new_files`: names about to be
    added, which the target file may name."""
    # Editions are linked at deposit only: the chain is flattened into edition_family.
    allowed = {"title", "language", "target_file", "translation_of",
               "transferable"}
    unknown = set(fields) - allowed
    if unknown:
        raise ServiceError(_("cannot change %(fields)s") % {"fields": ", ".join(sorted(unknown))})
    fields = dict(fields)
    # A language or date stored before the checks were this strict may stay as it is.
    if "language" in fields and fields["language"] != item.language:
        fields["language"] = clean_language(fields["language"])
    if "target_file" in fields and fields["target_file"]:
        fields["target_file"] = _safe_name("target_file", fields["target_file"])
        if fields["target_file"] not in set(new_files) and not item.files.filter(
                name=fields["target_file"]).exists():
            raise ServiceError(_("target_file %(name)r is not one of the files")
                               % {"name": fields["target_file"]})
    if "title" in fields:
        fields["title"] = _clean_text("title", fields["title"] or "")
    if "translation_of" in fields and getattr(fields["translation_of"], "pk", None) != \
            item.translation_of_id:
        _refuse_copy(fields["translation_of"], TRANSLATION_OF_COPY)
        if fields["translation_of"] is not None:
            # Linking a published item as a translation of a reviewed collection's item is
            # a translation deposited there: the review's (review/policy.py).
            apps.get_app_config("archive").check_deposit(
                collection_ids=[fields["translation_of"].collection_id],
                provenance=Provenance.NEW)
    changed = copy.copy(item)
    for name, value in fields.items():
        setattr(changed, name, value)
    if not changed.title.strip():
        raise ServiceError(_("title is required"))
    _check_links(changed)
    _full_clean(changed)
    if dc is None:
        return fields, None
    rows = _clean_metadata(dc, kept_dates=item.dc("date"))
    if by_profile:
        check_profile(collection=collection or item.collection, rows=rows,
                      named=_fields_named(dc), item=item)
    return fields, rows


def item_change_check(*, item: Item, uploads: list[Upload] = (),
                      dc: dict[str, Iterable[DcInput]] | None = None,
                      access: Access | None = None, restricted_files: Iterable[str] | None = None,
                      by_profile: bool = False, collection: Collection | None = None,
                      **fields) -> None:
    """What item_add_files(uploads), item_update(dc, **fields) and item_set_access(access,
    restricted_files), called in this order, would refuse, raised, and nothing written: a form
    validates with it and writes once valid (the admin's ItemAdminForm; ItemAdmin.save_model
    writes). `item` as it is stored; files are checked by name (an Upload's file may be
    None), their sizes and checksums as item_add_files reads them."""
    if item.is_deleted:
        raise Conflict(_("%(ibi)s is deleted") % {"ibi": item.ibi})
    existing = set(item.files.values_list("name", flat=True))
    every_name = set(ItemFile.every_bundle.filter(item=item).values_list("name", flat=True))
    new = ({u.name for u in _clean_uploads(list(uploads), every_name, held=len(existing))}
           if uploads else set())
    _checked_update(item, fields, dc, new_files=new, by_profile=by_profile,
                    collection=collection)
    if access is not None:
        if item.is_archive_service:
            raise ServiceError(_("the archive service is open to all"))
        clean_access(rights=access.rights, embargo_until=access.embargo_until,
                     reason=access.reason, current=item)
    _clean_restricted(restricted_files, existing | new)


@transaction.atomic
def item_delete(*, item: Item, reason: str = "", at_creators_request: bool = False,
                on_saved: Callable[[Item], None] | None = None) -> Item:
    """Tombstone: the record and its IBI stay forever with state Deleted; files are kept.

    `reason` is shown on the tombstone; `at_creators_request`: the creators asked for the
    removal, and the tombstone cites it without their names. Deleting a tombstone again
    changes nothing. `on_saved` runs in the deletion's own transaction (as item_deposit's).
    """
    if item.is_archive_service:
        raise ServiceError(_("the archive service cannot be deleted"))
    reason = _clean_text("reason", reason or "")
    limit = Item._meta.get_field("deletion_reason").max_length
    if len(reason) > limit:
        raise ServiceError(_("the reason is limited to %(count)d characters") % {"count": limit})
    if not item.is_deleted:
        item.state = Item.State.DELETED
        item.deleted_at = timezone.now()
        item.deletion_reason = reason
        item.creators_withdrawn = at_creators_request
        item.save(update_fields=["state", "deleted_at", "deletion_reason", "creators_withdrawn",
                                 "updated"])
        said = "tombstone" + (": at the creators' request" if at_creators_request else "")
        _event(Event.DELETION, item, detail=f"{said}; {reason}" if reason else said)
    if on_saved is not None:
        on_saved(item)
    return item


def ensure_archive_service() -> Item:
    """The archive service item: Original, not transferable, one per repository."""
    existing = Item.objects.filter(is_archive_service=True).first()
    if existing is not None:
        return existing
    return Item.objects.create(
        title=f"Archive service of {settings.IBI_HOSTNAME}", language="en",
        is_archive_service=True, transferable=False, state=Item.State.ORIGINAL)


# Dublin Core and files are edited through the item (admin form, API): no separate rights.
# Access: librarians answer requests for a copy (and delete them, for the readers' privacy),
# make, revoke and delete secret links, and read the audit trail, which no one changes.
# Copies: they see how far the copies they asked for are.
LIBRARIAN_PERMISSIONS = ["add_item", "change_item", "delete_item", "view_item",
                         "view_accessrequest", "change_accessrequest", "delete_accessrequest",
                         "view_accesslink", "add_accesslink", "change_accesslink",
                         "delete_accesslink", "view_accessread", "view_copyjob",
                         "view_fixitycheck",
                         # Review (issue 35): roles and workflows are theirs to give; the
                         # submissions, tasks and history theirs to read, never to edit.
                         "view_submission", "view_task", "view_transition",
                         "view_submissioncheck",
                         # Accounts (issue 36): theirs to disable, enable and erase (LGPD),
                         # and their ways in to read.
                         "view_account", "change_account", "view_identity",
                         # What is inside the files (issue 37): how each file's text
                         # extraction went, the flagged ones theirs to look at.
                         "view_fileextraction",
                         # Preservation (issue 38): the events of every item and file, and
                         # their agents, to read; no one changes them.
                         "view_premisevent", "view_premisagent",
                         # Usage (issue 39): the dashboards theirs to read, the COUNTER API's
                         # customers theirs to add, and their keys to issue and revoke.
                         "view_usagemonth", "add_countercustomer", "change_countercustomer",
                         "view_countercustomer", "view_counterapikey", "change_counterapikey",
                         *(f"{verb}_{model}" for model in ("community", "collection",
                                                           "submissionprofile", "profilefield",
                                                           "vocabulary", "vocabularyterm",
                                                           "collectionrole", "workflow")
                           for verb in ("add", "change", "delete", "view"))]


def ensure_librarians_group() -> Group:
    group, _created = Group.objects.get_or_create(name="Librarians")
    perms = Permission.objects.filter(content_type__app_label="archive",
                                      codename__in=LIBRARIAN_PERMISSIONS)
    group.permissions.set(perms)
    return group
