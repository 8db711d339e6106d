"""Reads of what is inside the files: the thumbnail a reader may see, the flagged ones.

Whether a thumbnail is shown is the access policy's word (archive/access/policy.py
`may_read_bundle`, THUMBNAIL: as closed as the file it shows), never a rule of this module:
none for an embargoed, restricted or metadata-only file a reader may not read."""
from __future__ import annotations

from collections.abc import Iterable

from django.db.models import QuerySet

from ..access import policy
from ..models import FileExtraction, Item, ItemFile


def readable_thumbnail(reader: policy.Reader, item: Item, found: ItemFile) -> str:
    """The storage key of the file's thumbnail, or "" when it has none or `reader` may not
    see it."""
    if item.is_deleted or not policy.shows_files(reader, item.access_rights):
        return ""
    if not policy.may_read_bundle(reader, item.pk, item.access_rights, found.restricted,
                                  policy.THUMBNAIL):
        return ""
    return FileExtraction.objects.filter(file=found).values_list(
        "thumbnail", flat=True).first() or ""


def thumbnailed_names(reader: policy.Reader, item: Item) -> set[str]:
    """The names of the item's files whose thumbnail `reader` may see."""
    if item.is_deleted or not policy.shows_files(reader, item.access_rights):
        return set()
    return {name for name, restricted in FileExtraction.objects.filter(
        file__item=item).exclude(thumbnail="").values_list("file__name", "file__restricted")
        if policy.may_read_bundle(reader, item.pk, item.access_rights, restricted,
                                  policy.THUMBNAIL)}


def public_thumbnails(items: Iterable[Item]) -> dict[int, str]:
    """item id → the name of the file whose thumbnail lists (search results, a collection's
    page) show, for the public reader every cached list is built for: the target file's, else
    the first file's with one."""
    shown = {item.pk: item for item in items if not item.is_deleted}
    found: dict[int, str] = {}
    rows = (FileExtraction.objects.filter(file__item_id__in=list(shown)).exclude(thumbnail="")
            .values_list("file__item_id", "file__name", "file__restricted")
            .order_by("file__item_id", "file__name"))
    for item_id, name, restricted in rows:
        item = shown[item_id]
        if not policy.may_read_bundle(policy.PUBLIC, item_id, item.access_rights, restricted,
                                      policy.THUMBNAIL):
            continue
        if item_id not in found or name == item.target_file:
            found[item_id] = name
    return found


def flagged() -> QuerySet[FileExtraction]:
    """The extractions a librarian should look at, newest first."""
    return (FileExtraction.objects.filter(flagged=True).select_related("file__item")
            .order_by("-finished", "-pk"))


def flagged_of(item: Item) -> QuerySet[FileExtraction]:
    return FileExtraction.objects.filter(flagged=True, file__item=item).select_related("file")
