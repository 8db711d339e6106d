"""The tree written: communities and collections saved and deleted, items moved and mapped.

Every write is checked before anything is saved, and each refusal names the field it is about
(a Refusal, 400): a slug taken, a community made its own ancestor, a collection with items
deleted, access defaults that contradict each other.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.utils.translation import gettext as _

from ..access import policy
from ..models import DEFAULT_COLLECTION, DEFAULT_COMMUNITY, Collection, Community, Item, addresses
from ..preservation import events
from ..refusals import Refusal
from . import tree


def default_collection() -> Collection:
    """The collection items land in when none is named (migration 0031 made it; a flush of
    the test database empties it, and it is made again here)."""
    found = Collection.objects.filter(slug=DEFAULT_COLLECTION).first()
    if found is not None:
        return found
    community, _created = Community.objects.get_or_create(
        slug=DEFAULT_COMMUNITY, defaults={"name_pt_br": "Repositório", "name_en": "Repository"})
    collection, _created = Collection.objects.get_or_create(
        slug=DEFAULT_COLLECTION, defaults={"community": community, "name_pt_br": "Coleção geral",
                                           "name_en": "General collection"})
    return collection


def _named(exc: ValidationError) -> str:
    """The first error of a full_clean, its field named: "slug: …"."""
    for field, messages in exc.message_dict.items():
        name = "" if field == "__all__" else f"{field}: "
        return name + "; ".join(messages)
    return str(Refusal.message)


def community_check(*, community: Community) -> None:
    """What community_save would refuse, raised; nothing written."""
    try:
        community.full_clean()
    except ValidationError as exc:
        raise Refusal(_named(exc)) from None
    parents = dict(Community.objects.values_list("pk", "parent_id"))
    if tree.makes_cycle(community.pk, community.parent_id, parents):
        raise Refusal(_("parent: %(parent)s is %(community)s or one of its sub-communities: "
                        "a community cannot be its own ancestor")
                      % {"parent": community.parent.slug, "community": community.slug})


def community_save(*, community: Community,
                   on_saved: Callable[[Community], None] | None = None) -> Community:
    """A community added or changed (moved under another), checked first. `on_saved` runs in
    the save's own transaction (the API's Idempotency-Key is linked so)."""
    community_check(community=community)
    with transaction.atomic():
        community.save()
        if on_saved is not None:
            on_saved(community)
    return community


def collection_check(*, collection: Collection) -> None:
    """What collection_save would refuse, raised; nothing written. A DSpace Handle is kept
    as Handles are compared, in lower case (RFC 3650 §3)."""
    collection.handle = (collection.handle or "").strip().lower()
    try:
        collection.full_clean()
    except ValidationError as exc:
        raise Refusal(_named(exc)) from None
    for address in addresses(collection.request_handlers):
        try:
            validate_email(address)
        except ValidationError:
            raise Refusal(_("request_handlers: %(value)s is not an email address")
                          % {"value": address}) from None
    problem = policy.defaults_problem(collection.default_access_rights,
                                      collection.default_embargo_days)
    if problem == "embargo days":
        raise Refusal(_("default_embargo_days: an embargoed default needs its days"))
    if problem:
        raise Refusal(_("default_embargo_days: days of embargo go with the default access "
                        "embargoed only"))


def collection_save(*, collection: Collection,
                    on_saved: Callable[[Collection], None] | None = None) -> Collection:
    """A collection added or changed, checked first; `on_saved` as community_save's."""
    collection_check(collection=collection)
    with transaction.atomic():
        collection.save()
        if on_saved is not None:
            on_saved(collection)
    return collection


def collection_delete_check(*, collection: Collection) -> None:
    owned = collection.items.exists()
    if owned:
        raise Refusal(_("items: the collection %(slug)s holds items: move them to another "
                        "collection first") % {"slug": collection.slug})


def collection_delete(*, collection: Collection) -> None:
    """A collection that owns no item deleted (the items mapped into it stay where they
    are); one that owns items is refused."""
    with transaction.atomic():
        collection_delete_check(collection=collection)
        collection.delete()


def community_delete_check(*, community: Community) -> None:
    if community.children.exists() or community.collections.exists():
        raise Refusal(_("children: the community %(slug)s holds communities or collections: "
                        "move or delete them first") % {"slug": community.slug})


def community_delete(*, community: Community) -> None:
    """An empty community deleted; one holding communities or collections is refused."""
    with transaction.atomic():
        community_delete_check(community=community)
        community.delete()


def collection_handles_keep(by_handle: dict[str, Collection]) -> None:
    """Each collection keeps the DSpace Handle an import maps to it (Collection.handle), so
    that an export writes it back; one that has a Handle already keeps its own. A Handle
    another collection keeps is refused, and nothing is written."""
    with transaction.atomic():
        for handle, collection in by_handle.items():
            holder = Collection.objects.filter(handle=handle).exclude(pk=collection.pk).first()
            if holder is not None:
                raise Refusal(_("handle: %(handle)s is the Handle of the collection %(slug)s")
                              % {"handle": handle, "slug": holder.slug})
            if not collection.handle:
                collection.handle = handle
                collection.save(update_fields=["handle"])


def item_move(*, item: Item, collection: Collection) -> Item:
    """The item's owning collection changed (no longer mapped into it, if it was). Its
    datestamp changes, so that OAI-PMH harvesters learn its new sets."""
    with transaction.atomic():
        item.collection = collection
        item.save(update_fields=["collection", "updated"])
        item.mapped_collections.remove(collection)
        events.record(events.Type.METADATA_MODIFICATION, ibi=item.ibi,
                      detail=f"moved to collection {collection.slug}")
    return item


def item_map(*, item: Item, collections: Iterable[Collection]) -> Item:
    """The item mapped into exactly these collections besides its owning one (which is
    left out if named)."""
    wanted = [c for c in collections if c.pk != item.collection_id]
    with transaction.atomic():
        before = set(item.mapped_collections.values_list("pk", flat=True))
        item.mapped_collections.set(wanted)
        item.save(update_fields=["updated"])
        if before != {c.pk for c in wanted}:
            events.record(events.Type.METADATA_MODIFICATION, ibi=item.ibi,
                          detail="mapped into collections: "
                                 + (", ".join(c.slug for c in wanted) or "none"))
    return item


def items_move(*, items: Iterable[Item], collection: Collection) -> int:
    """Every item moved into `collection` (item_move), in one transaction; how many moved
    (those it owned already are left alone). Tombstones and the archive service stay."""
    moved = 0
    with transaction.atomic():
        for item in items:
            if item.collection_id != collection.pk and _placeable(item):
                item_move(item=item, collection=collection)
                moved += 1
    return moved


def items_map_into(*, items: Iterable[Item], collection: Collection) -> int:
    """`collection` added to the collections every item is mapped into, its other mappings
    kept; how many were mapped (not those it owns or that were mapped into it already)."""
    mapped = 0
    with transaction.atomic():
        for item in items:
            if (item.collection_id == collection.pk or not _placeable(item)
                    or item.mapped_collections.filter(pk=collection.pk).exists()):
                continue
            item.mapped_collections.add(collection)
            item.save(update_fields=["updated"])
            events.record(events.Type.METADATA_MODIFICATION, ibi=item.ibi,
                          detail=f"mapped into collection {collection.slug}")
            mapped += 1
    return mapped


def _placeable(item: Item) -> bool:
    return not item.is_deleted and not item.is_archive_service
