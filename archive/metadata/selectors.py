"""The Record of a stored item (use deposit.selectors.with_details to fetch items in bulk)."""
from __future__ import annotations

from django.http import HttpRequest

from ..deposit import selectors
from ..models import Item
from .formats import FORMATS
from .kinds import kind_of
from .record import Creator, FileRef, Record
from .signposting import Link, Signposts


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


def signposts_of(item: Item, request: HttpRequest | None = None) -> Signposts:
    """Where the item's resources are, for its Signposting links (signposting.py): every
    metadata format at deposit.selectors.metadata_url, the linkset beside the landing page."""
    record = record_of(item, request)
    return Signposts(
        record,
        described=tuple((selectors.metadata_url(item, request, fmt.name), fmt)
                        for fmt in FORMATS.values()),
        schema_type=schema_type(record),
        linkset_json=f"{record.landing_url}/linkset.json",
        linkset_text=f"{record.landing_url}/linkset")


def schema_type(record: Record) -> str:
    """The schema.org class of the item, as its JSON-LD says (kinds.py, from dc:type)."""
    return kind_of(record.types).schemaorg


def persistent_url_links(ibi_text: str, request: HttpRequest | None = None,
                         filepath: str = "") -> list[Link]:
    """The Signposting links of a persistent URL of an item held here: the item's (its files
    within the header's limit), or with a file path that file's; [] for no such item."""
    item = selectors.item_by_ibi(ibi_text, selectors.with_details(selectors.public_items()))
    if item is None:
        return []
    signposts = signposts_of(item, request)
    if filepath and not item.is_deleted:
        return signposts.file(filepath)
    return signposts.landing(about_page=False, header=True)
