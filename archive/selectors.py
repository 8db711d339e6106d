"""Reads: items by IBI, the relations of the resolution standard, and the URLs we hand out."""
from __future__ import annotations

from urllib.parse import quote

from django.conf import settings
from django.db.models import Prefetch, QuerySet
from django.http import HttpRequest

from . import ibi as ibilib
from .models import Item, ItemFile


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
    return queryset.filter(**{field: spellings(parsed)}).first()


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
    resolver = settings.IBI_RESOLVER_URL or base_url(request)
    return f"{resolver.rstrip('/')}/{item.ibi}"


def landing_url(item: Item, request: HttpRequest | None = None) -> str:
    return f"{base_url(request)}/items/{item.ibi}"


def file_list_url(item: Item, request: HttpRequest | None = None) -> str:
    return f"{base_url(request)}/items/{item.ibi}/files"


def metadata_url(item: Item, request: HttpRequest | None = None, fmt: str = "") -> str:
    suffix = "oai_dc.xml" if fmt == "oai_dc" else "metadata"
    return f"{base_url(request)}/items/{item.ibi}/{suffix}"
