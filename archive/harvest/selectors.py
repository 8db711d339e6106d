"""Reads for OAI-PMH and the sitemaps: the items of a set, the sets that have items, an item's
setSpecs, the pages of the sitemaps.

An item's kind is its first dc:type value (by position) that the vocabulary recognises; the
database cannot read free text through the vocabulary, so the distinct dc:type values are read
once per request, mapped in Python, and the items are then selected by value in SQL: the
`oai_type` annotation is the first recognised value of each item (NULL: none, so `text`).
Only a set that selects by kind needs it: a page's kinds are read from its Dublin Core values,
fetched with its records (`vocabularies.kind`, the same rule in Python).

A list is read in pages by keyset (`page`): the items after the last (updated, id) served, in
(updated, id) order, never an OFFSET, so page 1 000 costs what page 1 does.
"""
from __future__ import annotations

from datetime import datetime

from django.db.models import CharField, F, Max, Min, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.fields.tuple_lookups import TupleGreaterThan

from ..communities import selectors as tree
from ..db import changes
from ..deposit import selectors
from ..metadata.vocabularies import TEXT, Kind, all_kinds, kind_of
from ..models import DcValue, Item
from . import sets

_TYPES_KEY = ("harvest", "recognised dc:type values")


def recognised_types() -> dict[str, Kind]:
    """Each distinct dc:type value of the public items that names a Kind, with its Kind.

    Every page of a harvest needs it, and it is a scan of the collection's dc:type values: it
    is kept in the answer cache, which forgets it as soon as any item changes."""
    current = changes.token()
    found = changes.get(_TYPES_KEY, current)
    if found is None:
        values = (DcValue.objects.filter(element="type", item__is_archive_service=False)
                  .values_list("value", flat=True).distinct().order_by())
        found = {v: k for v in values if (k := kind_of(v)) is not None}
        changes.put(_TYPES_KEY, current, found)
    return found


def _annotated(items: QuerySet[Item], types: dict[str, Kind]) -> QuerySet[Item]:
    if not types:
        return items.annotate(oai_type=Value(None, output_field=CharField()))
    first = (DcValue.objects.filter(item=OuterRef("pk"), element="type", value__in=list(types))
             .order_by("position", "id").values("value")[:1])
    return items.annotate(oai_type=Subquery(first))


def _held_as_original() -> Q:
    """An Original, or the tombstone of one (a deleted Copy has a source Archive)."""
    return Q(state=Item.State.ORIGINAL) | Q(state=Item.State.DELETED, source_archive="")


def _of_kind(types: dict[str, Kind], wanted) -> Q:
    """Items whose kind satisfies `wanted(kind)`."""
    values = [v for v, k in types.items() if wanted(k)]
    matches = Q(oai_type__in=values) if values else Q(pk__in=[])
    return matches | Q(oai_type__isnull=True) if wanted(TEXT) else matches


def oai_items(*, start=None, end=None, oai_set: sets.OaiSet | None = None,
              types: dict[str, Kind] | None = None) -> QuerySet[Item]:
    """What OAI-PMH exposes (deleted items included) in a set and start <= updated < end, in
    (datestamp, id) order. `types` (recognised_types) is read only for the sets of kinds."""
    items = _between(start=start, end=end)
    if oai_set is None or oai_set.family == sets.TYPE and oai_set.value is None:
        return items  # every item has a type
    if oai_set.family == sets.LANGUAGE:
        if not oai_set.value:
            return items.exclude(language="")
        return items.filter(language__iexact=oai_set.value)
    if oai_set.family == sets.COLLECTION:
        found = tree.collection_by_slug(oai_set.value)
        return tree.items_of(items, collection=found) if found else items.none()
    if oai_set.family == sets.COMMUNITY:
        found = tree.community_by_slug(oai_set.value)
        return tree.items_of(items, community=found) if found else items.none()
    types = recognised_types() if types is None else types
    items = _annotated(items, types)
    if oai_set.family == sets.TYPE:
        return items.filter(_of_kind(types, lambda k: k == oai_set.value))
    return items.filter(_held_as_original() & _of_kind(types, lambda k: k.is_literature))


