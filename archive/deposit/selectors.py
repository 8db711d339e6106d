"""Reads: items by IBI, the relations of the resolution standard, and the URLs we hand out."""
from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from urllib.parse import quote

from django.conf import settings
from django.core.cache import cache
from django.db.models import Count, F, Max, Min, Prefetch, QuerySet, Sum
from django.http import HttpRequest

from ..identifiers import ibi as ibilib
from ..models import Item, ItemFile


def spellings(parsed: ibilib.Ibi) -> list[str]:
    """Every stored spelling of one IBI: the legacy `@port` and an explicit `@80` included."""
    if parsed.form == "ibip":
        return [parsed.text]
    word, subdomain = parsed.first_word, parsed.subdomain
    ports = [f".{parsed.port}", f"@{parsed.port}"] + (["" ] if parsed.port == 80 else [])
    return sorted({parsed.text} | {f"{subdomain}/{word}{p}/{parsed.suffix}" for p in ports})


def item_by_ibi(text: str, queryset: QuerySet[Item] | None = None) -> Item | None:
    """The item with this IBI in either form and any case, or None (also for invalid text)."""
    try:
        parsed = ibilib.parse(text)
    except ValueError:
        return None
    queryset = Item.objects.all() if queryset is None else queryset
    field = "ibip__in" if parsed.form == "ibip" else "ibi__in"
    # The newest, as .first() would (Item's order: -created, -id), but chosen here: its
    # ORDER BY lets SQLite walk the whole table in that order instead of looking the few
    # spellings up in the unique index.
    found = list(queryset.filter(**{field: spellings(parsed)}).order_by())
    return max(found, key=lambda item: (item.created, item.pk), default=None)


def with_details(queryset: QuerySet[Item] | None = None) -> QuerySet[Item]:
    """Items with what the API and pages show, fetched in a fixed number of queries."""
    queryset = Item.objects.all() if queryset is None else queryset
    queryset = queryset.select_related("previous_edition", "translation_of", "next_edition")
    return queryset.prefetch_related(
        "dc_values", Prefetch("files", queryset=ItemFile.objects.order_by("name")),
        Prefetch("translations", queryset=Item.objects.only("id", "ibi", "ibip", "language",
                                                            "translation_of_id", "state")))


def public_items() -> QuerySet[Item]:
    return Item.objects.filter(is_archive_service=False)


def archive_service() -> Item:
    return Item.objects.get(is_archive_service=True)


def last_edition(item: Item) -> Item:
    """The newest edition of item's chain: one query, however long the chain."""
    if not item.edition_family:
        return item
    newest = (Item.objects.filter(edition_family=item.edition_family)
              .order_by("-edition_number").first())
    return newest or item


def edition_chain(item: Item) -> list[Item]:
    """Every edition of item's chain held here, oldest first (deleted ones included): one
    query. Editions held on other Archives are not known here."""
    if not item.edition_family:
        return [item]
    chain = list(Item.objects.filter(edition_family=item.edition_family)
                 .only("id", "ibi", "ibip", "state", "created", "edition_number",
                       "edition_family").order_by("edition_number", "id"))
    return chain or [item]


# -- Archive service: a fixed number of queries per answer, whatever is on file ---------------
# Every urlRequest runs some of these reads. They are raw SQL because compiling the same queries
# through the ORM costs about ten times running them (bench/archive_service.py): plain SQL that
# SQLite and PostgreSQL both read, over the columns the models define.

_TABLE = Item._meta.db_table
_ITEM_SQL = (f"SELECT i.*, n.ibi AS next_ibi, n.ibip AS next_ibip FROM {_TABLE} i "
             f"LEFT JOIN {_TABLE} n ON n.previous_edition_id = i.id "
             "WHERE i.{field} IN ({marks}) ORDER BY i.id LIMIT 1")
# A bare boolean, not "= %s": SQLite then reads the partial index one_archive_service.
_SERVICE_SQL = f"SELECT * FROM {_TABLE} WHERE is_archive_service LIMIT 1"
_NEWEST_SQL = (f"SELECT i.* FROM {_TABLE} i WHERE i.edition_family IN ({{marks}}) "
               f"AND i.edition_number = (SELECT MAX(j.edition_number) FROM {_TABLE} j "
               "WHERE j.edition_family = i.edition_family)")
