"""Reads: the items a whole identifier names, whatever its spelling: an IBI (either form,
any case, the legacy @port), a Handle the item kept from DSpace (bare, `hdl:`, a proxy or a
DSpace page's URL), a DOI in its dc:identifier (bare, `doi:`, a doi.org URL; any case).

Each is one indexed lookup, never a scan: the IBIs' unique indexes, the alternate
identifiers' (scheme, value) constraint, and the index of dc:identifier values in lower case
(migration 0040_identifier_lookup). What names none of them is searched as words
(selectors.matching).

    >>> doi_spellings("DOI:10.1000/ABC")[:3]
    ['10.1000/abc', 'doi:10.1000/abc', 'doi: 10.1000/abc']
    >>> doi_spellings("Relatório técnico")
    []
"""
from __future__ import annotations

from django.db.models import QuerySet
from django.db.models.functions import Lower

from ..deposit import selectors as deposit
from ..dspace import handles
from ..metadata.record import doi
from ..models import AlternateIdentifier, DcValue, Item

# How a dc:identifier writes a DOI (Crossref's display form, the older dx.doi.org, the
# `doi:` and `info:doi/` URIs): a value is found in any of them, in any case (DOIs are
# case-insensitive, ISO 26324).
_DOI_PREFIXES = ("", "doi:", "doi: ", "info:doi/", "https://doi.org/", "http://doi.org/",
                 "https://dx.doi.org/", "http://dx.doi.org/")


def doi_spellings(text: str) -> list[str]:
    """Every spelling (lower case) of the DOI `text` names, bare first; [] for no DOI."""
    bare = doi(text).lower()
    return [prefix + bare for prefix in _DOI_PREFIXES] if bare else []


def items_named(text: str, queryset: QuerySet[Item] | None = None) -> QuerySet[Item] | None:
    """The items of `queryset` (default: every item) that the whole identifier `text` names,
    or None when `text` is no IBI, Handle or DOI of any item here (then it is words)."""
    items = Item.objects.all() if queryset is None else queryset
    text = text.strip()
    spellings = doi_spellings(text)  # "doi: 10.…" has a space: the only spelling with one
    if not text or (any(c.isspace() for c in text) and not spellings):
        return None
    item = deposit.item_by_ibi(text, items)
    if item is not None:
        return items.filter(pk=item.pk)
    ids: set[int] = set()
    handle = handles.handle_of(text)
    if handle:
        ids.update(AlternateIdentifier.objects.filter(
            scheme=AlternateIdentifier.Scheme.HANDLE, value=handle)
            .values_list("item_id", flat=True))
    if spellings:
        # Lower(value) as the index has it: the planner reads the index, not the table.
        ids.update(DcValue.objects.filter(element="identifier")
                   .annotate(lowered=Lower("value")).filter(lowered__in=spellings)
                   .order_by().values_list("item_id", flat=True))
    return items.filter(pk__in=sorted(ids)) if ids else None
