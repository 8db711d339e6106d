"""Writes of an item that came from elsewhere, with the identifiers it had there.

An item comes in through the deposit services (its IBI minted, its files stored, its record
checked as any deposit's); its alternate identifiers (models.AlternateIdentifier) are written
in the item's own transaction (`on_saved`), so an item is never here without them, nor they
without it. Its files are stored journaled (deposit/staging.py): an import killed between
storing them and committing leaves nothing that the next fsck does not remove. A Handle or
UUID that another item holds already is a Conflict, and nothing of the new item remains (the
deposit services remove its stored files).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from decimal import Decimal

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from ..communities import services as communities
from ..deposit import services
from ..models import (
    DC_ELEMENTS,
    AlternateIdentifier,
    Bundle,
    Collection,
    Item,
    ItemFile,
    Provenance,
)
from ..registry import names
from ..registry.names import Qualified

Scheme = AlternateIdentifier.Scheme
# (scheme, value, file name): file name "" for the item itself.
Alternate = tuple[str, str, str]
# Where an import puts an item: its owning collection and those it is mapped into
# (placement.py).
Placed = tuple[Collection, Sequence[Collection]]


def holder(ids: Iterable[Alternate]) -> Item | None:
    """The item that holds any of these identifiers, or None; Conflict when two items do."""
    ids = list(ids)
    if not ids:
        return None
    found = {row.item_id for row in AlternateIdentifier.objects.filter(
        scheme__in={s for s, _v, _f in ids}, value__in={v for _s, v, _f in ids})
        if (row.scheme, row.value) in {(s, v) for s, v, _f in ids}}
    if len(found) > 1:
        raise services.Conflict(_("these identifiers belong to different items here: %(ids)s")
                                % {"ids": ", ".join(f"{s}:{v}" for s, v, _f in ids)})
    return Item.objects.get(pk=found.pop()) if found else None


# DSpace's default Handle prefix: every repository that never registered its own has it, so
# `123456789/42` names an item only within its own repository.
PLACEHOLDER_PREFIX = "123456789"


def refuse_unless_the_same(existing: Item, ids: Iterable[Alternate]) -> None:
    """Conflict when `existing` was found by Handles of DSpace's default prefix alone (no OAI
    identifier, no UUID of its own matched): two repositories may both have `123456789/42`,
    so an item found that way is the same only if nothing else differs (the callers check
    that first), never one to update with another source's record."""
    held = set(AlternateIdentifier.objects.filter(item=existing).values_list("scheme", "value"))
    matched = [(s, v) for s, v, _f in ids if (s, v) in held]
    if matched and all(s == AlternateIdentifier.Scheme.HANDLE
                       and v.split("/", 1)[0] == PLACEHOLDER_PREFIX for s, v in matched):
        raise services.Conflict(_(
            "the Handle %(handle)s is held here by %(ibi)s, which differs from this record: "
            "%(prefix)s is DSpace's default prefix, which many repositories share, so this is "
            "not taken as the same item; nothing was changed") % {
            "handle": matched[0][1], "ibi": existing.ibi, "prefix": PLACEHOLDER_PREFIX})


def holders(keys: Iterable[tuple[str, str]]) -> dict[tuple[str, str], int]:
    """(scheme, value) → the id of the item holding it, for many at once (one query)."""
    keys = set(keys)
    if not keys:
        return {}
    rows = AlternateIdentifier.objects.filter(
        scheme__in={s for s, _v in keys}, value__in={v for _s, v in keys}).values_list(
        "scheme", "value", "item_id")
    return {(s, v): item_id for s, v, item_id in rows if (s, v) in keys}


def add_ids(item: Item, ids: Iterable[Alternate]) -> None:
    """The identifiers the item does not have yet; Conflict when another item has one."""
    have = set(AlternateIdentifier.objects.filter(item=item).values_list("scheme", "value"))
    rows = [AlternateIdentifier(item=item, scheme=s, value=v, file_name=f)
            for s, v, f in dict.fromkeys(ids) if (s, v) not in have]
    try:
        with transaction.atomic():
            AlternateIdentifier.objects.bulk_create(rows)
    except IntegrityError:
        taken = AlternateIdentifier.objects.filter(
            value__in=[r.value for r in rows]).exclude(item=item).select_related("item").first()
        raise services.Conflict(
            _("%(scheme)s %(value)s is already the identifier of %(ibi)s")
            % {"scheme": taken.get_scheme_display() if taken else "",
               "value": taken.value if taken else "",
               "ibi": taken.item.ibi if taken else ""}) from None


def deposit(*, title: str, language: str, dc: dict[str, list[str]],
            uploads: list[services.Upload], target_file: str, ids: Sequence[Alternate],
            previous_edition: Item | None = None, access: services.Access | None = None,
            restricted_files: Sequence[str] = (), restored_date: Decimal | None = None,
            collection: Collection | None = None, mapped: Sequence[Collection] = (),
            provenance: str = Provenance.NEW) -> Item:
    """A new Original with its alternate identifiers, or a ServiceError and nothing. The
    caller has seen that no item holds them (`holder`); one that another writer took since is
    refused by the unique constraint, and the deposit with it. `collection` owns it (None:
    the default collection), and it is mapped into `mapped`; its access is what the source
    said (`access`, None: open), never the collection's default for new deposits.
    `provenance`: "elsewhere" (models.Provenance) when the librarian says the content was
    published at its source (--published-elsewhere); new content is refused where the
    collection reviews (item_deposit)."""
    def write(item: Item) -> None:
        AlternateIdentifier.objects.bulk_create(
            AlternateIdentifier(item=item, scheme=s, value=v, file_name=f)
            for s, v, f in dict.fromkeys(ids))
        if mapped:
            communities.item_map(item=item, collections=mapped)

    return services.item_deposit(
        title=title, language=language, dc=dc, uploads=uploads, target_file=target_file,
        previous_edition=previous_edition, access=access or services.Access(),
        restricted_files=restricted_files, on_saved=write, restored_date=restored_date,
        journal=True, collection=collection, provenance=provenance)