_FAMILY_SQL = f"SELECT * FROM {_TABLE} WHERE id IN ({{marks}}) OR translation_of_id IN ({{marks}})"
_SERVICE_AND_ITEM_SQL = (
    f"SELECT i.*, n.ibi AS next_ibi, n.ibip AS next_ibip FROM {_TABLE} i "
    f"LEFT JOIN {_TABLE} n ON n.previous_edition_id = i.id WHERE i.{{field}} IN ({{marks}}) "
    f"UNION ALL SELECT s.*, NULL, NULL FROM {_TABLE} s WHERE s.is_archive_service")


def _marks(values: list) -> str:
    return ", ".join(["%s"] * len(values))


def item_with_next_edition(text: str) -> Item | None:
    """`item_by_ibi` in one query, with the next edition's IBI as .next_ibi / .next_ibip
    ("" when there is none)."""
    try:
        parsed = ibilib.parse(text)
    except ValueError:
        return None
    found = spellings(parsed)
    sql = _ITEM_SQL.format(field="ibip" if parsed.form == "ibip" else "ibi", marks=_marks(found))
    item = next(iter(Item.objects.raw(sql, found)), None)
    if item is not None:
        item.next_ibi, item.next_ibip = item.next_ibi or "", item.next_ibip or ""
    return item


def archive_service_or_none() -> Item | None:
    """The archive service item, or None before the first migrate."""
    return next(iter(Item.objects.raw(_SERVICE_SQL)), None)


def service_and_item(text: str) -> tuple[Item | None, Item | None]:
    """(archive service, `item_with_next_edition(text)`) in one query."""
    try:
        parsed = ibilib.parse(text)
    except ValueError:
        return archive_service_or_none(), None
    found = spellings(parsed)
    field = "ibip" if parsed.form == "ibip" else "ibi"
    rows = list(Item.objects.raw(
        _SERVICE_AND_ITEM_SQL.format(field=field, marks=_marks(found)), found))
    service = next((row for row in rows if row.is_archive_service), None)
    item = min((row for row in rows if getattr(row, field) in found), default=None,
               key=lambda row: row.pk)
    if item is not None:
        item.next_ibi, item.next_ibip = item.next_ibi or "", item.next_ibip or ""
    return service, item


def newest_editions(items: Iterable[Item]) -> dict[str, Item]:
    """The newest edition of each edition chain of items, by edition_family: one query."""
    families = sorted({item.edition_family for item in items if item.edition_family})
    if not families:
        return {}
    rows = Item.objects.raw(_NEWEST_SQL.format(marks=_marks(families)), families)
    return {row.edition_family: row for row in rows}


def translation_families(items: Iterable[Item]) -> list[Item]:
    """Originals of items (or items themselves) and all their translations: one query."""
    roots = sorted({item.translation_of_id or item.pk for item in items})
    rows = Item.objects.raw(_FAMILY_SQL.format(marks=_marks(roots)), roots + roots)
    return sorted(rows, key=lambda row: row.pk)


def items_with_file(item_ids: Iterable[int], name: str) -> set[int]:
    """Which of these items hold a file with exactly this name: one query."""
    return set(ItemFile.objects.filter(item_id__in=list(item_ids), name=name)
               .values_list("item_id", flat=True))


# -- Addresses and URLs -----------------------------------------------------------------------

def archive_address(request: HttpRequest | None = None) -> str:
    """host[:port] this Archive hands out: ARCHIVE_ADDRESS, else the request's host."""
    if settings.ARCHIVE_ADDRESS:
        return settings.ARCHIVE_ADDRESS
    if request is not None:
        return request.get_host()
    return "127.0.0.1:8000"


def base_url(request: HttpRequest | None = None) -> str:
    scheme = request.scheme if request is not None and not settings.ARCHIVE_ADDRESS else "http"
    return f"{scheme}://{archive_address(request)}"


def file_url(item: Item, name: str, request: HttpRequest | None = None) -> str:
    return f"{base_url(request)}/col/{item.ibi}/doc/{quote(name)}"


