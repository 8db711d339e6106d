"""Reads for OAI-PMH: the items of a set, the sets that have items, an item's setSpecs.

An item's kind is its first dc:type value (by position) that the vocabulary recognises; the
database cannot read free text through the vocabulary, so the distinct dc:type values are read
once per request, mapped in Python, and the items are then selected by value in SQL: the
`oai_type` annotation is the first recognised value of each item (NULL: none, so `text`).
"""
from __future__ import annotations

from django.db.models import CharField, OuterRef, Q, QuerySet, Subquery, Value

from ..deposit import selectors
from ..metadata.vocabularies import TEXT, Kind, all_kinds, kind_of
from ..models import DcValue, Item
from . import sets


def recognised_types() -> dict[str, Kind]:
    """Each distinct dc:type value of the public items that names a Kind, with its Kind."""
    values = (DcValue.objects.filter(element="type", item__is_archive_service=False)
              .values_list("value", flat=True).distinct().order_by())
    return {v: k for v in values if (k := kind_of(v)) is not None}


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
    datestamp order, each with its `oai_type`."""
    types = recognised_types() if types is None else types
    items = _annotated(selectors.oai_items(start=start, end=end), types)
    if oai_set is None or oai_set.family == sets.TYPE and oai_set.value is None:
        return items  # every item has a type
    if oai_set.family == sets.TYPE:
        return items.filter(_of_kind(types, lambda k: k == oai_set.value))
    if oai_set.family == sets.LANGUAGE:
        if not oai_set.value:
            return items.exclude(language="")
        return items.filter(language__iexact=oai_set.value)
    return items.filter(_held_as_original() & _of_kind(types, lambda k: k.is_literature))


def item_kind(item: Item, types: dict[str, Kind]) -> Kind:
    """The kind of an item read through oai_items (its `oai_type`)."""
    return types.get(item.oai_type or "", TEXT)


def set_specs(item: Item, types: dict[str, Kind]) -> list[str]:
    """The setSpecs of an item read through oai_items."""
    original = item.state == Item.State.ORIGINAL or (item.is_deleted and not item.source_archive)
    return sets.specs(item_kind(item, types), item.language, original=original)


def present_sets(types: dict[str, Kind]) -> tuple[list[Kind], list[str]]:
    """The kinds and the languages that have items (deleted ones included)."""
    firsts = oai_items(types=types).order_by().values_list("oai_type", flat=True).distinct()
    kinds = {types.get(value or "", TEXT) for value in firsts}
    languages = {sets.canonical_language(tag) for tag in
                 selectors.public_items().exclude(language="")
                 .values_list("language", flat=True).distinct().order_by()}
    order = {k: n for n, k in enumerate(all_kinds())}
    return sorted(kinds, key=order.__getitem__), sorted(languages)