def _key(schema: str, element: str, qualifier: str) -> str:
    """The key of a deposit's `dc` naming a field: its element for dc.<element>, else its
    name (deposit/services.py as_stored)."""
    if schema == "dc" and not qualifier and element in DC_ELEMENTS:
        return element
    return names.join(schema, element, qualifier)


def stored_values(item: Item) -> dict[str, list[Qualified]]:
    """The item's values as a deposit's `dc` gives them: key → Qualified, in order."""
    stored: dict[str, list[Qualified]] = {}
    for schema, element, qualifier, value, language, authority, confidence in (
            item.dc_values.order_by("position", "id").values_list(
                "field__schema__name", "field__element", "field__qualifier", "value",
                "language", "authority", "confidence")):
        stored.setdefault(_key(schema, element, qualifier), []).append(
            Qualified(value, language, authority, confidence))
    return stored


def bundles_of(item: Item) -> dict[tuple[str, str], str]:
    """(bundle, name) → sha256 of the item's files outside ORIGINAL (TEXT, THUMBNAIL …)."""
    return {(b, n): sha for b, n, sha in ItemFile.every_bundle.filter(item=item).exclude(
        bundle=Bundle.ORIGINAL).values_list("bundle", "name", "sha256")}


def in_collections(item: Item, placed: Placed | None) -> bool:
    """Whether the item is owned by and mapped into exactly these (None: wherever it is)."""
    if placed is None:
        return True
    owner, mapped = placed
    return item.collection_id == owner.pk and set(
        item.mapped_collections.values_list("pk", flat=True)) == {c.pk for c in mapped}


def place(item: Item, placed: Placed | None) -> None:
    """The item moved into its owning collection and mapped into exactly the others, unless
    it is there already (or `placed` is None: it stays where it is)."""
    if in_collections(item, placed):
        return
    owner, mapped = placed
    with transaction.atomic():
        if owner.pk != item.collection_id:
            communities.item_move(item=item, collection=owner)
        communities.item_map(item=item, collections=mapped)


def same(item: Item, *, title: str, language: str, dc: dict[str, list],
         files: dict[str, str], but_relations: bool = False,
         bundles: dict[tuple[str, str], str] | None = None, placed: Placed | None = None
         ) -> bool:
    """Whether the item already says exactly this (files: name → sha256): the same values of
    the same fields, with their languages and authorities (`but_relations`: whatever its
    relations); with `bundles` ((bundle, name) → sha256), the same files of its other
    bundles; with `placed`, in the same collections."""
    if bundles is not None and bundles_of(item) != bundles:
        return False
    if not in_collections(item, placed):
        return False
    stored = stored_values(item)
    try:
        rows = services.clean_metadata(dc, kept_dates=[v.value for v in stored.get("date", ())])
    except services.ServiceError:
        return False  # the update says why
    wanted: dict[str, list[Qualified]] = {}
    for row in rows:
        wanted.setdefault(_key(row.field.schema.name, row.field.element, row.field.qualifier),
                          []).append(Qualified(row.value, row.language, row.authority,
                                               row.confidence))
    if but_relations:
        stored = {k: v for k, v in stored.items() if not _relation(k)}
        wanted = {k: v for k, v in wanted.items() if not _relation(k)}
    return (item.title == title.strip() and item.language == services.clean_language(language)
            and stored == wanted
            and dict(item.files.values_list("name", "sha256")) == files)


def _relation(key: str) -> bool:
    return key == "relation" or key.startswith("dc.relation.")


def same_access(item: Item, access: services.Access | None,
                restricted_files: Sequence[str]) -> bool:
    """Whether the item's access already is this (open when None)."""
    level = access or services.Access()
    return (item.access_rights, item.embargo_until) == (level.rights, level.embargo_until) \
        and set(ItemFile.every_bundle.filter(item=item, restricted=True).values_list(
            "name", flat=True)) == set(restricted_files)


def update(item: Item, *, title: str, language: str, dc: dict[str, list[str]],
           uploads: list[services.Upload], ids: Sequence[Alternate],
           access: services.Access | None = None, restricted_files: Sequence[str] = (),
           placed: Placed | None = None) -> Item:
    """The item's metadata replaced by this, the new files added (a file here is never
    replaced: a file of the same name with other bytes is a Conflict, before any change);
    with `placed` (owning collection and mapped ones), moved and mapped there."""
    if item.is_deleted:
        raise services.Conflict(_("%(ibi)s is deleted here") % {"ibi": item.ibi})

    def write(item: Item) -> None:
        # Every field replaced: those the item has and those given.
        services.item_update(item=item, title=title, language=language,
                             dc={**{key: [] for key in stored_values(item)}, **dc})
        add_ids(item, ids)
        place(item, placed)
        level = access or services.Access()
        if (item.access_rights, item.embargo_until, set(restricted_files)) != (
                level.rights, level.embargo_until,
                set(ItemFile.every_bundle.filter(item=item, restricted=True).values_list(
                    "name", flat=True))):
            services.item_set_access(item=item, rights=level.rights,
                                     embargo_until=level.embargo_until, reason=level.reason,
                                     restricted_files=list(restricted_files))

    if uploads:  # the files stored first, journaled; all the rest in their rows' transaction
        services.item_add_files(item=item, uploads=uploads, on_saved=write, journal=True)
    else:
        with transaction.atomic():
            write(item)
    return item


def tombstone(item: Item, reason: str) -> Item:
    return services.item_delete(item=item, reason=reason)
