"""A file tree that can rebuild the repository: one BagIt bag per item, under the same layout.

    <tree>/col/<repository name>/bagit.txt
                                 bag-info.txt          External-Identifier: both IBI forms
                                 manifest-sha256.txt   the payload's checksums
                                 tagmanifest-sha256.txt
                                 ibi-item.json         the database record (FORMAT below)
                                 premis.xml            its preservation events (PREMIS 3.0)
                                 data/doc/<files>      the item's files, as in col/<rep>/doc/
                                 data/ro-crate-metadata.json   the payload as an RO-Crate 1.1

Bags are made and checked by bagit-python (the Library of Congress implementation). The item's
record and its events (premis.py) are tag files, so the tag manifest covers them: everything
`rebuild` reads is checked.
An item's bag is written beside its final place and renamed into it, so a tree never holds
half a bag; an export whose record is unchanged is left alone (files never change in place).
bagit-python changes the working directory while it works: run exports from commands or
tasks, not from web requests.

`rebuild` walks such a tree, validates every bag, stores the files (keeping those already
stored with the right sha256) and recreates items, Dublin Core, files, editions,
translations, states, timestamps, both IBI forms and the events (premis.xml), and records
the rebuild itself as an ingestion event. Items already in the database are left
as they are. The archive service keeps the tree's IBI only in an otherwise empty repository
(a fresh `migrate` mints a new one): an Archive's name must not change under a live one.
Access statistics are not part of the tree.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path

import bagit
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import DatabaseError, transaction
from django.utils.translation import gettext as _

from ..deposit import content_types, storage, values
from ..identifiers import ibi as ibilib
from ..identifiers import orcid
from ..identifiers.minting import exact_decimal
from ..metadata import rocrate
from ..metadata.selectors import record_of as metadata_record
from ..models import DC_ELEMENTS, AccessRights, DcValue, Item, ItemFile, MintingState
from ..registry import names
from ..registry import selectors as registry
from . import events, premis

FORMAT = "ibirepo-item/1"
RECORD = "ibi-item.json"
PREMIS = "premis.xml"
# The payload is an RO-Crate 1.1 (metadata/rocrate.py): its metadata file at data/, beside doc/.
CRATE = f"data/{rocrate.METADATA}"
_TIMES = ("created", "updated", "deleted_at", "copied_at", "origin_timestamp")


class BagFailure(RuntimeError):
    """A bag that cannot be written or read back."""


def _time(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def record_of(item: Item, metadata: list[dict] | None = None) -> dict:
    """What the database knows of an item, as ibi-item.json holds it. Prefetched values and
    files are used when present; `metadata`, the item's registry values, when a caller read
    many items' at once (registry.metadata_of)."""
    return {
        "format": FORMAT,
        "ibi": item.ibi, "ibip": item.ibip, "state": item.state,
        "transferable": item.transferable, "is_archive_service": item.is_archive_service,
        "title": item.title, "language": item.language, "target_file": item.target_file,
        "previous_edition": item.previous_edition.ibi if item.previous_edition_id else None,
        "translation_of": item.translation_of.ibi if item.translation_of_id else None,
        "edition_family": item.edition_family, "edition_number": item.edition_number,
        **{name: _time(getattr(item, name)) for name in _TIMES},
        "source_archive": item.source_archive,
        # Who may read the files: a bag keeps the conditions as well as the bytes.
        "access": {"rights": item.access_rights,
                   "embargo_until": item.embargo_until.isoformat() if item.embargo_until
                   else None, "reason": item.access_reason},
        "dc": {e: item.dc(e) for e in DC_ELEMENTS if item.dc(e)},
        # The creators' ORCID iDs, in the order of dc.creator ("" for none), when any is known.
        **({"creator_orcids": orcids} if any(orcids := [
            v.orcid for v in item.dc_values.all() if v.element == "creator"]) else {}),
        # Every value as the registry names it (issue 34): what a restore reads, "dc" above
        # being simple Dublin Core for other readers of the bag.
        "metadata": metadata if metadata is not None
        else registry.metadata_of([item.pk]).get(item.pk, []),
        "files": [{"name": f.name, "size": f.size, "sha256": f.sha256,
                   "content_type": f.content_type, "created": _time(f.created),
                   "restricted": f.restricted}
                  for f in sorted(item.files.all(), key=lambda f: f.name)],
    }


