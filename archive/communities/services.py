"""The tree written: communities and collections saved and deleted, items moved and mapped.

Every write is checked before anything is saved, and each refusal names the field it is about
(a Refusal, 400): a slug taken, a community made its own ancestor, a collection with items
deleted, access defaults that contradict each other.
"""
from __future__ import annotations

from collections.abc import Iterable

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.utils.translation import gettext as _

from ..access import policy
from ..models import DEFAULT_COLLECTION, DEFAULT_COMMUNITY, Collection, Community, Item, addresses
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


def community_save(*, community: Community) -> Community:
    """A community added or changed (moved under another), checked first."""
    community_check(community=community)
    community.save()
    return community


def collection_check(*, collection: Collection) -> None:
    """What collection_save would refuse, raised; nothing written."""
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


def collection_save(*, collection: Collection) -> Collection:
    """A collection added or changed, checked first."""
    collection_check(collection=collection)
    collection.save()
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


def item_move(*, item: Item, collection: Collection) -> Item:
    """The item's owning collection changed (no longer mapped into it, if it was). Its
    datestamp changes, so that OAI-PMH harvesters learn its new sets."""
    with transaction.atomic():
        item.collection = collection
        item.save(update_fields=["collection", "updated"])
        item.mapped_collections.remove(collection)
    return item


def item_map(*, item: Item, collections: Iterable[Collection]) -> Item:
    """The item mapped into exactly these collections besides its owning one (which is
    left out if named)."""
    wanted = [c for c in collections if c.pk != item.collection_id]
    with transaction.atomic():
        item.mapped_collections.set(wanted)
        item.save(update_fields=["updated"])
    return item