def persistent_url(item: Item, request: HttpRequest | None = None) -> str:
    return persistent_url_of(item.ibi, request)


def persistent_url_of(ibi: str, request: HttpRequest | None = None) -> str:
    """The persistent URL of an IBI (its repository name), where no Item was read."""
    resolver = settings.IBI_RESOLVER_URL or base_url(request)
    return f"{resolver.rstrip('/')}/{ibi}"


def landing_url(item: Item, request: HttpRequest | None = None) -> str:
    return f"{base_url(request)}/items/{item.ibi}"


def file_list_url(item: Item, request: HttpRequest | None = None) -> str:
    return f"{base_url(request)}/items/{item.ibi}/files"


def metadata_url(item: Item, request: HttpRequest | None = None, fmt: str = "") -> str:
    """The metadata page (no fmt), or the record in a format of metadata/formats.py:
    ``/items/<repository name>/metadata/<fmt>``; oai_dc keeps the URL it has always had,
    ``/items/<repository name>/oai_dc.xml`` (``/metadata/oai_dc`` serves it too)."""
    if fmt == "oai_dc":
        return f"{base_url(request)}/items/{item.ibi}/oai_dc.xml"
    suffix = f"metadata/{fmt}" if fmt else "metadata"
    return f"{base_url(request)}/items/{item.ibi}/{suffix}"


# -- Public site: figures, search, browse, OAI-PMH ---------------------------------------------

def listed_items() -> QuerySet[Item]:
    """What home, search and browse list: the public items that are not deleted."""
    return public_items().exclude(state=Item.State.DELETED)


# The home page's figures are read often and change by one item at a time: each process
# shares them through Django's cache for this long instead of scanning every row per request.
FIGURES_TTL = 60


def collection_figures() -> dict:
    """Items, files, total size and languages of the listed items, at most FIGURES_TTL
    seconds old (see the README's "Search": maintained counts were not worth triggers on
    every file write for a figure readers accept a minute late)."""
    return cache.get_or_set("archive:collection-figures", _collection_figures, FIGURES_TTL)


def _collection_figures() -> dict:
    items = listed_items()
    files = ItemFile.objects.filter(item__in=items).aggregate(count=Count("id"), size=Sum("size"))
    languages = sorted(set(items.exclude(language="").order_by()
                           .values_list("language", flat=True).distinct()))
    return {"items": items.count(), "files": files["count"], "size": files["size"] or 0,
            "languages": languages}


def sitemap_pages(size: int) -> list[tuple[int, datetime]]:
    """(page, newest `updated` in it) of each page of listed items that holds any. Page k
    holds the ids k*size+1 … (k+1)*size, so at most `size` items, each page read by a range
    of the primary key (`sitemap_page`): no OFFSET, and no count. One grouped query here."""
    rows = (listed_items().annotate(page=(F("id") - 1) / size).values("page")
            .annotate(lastmod=Max("updated")).order_by("page"))
    return [(row["page"], row["lastmod"]) for row in rows]


def sitemap_page(page: int, size: int) -> QuerySet:
    """(ibi, updated) of the listed items of one sitemap page, by id (see sitemap_pages)."""
    return (listed_items().filter(id__gt=page * size, id__lte=(page + 1) * size)
            .order_by("id").values_list("ibi", "updated"))


def newer_edition(item: Item) -> Item | None:
    """What a tombstone points readers to: the next edition, else the latest, else None."""
    found = editions(item)
    return found["next"] or found["latest"]


def editions(item: Item) -> dict[str, Item | None]:
    """Previous, next and latest edition of item (None where there is none or it is item)."""
    try:
        following = item.next_edition
    except Item.DoesNotExist:
        following = None
    latest = last_edition(item)
    return {"previous": item.previous_edition, "next": following,
            "latest": None if latest.pk == item.pk else latest}


def oai_items(*, start=None, end=None) -> QuerySet[Item]:
    """What OAI-PMH exposes, deleted items included: public items with start <= updated < end."""
    items = public_items()
    if start is not None:
        items = items.filter(updated__gte=start)
    if end is not None:
        items = items.filter(updated__lt=end)
    return items.order_by("updated", "id")


def oai_earliest_datestamp():
    return public_items().aggregate(first=Min("updated"))["first"]