def _dump(record: dict) -> str:
    return json.dumps(record, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


# -- Export ---------------------------------------------------------------------------------------

def bag_folder(root: Path, rep: str) -> Path:
    return Path(root, storage.item_folder(rep))


def export_item(item: Item, root: Path, *, force: bool = False) -> bool:
    """Write the item's bag under root; False when an identical one is there already."""
    record = record_of(item)
    preservation = premis.document(item)
    final = bag_folder(root, item.ibi)
    existing = final / RECORD
    if (not force and existing.is_file() and existing.read_text("utf-8") == _dump(record)
            and (final / CRATE).is_file() and (final / PREMIS).is_file()
            and (final / PREMIS).read_bytes() == preservation):
        return False
    final.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".bag-", dir=final.parent))
    try:
        doc = work / "doc"
        doc.mkdir()
        for row in record["files"]:
            with storage.open_file(item.ibi, row["name"]) as src, \
                    open(doc / row["name"], "wb") as dst:
                shutil.copyfileobj(src, dst, storage.CHUNK)
        (work / rocrate.METADATA).write_text(json.dumps(
            rocrate.to_dict(metadata_record(item)), ensure_ascii=False, indent=1) + "\n",
            "utf-8")
        info = {"External-Identifier": [item.ibi, item.ibip],
                "External-Description": " ".join(item.title.split()),
                "Bag-Group-Identifier": item.edition_family or item.ibi}
        bag = bagit.make_bag(str(work), info, checksums=["sha256"])
        made = {path: sums["sha256"] for path, sums in bag.payload_entries().items()
                if path != CRATE}
        wanted = {f"data/doc/{row['name']}": row["sha256"] for row in record["files"]}
        if made != wanted:  # storage gave other bytes than the rows record: say so, stop
            bad = sorted(k for k in wanted if made.get(k) != wanted[k])
            raise BagFailure(_(
                "%(ibi)s: stored bytes differ from the record: %(bad)s; run manage.py fixity")
                % {"ibi": item.ibi, "bad": bad})
        # An item without files still needs its (empty) payload manifest (RFC 8493 §2.1.3),
        # which bagit-python writes only for files it found.
        (work / "manifest-sha256.txt").touch()
        (work / RECORD).write_text(_dump(record), "utf-8")
        (work / PREMIS).write_bytes(preservation)
        bag.save()  # the tag manifest now covers the record, the events and the manifest
        old = final.with_name(final.name + ".old")
        if final.exists():
            os.replace(final, old)
        os.replace(work, final)
        shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return True


# -- Rebuild --------------------------------------------------------------------------------------

@dataclass
class Rebuilt:
    created: list[str] = field(default_factory=list)
    existing: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)  # bag folder → why
    files_stored: int = 0
    files_kept: int = 0
    other_service: str | None = None  # the tree's archive service, not taken over


def find_bags(root: Path) -> Iterator[Path]:
    """Folders under root/col holding a bagit.txt, skipping unfinished (hidden) ones."""
    for folder, dirs, files in os.walk(Path(root, "col")):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        if "bagit.txt" in files:
            dirs[:] = []
            yield Path(folder)


