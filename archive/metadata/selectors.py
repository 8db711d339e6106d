"""The Record of a stored item (use deposit.selectors.with_details to fetch items in bulk)."""
from __future__ import annotations

from django.http import HttpRequest

from ..deposit import selectors
from ..models import Item
from .record import Creator, FileRef, Record


def _neighbour(item: Item | None, request: HttpRequest | None) -> str:
    return selectors.persistent_url(item, request) if item is not None else ""


def record_of(item: Item, request: HttpRequest | None = None) -> Record:
    """Everything the formats say of an item. A tombstone keeps its identifiers, title, dates
    and the reason of deletion only: its creators, description and files are not given out."""
    try:
        next_edition = item.next_edition
    except Item.DoesNotExist:
        next_edition = None
    publishers = item.dc("publisher")
    dates = item.dc("date")
    common = dict(
        ibi=item.ibi, ibip=item.ibip, title=item.title,
        persistent_url=selectors.persistent_url(item, request),
        landing_url=selectors.landing_url(item, request),
        publisher=publishers[0] if publishers else selectors.archive_address(request),
        date=dates[0] if dates else (item.created.date().isoformat() if item.created else ""),
        language=item.language, created=item.created, updated=item.updated, state=item.state,
        deleted_at=item.deleted_at, deletion_reason=item.deletion_reason,
        edition_number=item.edition_number,
        previous_edition=_neighbour(item.previous_edition, request),
        next_edition=_neighbour(next_edition, request),
        translation_of=_neighbour(item.translation_of, request))
    if item.is_deleted:
        return Record(**common)
    return Record(
        **common,
        creators=tuple(Creator(v.value, v.orcid) for v in item.dc_values.all()
                       if v.element == "creator"),
        contributors=tuple(item.dc("contributor")), subjects=tuple(item.dc("subject")),
        descriptions=tuple(item.dc("description")), types=tuple(item.dc("type")),
        rights=tuple(item.dc("rights")), identifiers=tuple(item.dc("identifier")),
        relations=tuple(item.dc("relation")), formats=tuple(item.dc("format")),
        files=tuple(FileRef(name=f.name, url=selectors.file_url(item, f.name, request),
                            size=f.size, content_type=f.content_type, sha256=f.sha256)
                    for f in item.files.all()))
