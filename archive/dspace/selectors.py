"""Reads: the item, or the file of an item, that an identifier it had elsewhere names, or
whose content an item without identifiers has."""
from __future__ import annotations

from ..models import AlternateIdentifier, Item, ItemFile

Scheme = AlternateIdentifier.Scheme


def _row(scheme: str, value: str) -> AlternateIdentifier | None:
    return (AlternateIdentifier.objects.select_related("item")
            .filter(scheme=scheme, value=value.lower()).first())


def item_by_handle(handle: str) -> Item | None:
    row = _row(Scheme.HANDLE, handle)
    return row.item if row else None


def item_by_uuid(uuid: str) -> Item | None:
    """The item a DSpace item UUID names (DSpace 7's /items/<uuid>, /entities/<type>/<uuid>)."""
    row = _row(Scheme.DSPACE_ITEM, uuid)
    return row.item if row else None


def file_by_bitstream(uuid: str) -> tuple[Item, str] | None:
    """(item, file name) a DSpace bitstream UUID names; the file name "" when the bitstream
    is no file here any more (the item's page is then the answer)."""
    row = _row(Scheme.DSPACE_BITSTREAM, uuid)
    return (row.item, _kept(row.item, row.file_name)) if row else None


def file_by_sequence(handle: str, sequence: str) -> str:
    """The name of the file that was bitstream `sequence` of the item with this Handle."""
    row = _row(Scheme.DSPACE_SEQUENCE, f"{handle}/{sequence}")
    return _kept(row.item, row.file_name) if row else ""


def file_named(item: Item, name: str) -> str:
    """`name` if the item has a file so named, else ""."""
    return _kept(item, name)


def _kept(item: Item, name: str) -> str:
    if name and ItemFile.objects.filter(item=item, name=name).exists():
        return name
    return ""


def handles_of(item: Item) -> list[str]:
    return list(item.alternate_ids.filter(scheme=Scheme.HANDLE).values_list("value", flat=True))


def items_with_content(title: str, files: dict[str, str]) -> list[Item]:
    """The items here (not deleted) with this title and exactly these files (name → sha256):
    how an item of a package without Handle or UUID, imported before, is known again."""
    items = Item.objects.filter(title=title.strip(), is_archive_service=False).exclude(
        state=Item.State.DELETED)
    if files:
        name, sha = min(files.items())
        items = items.filter(files__name=name, files__sha256=sha)
    else:
        items = items.filter(files__isnull=True)
    return [item for item in items.order_by("pk")
            if dict(item.files.values_list("name", "sha256")) == files]