def read_bag(path: Path, root: Path) -> dict:
    """The item record of a valid bag, checked against the bag's place and manifest."""
    try:
        bag = bagit.Bag(str(path))
        bag.validate()
    except bagit.BagError as exc:
        raise BagFailure(_("not a valid bag: %(reason)s") % {"reason": exc}) from None
    if RECORD not in bag.tagfile_entries():
        raise BagFailure(_("%(record)s is missing or not in the tag manifest")
                         % {"record": RECORD})
    try:
        record = values.read_json((path / RECORD).read_text("utf-8"))
    except ValueError as exc:
        raise BagFailure(_("%(record)s is not JSON: %(reason)s")
                         % {"record": RECORD, "reason": exc}) from None
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise BagFailure(_("%(record)s is not of format %(format)s")
                         % {"record": RECORD, "format": FORMAT})
    rep = path.relative_to(Path(root, "col")).as_posix()
    try:
        ibis = ibilib.parse(record["ibi"]), ibilib.parse(record["ibip"])
    except (KeyError, TypeError, ValueError) as exc:
        raise BagFailure(_("%(record)s has no valid IBI: %(reason)s")
                         % {"record": RECORD, "reason": exc}) from None
    if record["ibi"] != rep or ibis[0].form != "rep" or ibis[1].form != "ibip":
        raise BagFailure(_("%(record)s names %(ibi)s, the bag lives at col/%(rep)s")
                         % {"record": RECORD, "ibi": record["ibi"], "rep": rep})
    if record.get("state") not in Item.State.values:
        raise BagFailure(_("state %(state)r is not one of %(values)s")
                         % {"state": record.get("state"), "values": Item.State.values})
    payload = {p: sums["sha256"] for p, sums in bag.payload_entries().items() if p != CRATE}
    listed = {}
    for row in record.get("files", []):
        name = row.get("name", "")
        if storage.safe_name(name) != name:
            raise BagFailure(_("%(name)r is not a bare file name") % {"name": name})
        listed[f"data/doc/{name}"] = row.get("sha256")
    if listed != payload:
        raise BagFailure(_("%(record)s and the payload manifest list different files")
                         % {"record": RECORD})
    orcids = record.get("creator_orcids", [])
    if not isinstance(orcids, list) or not all(o == "" or _bare_orcid(o) for o in orcids):
        raise BagFailure(_("%(record)s: creator_orcids are not bare ORCID iDs: %(orcids)r")
                         % {"record": RECORD, "orcids": orcids})
    # Its events, from bags that have them (since issue 38), checked by the tag manifest too.
    record["_events"] = []
    if (path / PREMIS).exists():
        if PREMIS not in bag.tagfile_entries():
            raise BagFailure(_("%(record)s is not in the tag manifest") % {"record": PREMIS})
        try:
            record["_events"] = premis.events_in((path / PREMIS).read_bytes())
        except ValueError as exc:
            raise BagFailure(str(exc)) from None
    return record


def _values(item: Item, record: dict) -> list[DcValue]:
    """The rows of a bag's values: its "metadata" (bags since issue 34), else its "dc" and
    creators' ORCID iDs."""
    fields = registry.fields_by_name()
    if "metadata" in record:
        positions: dict[str, int] = {}
        rows = []
        for value in record["metadata"]:
            field = fields.get(value["field"])
            if field is None:
                raise BagFailure(_("%(record)s: %(field)s is not a field of the metadata "
                                   "registry") % {"record": RECORD, "field": value["field"]})
            position = positions[field.name] = positions.get(field.name, -1) + 1
            rows.append(DcValue(item=item, field=field, element=field.dc_element,
                                value=value["value"], language=value.get("language", ""),
                                authority=value.get("authority", ""), position=position,
                                confidence=value.get("confidence", -1)))
        return rows
    orcids = dict(enumerate(record.get("creator_orcids") or []))
    return [DcValue(item=item, field=fields[names.join("dc", e)], element=e, value=v,
                    position=p, authority=orcids.get(p, "") if e == "creator" else "",
                    confidence=600 if e == "creator" and orcids.get(p) else -1)
            for e, values in record.get("dc", {}).items() if e in DC_ELEMENTS
            for p, v in enumerate(values)]


def _bare_orcid(value: object) -> bool:
    try:
        return isinstance(value, str) and orcid.normalize(value) == value
    except orcid.OrcidError:
        return False


def _store(path: Path, rep: str, row: dict, report: Rebuilt) -> None:
    key = storage.file_key(rep, row["name"])
    if default_storage.exists(key):
        with storage.open_file(rep, row["name"]) as stored:
            if storage.sha256_of(stored) == (row["sha256"], row["size"]):
                report.files_kept += 1
                return
        default_storage.delete(key)  # the bag is what the repository held: it wins
    with open(path / "data" / "doc" / row["name"], "rb") as src:
        payload = File(src, name=row["name"])
        payload.sha256, payload.size = row["sha256"], row["size"]
        storage.store(rep, row["name"], payload)
    report.files_stored += 1


