"""LOCKSS manifests for Rede Cariniana (IBICT's private LOCKSS network): what its crawler may
collect, collection by collection and year by year (an Archival Unit each).

A LOCKSS crawler collects a site only from a manifest page carrying the permission statement
(PERMISSION, exactly as LOCKSS reads it) and starts there, following the page's links one
step: every open item's landing page and open files. What a manifest lists is what the
public may read, as archive/access/policy decides it: an open item's work files that are not
restricted; an embargoed, restricted or metadata-only item, and a restricted file, never;
nor a deleted item, nor a file whose last fixity check failed (it is not served). An item's
year is the year it was deposited here (`created`), which never changes, so an Archival Unit
never loses an item to another. Reads only.
"""
from __future__ import annotations

from dataclasses import dataclass

from django.db.models.functions import ExtractYear

from ..access import policy
from ..deposit import links, selectors
from ..models import Collection

# LOCKSS's permission statement, verbatim: its crawler looks for these words, in English,
# whatever the page's language (https://docs.lockss.org/, "Permission statement").
PERMISSION = "LOCKSS system has permission to collect, preserve, and serve this Archival Unit"


@dataclass(frozen=True)
class Entry:
    ibi: str
    title: str
    landing: str
    files: tuple[tuple[str, str], ...]  # (name, URL) of each open file


def _open_items():
    return selectors.listed_items().filter(access_rights=policy.OPEN)


def units() -> list[tuple[Collection, list[int]]]:
    """Each collection holding open items, with the years they were deposited in."""
    rows = (_open_items().annotate(year=ExtractYear("created"))
            .values_list("collection", "year").distinct().order_by("collection", "year"))
    years: dict[int, list[int]] = {}
    for collection, year in rows:
        years.setdefault(collection, []).append(year)
    found = Collection.objects.filter(pk__in=years).order_by("slug")
    return [(c, years[c.pk]) for c in found]


def manifest(collection: Collection, year: int, base: str) -> list[Entry]:
    """The open items of a collection deposited in a year, with their open files, oldest
    first; at `base` (this Archive's address)."""
    items = (_open_items().filter(collection=collection, created__year=year)
             .order_by("created", "id").prefetch_related("files"))
    found = []
    for item in items:
        if not policy.is_open(item.access_rights):
            continue
        files = tuple((f.name, links.file_url(item.ibi, f.name, base)) for f in item.files.all()
                      if policy.is_open(item.access_rights, f.restricted)
                      and policy.lists_as_work(f.bundle) and not f.fixity_problem)
        found.append(Entry(item.ibi, item.title, links.landing_url(item.ibi, base), files))
    return found


def is_unit(collection: Collection | None, year: int) -> bool:
    return collection is not None and _open_items().filter(
        collection=collection, created__year=year).exists()