# What a header and every record format read of an item (Record's fields, deposit.selectors'
# URLs): nothing else of the row is fetched.
PAGE_FIELDS = ("id", "ibi", "ibip", "title", "language", "state", "source_archive", "created",
               "updated", "deleted_at", "deletion_reason", "edition_number",
               "previous_edition_id", "translation_of_id", "access_rights", "embargo_until",
               "collection_id")


def page(items: QuerySet[Item], after: tuple[datetime, int] | None, size: int) -> list[Item]:
    """Up to `size` of `items` (oai_items) after the (updated, id) `after`, in that order.

    `(updated, id) > (last updated, last id)` is a row comparison that the index
    `item_oai_keyset` (updated, id) serves as one range, in order: the cost of a page does not
    depend on how deep in the list it is, nor on how many items share a datestamp."""
    if after is not None:
        # PostgreSQL compares the rows natively; SQLite gets Django's OR of the two cases, to
        # which `updated >= last` gives the index range to start from (not a scan from the top).
        items = items.filter(TupleGreaterThan((F("updated"), F("id")), after),
                             updated__gte=after[0])
    return list(items.only(*PAGE_FIELDS)[:size])


def capped_count(items: QuerySet[Item], cap: int) -> int | None:
    """How many items there are, or None when more than `cap` (counting stops there)."""
    found = items.order_by()[:cap + 1].count()
    return found if found <= cap else None


def set_specs(item: Item, kind: Kind, tree_specs: list[str] = ()) -> list[str]:
    """The setSpecs of an item (read with PAGE_FIELDS) of this kind (`vocabularies.kind` of
    its dc:type values), then those of the tree (`tree_specs`: `tree_specs_of`)."""
    original = item.state == Item.State.ORIGINAL or (item.is_deleted and not item.source_archive)
    return [*sets.specs(kind, item.language, original=original), *tree_specs]


def tree_specs_of(items: list[Item]) -> dict[int, list[str]]:
    """The com_ and col_ setSpecs of these items (read with PAGE_FIELDS), by id."""
    return tree.set_names([i.pk for i in items], {i.pk: i.collection_id for i in items})


def tree_set_exists(oai_set: sets.OaiSet) -> bool:
    """Whether the collection or community a col_ or com_ set names is there."""
    if oai_set.family == sets.COLLECTION:
        return tree.collection_by_slug(oai_set.value) is not None
    return tree.community_by_slug(oai_set.value) is not None


def present_sets(types: dict[str, Kind]) -> tuple[list[Kind], list[str]]:
    """The kinds and the languages that have items (deleted ones included)."""
    firsts = (_annotated(_between(), types).order_by()
              .values_list("oai_type", flat=True).distinct())
    kinds = {types.get(value or "", TEXT) for value in firsts}
    languages = {sets.canonical_language(tag) for tag in
                 selectors.public_items().exclude(language="")
                 .values_list("language", flat=True).distinct().order_by()}
    order = {k: n for n, k in enumerate(all_kinds())}
    return sorted(kinds, key=order.__getitem__), sorted(languages)


# -- What OAI-PMH and the sitemaps page through -------------------------------------------------

def sitemap_pages(size: int) -> list[tuple[int, datetime]]:
    """(page, newest `updated` in it) of each page of listed items that holds any. Page k
    holds the ids k*size+1 … (k+1)*size, so at most `size` items, each page read by a range
    of the primary key (`sitemap_page`): no OFFSET, and no count. One grouped query here."""
    rows = (selectors.listed_items().annotate(page=(F("id") - 1) / size).values("page")
            .annotate(lastmod=Max("updated")).order_by("page"))
    return [(row["page"], row["lastmod"]) for row in rows]


def sitemap_page(page: int, size: int) -> QuerySet:
    """(ibi, updated) of the listed items of one sitemap page, by id (see sitemap_pages)."""
    return (selectors.listed_items().filter(id__gt=page * size, id__lte=(page + 1) * size)
            .order_by("id").values_list("ibi", "updated"))


def _between(*, start=None, end=None) -> QuerySet[Item]:
    """Public items, deleted ones included, with start <= updated < end, by (datestamp, id)."""
    items = selectors.public_items()
    if start is not None:
        items = items.filter(updated__gte=start)
    if end is not None:
        items = items.filter(updated__lt=end)
    return items.order_by("updated", "id")


def oai_earliest_datestamp():
    return selectors.public_items().aggregate(first=Min("updated"))["first"]
