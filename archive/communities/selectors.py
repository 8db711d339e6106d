"""The tree read: communities and collections by slug, the tree for the home page, the items
of a collection or a community (owned and mapped), the OAI-PMH sets of items.

A collection's items are the union of those it owns (the index item_collection_newest) and
those mapped into it: one index range each, never an OR across the two tables, which would
read every item to find a small collection's.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db.models import CharField, Q, QuerySet, Value

from ..db.arrays import among
from ..models import Collection, Community, Item
from . import tree

Mapping = Item.mapped_collections.through


def community_by_slug(slug: str) -> Community | None:
    return Community.objects.select_related("parent").filter(slug=slug).first()


def collection_by_slug(slug: str) -> Collection | None:
    return Collection.objects.select_related("community").filter(slug=slug).first()


def collections_by_slug(slugs: Iterable[str]) -> dict[str, Collection]:
    return {c.slug: c for c in Collection.objects.filter(slug__in=list(slugs))}


def _parents() -> dict[int, int | None]:
    return dict(Community.objects.values_list("pk", "parent_id"))


def collection_ids_under(community: Community) -> list[int]:
    """The collections of a community and of every community under it."""
    under = tree.descendants(community.pk, _parents())
    return list(Collection.objects.filter(community_id__in=under).values_list("pk", flat=True))


# Mapped items past this many are selected by a subquery, not listed in the query.
MAPPED_LISTED = 5000


def in_collections(ids: list[int]) -> Q:
    """Items owned by or mapped into any of these collections.

    The mapped ones are read first (a collection's are usually few) and named in the query,
    so that PostgreSQL weighs `collection_id IN (…) OR id IN (…)` by its statistics: a large
    collection is read along the listing's index until a page is full (a quarter of a
    million items: a few pages read), a small one from the two indexes (a bitmap OR) and
    sorted. A subquery would be hashed whole first: 1.3 s for a collection of half a million
    items among a million (bench/README.md)."""
    mapped = list(Mapping.objects.filter(collection_id__in=ids).order_by()
                  .values_list("item_id", flat=True)[:MAPPED_LISTED + 1])
    if len(mapped) > MAPPED_LISTED:
        mapped = Mapping.objects.filter(collection_id__in=ids).order_by().values("item_id")
    return Q(collection_id__in=ids) | Q(pk__in=mapped)


@dataclass
class Node:
    """A community in the tree, with its sub-communities and collections, in order."""

    community: Community
    children: list[Node] = field(default_factory=list)
    collections: list[Collection] = field(default_factory=list)


def community_tree(top: Community | None = None) -> list[Node]:
    """The communities at the top (or under `top`), each with its whole subtree. Two
    queries, whatever the tree's size."""
    nodes = {c.pk: Node(c) for c in Community.objects.all()}
    for collection in Collection.objects.all():
        nodes[collection.community_id].collections.append(collection)
    roots = []
    for node in nodes.values():
        parent = node.community.parent_id
        (roots if parent is None else nodes[parent].children).append(node)
    if top is not None:
        return nodes[top.pk].children
    return roots


def top_communities() -> list[Node]:
    """The communities at the top, each with the communities right under it (no collections:
    the home page's overview; a community's page shows the rest). One query."""
    nodes = {c.pk: Node(c) for c in Community.objects.all()}
    roots = []
    for node in nodes.values():
        parent = node.community.parent_id
        (roots if parent is None else nodes[parent].children).append(node)
    for root in roots:
        for child in root.children:
            child.children = []
    return roots


def ancestors(community: Community) -> list[Community]:
    """The communities above this one, the top first (for a page's breadcrumbs)."""
    parents = _parents()
    chain, current = [], community.parent_id
    while current is not None and current not in chain:
        chain.append(current)
        current = parents.get(current)
    found = Community.objects.in_bulk(chain)
    return [found[pk] for pk in reversed(chain)]


def set_names(item_ids: list[int], owners: dict[int, int | None]) -> dict[int, list[str]]:
    """The OAI-PMH setSpecs of the tree for these items (`owners`: item id → its owning
    collection): com_<slug> of every community above their collections, then col_<slug> of
    the owning collection and of the mapped ones, DSpace's. Two queries whatever the number
    of items: the mappings, then the collections named and every community, in one."""
    by_item: dict[int, set[int]] = {pk: {owners[pk]} if owners.get(pk) else set()
                                    for pk in item_ids}
    for item_id, collection_id in Mapping.objects.filter(
            among(Mapping, "item_id", item_ids)).values_list(
            "item_id", "collection_id"):
        by_item[item_id].add(collection_id)
    wanted = set().union(*by_item.values()) if by_item else set()
    if not wanted:
        return {pk: [] for pk in item_ids}
    def kind(name: str) -> Value:
        return Value(name, output_field=CharField())
    named = (Collection.objects.filter(pk__in=wanted).order_by().annotate(kind=kind("col"))
             .values_list("kind", "pk", "slug", "community_id"))
    rows = named.union(Community.objects.order_by().annotate(kind=kind("com"))
                       .values_list("kind", "pk", "slug", "parent_id"), all=True)
    collections, communities, slugs = {}, {}, {}
    for what, pk, slug, above in rows:
        if what == "col":
            collections[pk] = (slug, above)
        else:
            communities[pk], slugs[pk] = above, slug
    found = {}
    for item_id, ids in by_item.items():
        cols, coms = set(), set()
        for pk in ids & collections.keys():
            slug, community = collections[pk]
            cols.add(f"col_{slug}")
            while community is not None and slugs[community] not in coms:
                coms.add(slugs[community])
                community = communities.get(community)
        # The owning collection's set first, as DSpace's harvesters read it (and ours:
        # dspace/placement.py), then the mapped ones.
        owner = collections.get(owners.get(item_id))
        first = [f"col_{owner[0]}"] if owner else []
        found[item_id] = sorted(f"com_{s}" for s in coms) + first + sorted(cols - set(first))
    return found


def every_set() -> tuple[list[Community], list[Collection]]:
    """Every community and collection, for ListSets."""
    return list(Community.objects.order_by("slug")), list(Collection.objects.order_by("slug"))


def newest_of(items: QuerySet[Item], collection_ids: list[int], limit: int) -> list[int]:
    """The ids of the newest `limit` of `items` (the listed items, newest first) owned by or
    mapped into these collections: the newest owned ones along the listing's order (a
    community's share of the items is found in a few index pages), the newest mapped ones
    through the mappings, merged. Never a hash of every item of every collection."""
    owned = list(items.filter(collection_id__in=collection_ids)
                 .values_list("created", "pk")[:limit])
    mapped = list(items.filter(pk__in=Mapping.objects.filter(collection_id__in=collection_ids)
                               .order_by().values("item_id"))
                  .values_list("created", "pk")[:limit])
    merged = sorted(set(owned) | set(mapped), reverse=True)
    return [pk for _created, pk in merged[:limit]]


def items_of(items: QuerySet[Item], *, collection: Collection | None = None,
             community: Community | None = None) -> QuerySet[Item]:
    """`items` narrowed to a collection's (owned and mapped) or a community's (those of every
    collection under it)."""
    if collection is not None:
        items = items.filter(in_collections([collection.pk]))
    if community is not None:
        items = items.filter(in_collections(collection_ids_under(community)))
    return items
