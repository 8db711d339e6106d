"""`exportsaf`: items out again as DSpace's Simple Archive Format, which DSpace's ItemImport
(and `importsaf`) read.

One folder per item, `item_<n>` in the order of the repository's ids:

    dublin_core.xml   every dc value under its own field of the registry, with its language
                      (pt_BR), authority and confidence (crosswalk.to_dspace; dc.coverage,
                      which DSpace's registry lacks, as dc.coverage.spatial),
                      its persistent URL and its Handles' proxy URLs as dc.identifier.uri, its
                      previous edition (Handle, else persistent URL) as dc.relation.isversionof,
                      its access level when not open (dc.rights, info:eu-repo/semantics/…)
                      and an embargo's end (dc.date, info:eu-repo/date/embargoEnd/…)
    metadata_<schema>.xml  the same for each other schema (local, dcterms …)
    contents          each file `<name><TAB>bundle:ORIGINAL`, the target file `primary:true`,
                      a file not open to all `permissions:-r 'Administrator'`; then the files
                      of its other bundles, as an import kept them (`bundle:TEXT`,
                      `bundle:THUMBNAIL`, `bundle:LICENSE`)
    handle            the item's Handle, when it came with one (DSpace then keeps it)
    collections       its owning collection, then those it is mapped into: each one's DSpace
                      Handle (Collection.handle, kept from an import), else its slug
    <files>           the item's files, as stored, every bundle's side by side (one name per
                      item across its bundles: models/files.py)

Tombstones and the archive service are not exported: DSpace has no item for them. A folder is
written beside its final place and renamed into it, so an export never holds half an item.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path

from ..access import policy
from ..deposit import links, storage
from ..models import AlternateIdentifier, Item, ItemFile
from . import crosswalk, handles, saf

Scheme = AlternateIdentifier.Scheme
# A file not open to all is readable by DSpace's administrators only once imported there (and
# restricted again when it comes back here): an export never opens what was closed.
CLOSED = "-r 'Administrator'"


def _handles(item: Item) -> list[str]:
    return [row.value for row in item.alternate_ids.all() if row.scheme == Scheme.HANDLE]


def reference(item: Item, base: str | None = None) -> str:
    """How another item's dublin_core.xml names this one: its Handle, else its persistent URL."""
    found = _handles(item)
    return handles.proxy_url(found[0]) if found else links.persistent_url(item.ibi, base)


def rows_of(item: Item) -> list[crosswalk.Row]:
    """The item's values as the registry holds them, by field then position (crosswalk.Row)."""
    rows = sorted(item.dc_values.all(), key=lambda v: (v.field.name, v.position, v.id))
    return [(v.field.schema.name, v.field.element, v.field.qualifier, v.language, v.value,
             v.authority, v.confidence) for v in rows]


def metadata_files(item: Item, base: str | None = None) -> dict[str, bytes]:
    """File name → bytes: dublin_core.xml and a metadata_<schema>.xml per other schema."""
    found = _handles(item)
    by_schema = crosswalk.to_dspace(
        item.title, item.language, rows_of(item),
        identifier_uris=[links.persistent_url(item.ibi, base),
                         *map(handles.proxy_url, found)],
        newer_than=[reference(item.previous_edition, base)] if item.previous_edition else [],
        level=item.access_rights, embargo=item.embargo_until)
    return {(saf.DUBLIN_CORE if schema == "dc" else f"metadata_{schema}.xml"):
            saf.metadata_xml(schema, values) for schema, values in by_schema.items()}


def collections_text(item: Item) -> str:
    """The `collections` file: the owning collection, then the mapped ones (by slug), each
    by its DSpace Handle, else its slug."""
    owned = [item.collection, *sorted(item.mapped_collections.all(), key=lambda c: c.slug)]
    return "".join(f"{c.handle or c.slug}\n" for c in owned)


def dublin_core(item: Item, base: str | None = None) -> bytes:
    return metadata_files(item, base)[saf.DUBLIN_CORE]


def export_item(item: Item, folder: Path, base: str | None = None) -> None:
    """The item's SAF folder at `folder` (replacing what was there)."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".saf-", dir=folder.parent))
    try:
        for name, data in metadata_files(item, base).items():
            (work / name).write_bytes(data)
        # The work's files first, then the bundles DSpace keeps beside them (models/files.py).
        files = sorted(ItemFile.every_bundle.filter(item=item), key=lambda row: (
            not policy.lists_as_work(row.bundle), row.bundle, row.name))
        for row in files:
            with (storage.open_file(item.ibi, row.name, row.bundle) as src,
                  open(work / row.name, "wb") as dst):
                shutil.copyfileobj(src, dst, storage.CHUNK)
        (work / saf.CONTENTS).write_text(saf.contents_text(
            saf.ContentLine(name=row.name, bundle=row.bundle,
                            primary=policy.lists_as_work(row.bundle)
                            and row.name == item.target_file,
                            permissions="" if policy.is_open(item.access_rights, row.restricted)
                            else CLOSED) for row in files), "utf-8")
        found = _handles(item)
        if found:
            (work / saf.HANDLE).write_text(found[0] + "\n", "utf-8")
        (work / saf.COLLECTIONS).write_text(collections_text(item), "utf-8")
        old = folder.with_name(folder.name + ".old")
        if folder.exists():
            os.replace(folder, old)
        os.replace(work, folder)
        shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise


def exportable(items: Iterable[Item] | None = None) -> Iterable[Item]:
    """The items an export writes: every item but tombstones and the archive service."""
    if items is not None:
        return [i for i in items if not i.is_deleted and not i.is_archive_service]
    return (Item.objects.filter(is_archive_service=False).exclude(state=Item.State.DELETED)
            .select_related("previous_edition", "collection")
            .prefetch_related("dc_values__field__schema", "alternate_ids", "mapped_collections")
            .order_by("pk").iterator(chunk_size=200))