def _when(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


def _create(record: dict, empty_before: bool, origin: str = "its bag") -> Item:
    """The item of a record (a bag's, or an OCFL object's: `origin` says which), with its
    values, its file rows, the events its record carries, and the event of this rebuild."""
    with transaction.atomic():
        fields = {
            "ibi": record["ibi"], "ibip": record["ibip"], "state": record["state"],
            "transferable": bool(record.get("transferable", True)),
            "title": record["title"], "language": record.get("language", ""),
            "target_file": record.get("target_file", ""),
            "edition_family": record.get("edition_family") or record["ibi"],
            "edition_number": int(record.get("edition_number") or 1),
            "source_archive": record.get("source_archive", ""),
            **_access(record.get("access") or {}),
            **{name: _when(record.get(name)) for name in _TIMES},
        }
        service = (Item.objects.select_for_update().filter(is_archive_service=True).first()
                   if record.get("is_archive_service") else None)
        if service is not None:
            if not empty_before:
                return service
            item = service
            Item.objects.filter(pk=item.pk).update(**fields)
        else:
            item = Item.objects.create(
                **fields, is_archive_service=bool(record.get("is_archive_service")))
            Item.objects.filter(pk=item.pk).update(
                created=fields["created"] or item.created,
                updated=fields["updated"] or item.updated)
        item.dc_values.all().delete()
        DcValue.objects.bulk_create(_values(item, record))
        for row in record.get("files", []):
            made = ItemFile.objects.create(item=item, name=row["name"], size=row["size"],
                                           sha256=row["sha256"],
                                           restricted=row.get("restricted") is True,
                                           content_type=content_types.stored_type(
                                               row["name"], row.get("content_type")))
            if row.get("created"):
                ItemFile.objects.filter(pk=made.pk).update(created=_when(row["created"]))
        restored = premis.restore(item, record.get("_events", []))
        events.record(events.Type.INGESTION, ibi=item.ibi, detail=(
            f"rebuilt from {origin}: {len(record.get('files', []))} files"
            + (f", {restored} events restored" if restored else "")))
    return item


def _access(access: dict) -> dict:
    """The access fields of a bag's record (a bag made before access levels: open). An
    unknown level closes the files rather than opening them."""
    rights = access.get("rights") or AccessRights.OPEN
    day = access.get("embargo_until")
    return {"access_rights": rights if rights in AccessRights.values
            else AccessRights.METADATA_ONLY,
            "embargo_until": date.fromisoformat(day) if day else None,
            "access_reason": str(access.get("reason") or "")}


def _link(records: list[dict]) -> None:
    by_ibi = dict(Item.objects.filter(ibi__in=[r["ibi"] for r in records])
                  .values_list("ibi", "pk"))
    with transaction.atomic():
        for record in records:
            links = {}
            for name in ("previous_edition", "translation_of"):
                if record.get(name) and record[name] in by_ibi:
                    links[f"{name}_id"] = by_ibi[record[name]]
            if links:
                Item.objects.filter(pk=by_ibi[record["ibi"]]).update(**links)


def _advance_minting(records: list[dict]) -> None:
    """Never mint again a date the rebuilt items carry: last-date-for-suffix moves past them."""
    if not records:
        return
    newest = max(ibilib.parse(r["ibi"]).date for r in records)
    with transaction.atomic():
        state, _created = MintingState.objects.select_for_update().get_or_create(name="default")
        if not state.last_date_for_suffix or Decimal(state.last_date_for_suffix) < newest:
            state.last_date_for_suffix = str(exact_decimal(newest))
            state.save(update_fields=["last_date_for_suffix", "updated"])


def rebuild(root: Path) -> Rebuilt:
    """Recreate the items of every valid bag under root/col; report what failed and why."""
    report = Rebuilt()
    empty_before = not Item.objects.filter(is_archive_service=False).exists()
    made: list[dict] = []
    for path in find_bags(root):
        where = path.relative_to(root).as_posix()
        try:
            record = read_bag(path, root)
        except (BagFailure, storage.FileNameError, ValueError, KeyError) as exc:
            report.failed[where] = str(exc)
            continue
        if Item.objects.filter(ibi=record["ibi"]).exists() or (
                Item.objects.filter(ibip=record["ibip"]).exists()):
            report.existing.append(record["ibi"])
            continue
        if record.get("is_archive_service") and not empty_before:
            report.other_service = record["ibi"]
            continue
        try:
            for row in record.get("files", []):
                _store(path, record["ibi"], row, report)
            _create(record, empty_before)
        except (KeyError, TypeError, ValueError, DatabaseError, storage.StorageConflict) as exc:
            report.failed[where] = f"{type(exc).__name__}: {exc}"
            continue
        report.created.append(record["ibi"])
        made.append(record)
    _link(made)
    _advance_minting(made)
    return report
