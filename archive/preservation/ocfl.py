"""The collection as an OCFL 1.1 storage root (https://ocfl.io/1.1/spec/), and the repository
rebuilt from one alone.

    <root>/0=ocfl_1.1, ocfl_layout.json          storage layout extension 0003 (hash and id
           extensions/0003-…/config.json          n-tuple): sha256 of the id, 3 tuples of 3
           c18/9ce/5a6/<encoded id>/              characters, then the id %-encoded

One object per edition chain, its id the first edition's IBI (its repository name); each
edition is a version of it (v1 the first edition, v2 the second…), and a later change to an
edition already kept (its metadata, its access, new events) adds one more version. An object's
logical state, whatever its version:

    <n>/item.json        edition n's record (FORMAT): bagit.record_of (IBIs, state, edition
                         and translation links, every metadata value with its language and
                         authority, access level and embargo, files and their SHA-256) with
                         its collection and its PREMIS events
    <n>/doc/<name>       edition n's files

A translation is an item with an IBI of its own, so an object of its own, its record naming
what it translates. Inventories digest content with SHA-512 and keep SHA-256 as fixity (the
digest the database records). The object's storage is written by this module (a version's
folder first, then the inventories, each through a temporary name), its root, layout and
validation by ocfl-py, the reference implementation the OCFL editors keep.

`export` writes only what changed since an object's head (items updated, events recorded,
editions added since its head version's time); `rebuild` validates the whole root with
ocfl-py first, then recreates items, files, collections and events in one transaction, and
removes the files it stored when anything fails.
"""
from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import shutil
import tempfile
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import ocfl as ocfl_py
from django.conf import settings
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _
from ocfl.validation_logger import ValidationLogger
from ocfl.validator import Validator

from ..deposit import storage
from ..models import Collection, Community, Item, ItemFile, PremisAgent, PremisEvent
from ..registry import selectors as registry
from . import bagit, events

FORMAT = "ibirepo-ocfl-item/1"
SPEC = "1.1"
LAYOUT = "0003-hash-and-id-n-tuple-storage-layout"
INVENTORY = "inventory.json"
DIGEST = "sha512"
OBJECT_DECLARATION = f"0=ocfl_object_{SPEC}"
ROOT_DECLARATION = f"0=ocfl_{SPEC}"
CHUNK = 1024 * 1024
OBJECT_ID_PREFIX = "http://urlib.net/"


class OcflFailure(RuntimeError):
    """A root that cannot be written to, or rebuilt from; the message names the object."""


# -- Records --------------------------------------------------------------------------------------

def _collection(item: Item) -> dict | None:
    c = item.collection
    if c is None:
        return None
    m = c.community
    return {"slug": c.slug, "name_pt_br": c.name_pt_br, "name_en": c.name_en,
            "handle": c.handle, "default_access_rights": c.default_access_rights,
            "community": {"slug": m.slug, "name_pt_br": m.name_pt_br, "name_en": m.name_en}}


def _event(e: PremisEvent) -> dict:
    return {"identifier": str(e.identifier), "type": e.type, "at": e.at.isoformat(),
            "file": e.file, "outcome": e.outcome, "detail": e.detail,
            "outcome_detail": e.outcome_detail,
            "agent": {"kind": e.agent.kind, "identifier_type": e.agent.identifier_type,
                      "identifier": e.agent.identifier, "name": e.agent.name}}


def record_of(item: Item) -> dict:
    """An edition's item.json: the bag's record, its collection and its events."""
    return records_of([item.pk])[item.pk]


def records_of(pks: list[int]) -> dict[int, dict]:
    """The records of many items, read in a few queries whatever their number."""
    items = list(Item.objects.filter(pk__in=pks)
                 .select_related("collection__community", "previous_edition", "translation_of")
                 .prefetch_related("dc_values", "files"))
    metadata = registry.metadata_of(pks)
    found: dict[str, list[dict]] = defaultdict(list)
    for e in (PremisEvent.objects.filter(ibi__in=[i.ibi for i in items])
              .select_related("agent").order_by("at", "id")):
        found[e.ibi].append(_event(e))
    return {item.pk: {**bagit.record_of(item, metadata.get(item.pk, [])), "format": FORMAT,
                      "collection": _collection(item), "events": found[item.ibi]}
            for item in items}


def _dump(record: dict) -> bytes:
    return (json.dumps(record, ensure_ascii=False, indent=1, sort_keys=True) + "\n").encode()


# -- Writing --------------------------------------------------------------------------------------

def _digests(data: bytes) -> tuple[str, str]:
    return hashlib.sha512(data).hexdigest(), hashlib.sha256(data).hexdigest()


def _write_json(path: Path, value: dict) -> str:
    """Write an inventory and its sidecar, each through a temporary name; its sha512."""
    data = (json.dumps(value, ensure_ascii=False, indent=1, sort_keys=True) + "\n").encode()
    digest = hashlib.sha512(data).hexdigest()
    for name, body in ((path.name, data),
                       (f"{path.name}.{DIGEST}", f"{digest}  {path.name}\n".encode())):
        temporary = path.with_name(f".{name}.tmp")
        temporary.write_bytes(body)
        os.replace(temporary, path.with_name(name))
    return digest


def _copy_stored(rep: str, name: str, target: Path) -> tuple[str, str]:
    """Copy a stored file into an object, hashing it on the way: (sha512, sha256)."""
    sha512, sha256 = hashlib.sha512(), hashlib.sha256()
    target.parent.mkdir(parents=True, exist_ok=True)
    with storage.open_file(rep, name) as src, open(target, "wb") as dst:
        while chunk := src.read(CHUNK):
            sha512.update(chunk)
            sha256.update(chunk)
            dst.write(chunk)
    return sha512.hexdigest(), sha256.hexdigest()


def _now() -> str:
    return timezone.now().astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _paths_by_digest(state: dict[str, list[str]]) -> dict[str, str]:
    return {path: digest for digest, paths in state.items() for path in paths}


@dataclass
class _Object:
    """An object being written: its inventory as read (or new) and its folder."""
    identifier: str
    folder: Path
    inventory: dict

    @property
    def head_state(self) -> dict[str, str]:
        if not self.inventory["versions"]:
            return {}
        return _paths_by_digest(self.inventory["versions"][self.inventory["head"]]["state"])

    def add_version(self, state: dict[str, str | None], contents: dict, message: str) -> None:
        """Write the next version. `state` maps its logical paths to their sha512 (None for a
        file not yet in the object), `contents` maps the logical paths this version may add
        to (sha512 or None, sha256, writer): a file is copied (and hashed) once, into the
        new version's content, unless the manifest holds its bytes already."""
        inv = self.inventory
        head = f"v{len(inv['versions']) + 1}"
        version_dir = self.folder / head
        shutil.rmtree(version_dir, ignore_errors=True)  # a version a killed export left
        for logical, (sha512, sha256, write) in contents.items():
            if logical not in state or (sha512 is not None and sha512 in inv["manifest"]):
                continue
            content_path = f"{head}/content/{logical}"
            target = self.folder / content_path
            found512, found256 = write(target)
            if sha256 is not None and found256 != sha256:
                raise OcflFailure(_("%(id)s: %(path)s has not the SHA-256 the database "
                                    "records; run manage.py fixity")
                                  % {"id": self.identifier, "path": logical})
            state[logical] = found512
            if found512 in inv["manifest"]:  # the same bytes under another name
                target.unlink()
                continue
            inv["manifest"][found512] = [content_path]
            inv["fixity"]["sha256"].setdefault(found256, []).append(content_path)
        by_digest: dict[str, list[str]] = defaultdict(list)
        for logical, sha512 in sorted(state.items()):
            by_digest[sha512].append(logical)
        inv["versions"][head] = {
            "created": _now(), "message": message, "state": dict(by_digest),
            "user": _user()}
        inv["head"] = head
        version_dir.mkdir(parents=True, exist_ok=True)
        _write_json(version_dir / INVENTORY, inv)
        _write_json(self.folder / INVENTORY, inv)


@functools.cache
def _user() -> dict:
    """Who writes the versions: this software at its version (read once a process), at the
    repository's address (DEFAULT_FROM_EMAIL)."""
    return {"name": f"{events.SOFTWARE_NAME} {events.software_version()}",
            "address": f"mailto:{settings.DEFAULT_FROM_EMAIL}"}


def _new_inventory(identifier: str) -> dict:
    return {"id": identifier, "type": f"https://ocfl.io/{SPEC}/spec/#inventory",
            "digestAlgorithm": DIGEST, "head": "v0", "manifest": {}, "versions": {},
            "fixity": {"sha256": {}}}


def object_id(rep: str) -> str:
    """An object's id: its first edition's persistent URL at URLib, the IBIs' resolver (an
    OCFL id should be a URI), fixed whatever this instance's settings say, since the id
    places the object in the root."""
    return OBJECT_ID_PREFIX + rep


def is_root(path: Path) -> bool:
    return (path / ROOT_DECLARATION).is_file()


def open_root(path: Path) -> ocfl_py.StorageRoot:
    """The storage root at path, made when path is missing or empty; refused when path holds
    anything else."""
    root = ocfl_py.StorageRoot(root=str(path), layout_name=LAYOUT)
    if is_root(path):
        return root
    if path.exists() and (not path.is_dir() or any(path.iterdir())):
        raise OcflFailure(_("%(path)s is not empty and not an OCFL storage root: export into "
                            "an empty folder or an existing root") % {"path": path})
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        path.rmdir()  # ocfl-py makes the folder itself
    root.initialize(spec_version=SPEC)
    return root


@dataclass
class Exported:
    objects_written: int = 0
    objects_unchanged: int = 0
    versions: int = 0


def _families() -> dict[str, list[Item]]:
    """Every item, by edition chain (its first edition's IBI), in edition order."""
    found: dict[str, list[Item]] = defaultdict(list)
    for item in Item.objects.order_by("edition_family", "edition_number", "pk").only(
            "ibi", "edition_family", "edition_number", "updated"):
        found[item.edition_family or item.ibi].append(item)
    return found


def _changed_since(family: list[Item], head_time: datetime | None, kept: set[int],
                   last_event: dict[str, datetime]) -> bool:
    if head_time is None:
        return True
    for item in family:
        if item.edition_number not in kept or item.updated > head_time:
            return True
        if (when := last_event.get(item.ibi)) is not None and when > head_time:
            return True
    return False


def _edition_contents(item: Item, record: dict) -> tuple[dict, dict]:
    """An edition's logical paths → sha512, and how to write the ones not yet stored."""
    n = record["edition_number"]
    data = _dump(record)
    sha512, sha256 = _digests(data)

    def write_record(target: Path, data=data) -> tuple[str, str]:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        return _digests(data)

    state = {f"{n}/item.json": sha512}
    contents = {f"{n}/item.json": (sha512, sha256, write_record)}
    for row in record["files"]:
        logical = f"{n}/doc/{row['name']}"
        contents[logical] = (None, row["sha256"],
                             lambda target, name=row["name"]: _copy_stored(item.ibi, name,
                                                                           target))
        state[logical] = None
    return state, contents


def _head_time(inventory: dict) -> datetime | None:
    if not inventory["versions"]:
        return None
    created = inventory["versions"][inventory["head"]]["created"]
    return datetime.fromisoformat(created.replace("Z", "+00:00"))


def _sha512_known(obj: _Object, sha256: str) -> str | None:
    """A file's sha512 when the object already holds its bytes (found by the fixity's
    sha256), so that unchanged files are neither copied nor read again."""
    paths = obj.inventory["fixity"]["sha256"].get(sha256)
    if not paths:
        return None
    for digest, content_paths in obj.inventory["manifest"].items():
        if paths[0] in content_paths:
            return digest
    return None


def _export_family(obj: _Object, family: list[Item], records: dict[int, dict]) -> int:
    """Add the versions a family needs: changes to editions kept, then each new edition."""
    head = obj.head_state
    kept = {int(p.split("/", 1)[0]) for p in head}
    state = dict(head)
    changed: dict = {}
    new: list[tuple[int, dict, dict]] = []
    for item in family:
        record = records[item.pk]
        edition_state, contents = _edition_contents(item, record)
        for logical, (sha512, sha256, write) in list(contents.items()):
            if sha512 is None:  # a file: its bytes already in the object, or copied now
                known = _sha512_known(obj, sha256)
                contents[logical] = (known, sha256, write)
                edition_state[logical] = known
        n = record["edition_number"]
        if n in kept:
            old = {p: d for p, d in head.items() if p.split("/", 1)[0] == str(n)}
            if old != edition_state:
                for p in old:
                    state.pop(p)
                state.update(edition_state)
                changed.update(contents)
        else:
            new.append((n, edition_state, contents))
    versions = 0
    if changed:
        obj.add_version(state, changed, "editions changed since the last export")
        versions += 1
    for n, edition_state, contents in sorted(new, key=lambda t: t[0]):
        state.update(edition_state)
        obj.add_version(state, contents, f"edition {n}")
        versions += 1
    return versions


CHUNK_FAMILIES = 200  # objects whose records are read together


def export(path: Path) -> Exported:
    """Write or update the storage root at path (OcflFailure when it cannot)."""
    root = open_root(path)
    for leftover in path.glob(".ocfl-new-*"):  # an object a killed export was making
        shutil.rmtree(leftover, ignore_errors=True)
    last_event = dict(PremisEvent.objects.values("ibi").annotate(last=Max("at"))
                      .values_list("ibi", "last"))
    report = Exported()
    families = list(_families().items())
    for start in range(0, len(families), CHUNK_FAMILIES):
        due = []
        for rep, family in families[start:start + CHUNK_FAMILIES]:
            identifier = object_id(rep)
            folder = path / root.object_path(identifier)
            inventory = _read_inventory(folder)
            if inventory is not None and not _changed_since(
                    family, _head_time(inventory), _editions_kept(inventory), last_event):
                report.objects_unchanged += 1
                continue
            due.append((identifier, folder, inventory, family))
        records = records_of([item.pk for *_rest, family in due for item in family])
        for identifier, folder, inventory, family in due:
            if _write_object(path, identifier, folder, inventory, family, records, report):
                report.objects_written += 1
            else:  # touched, yet the same records: nothing to add
                report.objects_unchanged += 1
    return report


def _read_inventory(folder: Path) -> dict | None:
    try:
        inventory = json.loads((folder / INVENTORY).read_text("utf-8"))
    except FileNotFoundError:
        return None
    inventory.setdefault("fixity", {}).setdefault("sha256", {})
    return inventory


def _editions_kept(inventory: dict) -> set[int]:
    return {int(p.split("/", 1)[0]) for p in _paths_by_digest(
        inventory["versions"][inventory["head"]]["state"])}


def _write_object(path: Path, identifier: str, folder: Path, inventory: dict | None,
                  family: list[Item], records: dict[int, dict], report: Exported) -> bool:
    """Add an object's new versions (a new object is made aside, then moved into place)."""
    if inventory is not None:
        added = _export_family(_Object(identifier, folder, inventory), family, records)
        report.versions += added
        return bool(added)
    work = Path(tempfile.mkdtemp(prefix=".ocfl-new-", dir=path))
    try:
        (work / OBJECT_DECLARATION).write_text(f"ocfl_object_{SPEC}\n")
        report.versions += _export_family(_Object(identifier, work, _new_inventory(identifier)),
                                          family, records)
        folder.parent.mkdir(parents=True, exist_ok=True)
        os.replace(work, folder)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return True


# -- Validation -----------------------------------------------------------------------------------

@dataclass
class Validation:
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    objects: int = 0


def validate(path: Path) -> Validation:
    """ocfl-py's validation of the whole root: its structure, every object, every digest,
    warnings included."""
    logging.getLogger("ocfl").setLevel(logging.CRITICAL)
    report = Validation()
    root = ocfl_py.StorageRoot(root=str(path))
    root.log = ValidationLogger(log_warnings=True)
    root.open_root_fs()
    try:
        root.check_root_structure()
    except ocfl_py.StorageRootException as exc:
        report.errors.append(f"{exc.code}: {exc}")
        return report
    for object_path in root.object_paths():
        validator = Validator(check_digests=True, log_warnings=True)
        validator.validate_object(str(path / object_path))
        report.objects += 1
        for message in validator.log.messages:
            (report.errors if message.startswith("[E") else report.warnings).append(
                f"{object_path}: {message}")
    report.errors += [f"root: {m}" for m in root.log.messages if m.startswith("[E")]
    report.warnings += [f"root: {m}" for m in root.log.messages if m.startswith("[W")]
    return report


# -- Rebuild --------------------------------------------------------------------------------------

@dataclass
class Rebuilt:
    created: list[str] = field(default_factory=list)
    existing: list[str] = field(default_factory=list)
    files_stored: int = 0
    events: int = 0
    other_service: str | None = None


def _check_object(root: ocfl_py.StorageRoot, object_path: str) -> dict:
    """An object's inventory once ocfl-py found the object valid (digests included)."""
    full = Path(root.root, object_path)
    if not (full / INVENTORY).is_file():
        raise OcflFailure(_("object %(object)s: its inventory.json is missing")
                          % {"object": object_path})
    validator = Validator(check_digests=True)
    if not validator.validate_object(str(full)):
        raise OcflFailure(_("object %(object)s is damaged: %(reason)s")
                          % {"object": object_path, "reason": validator.status_str()})
    return json.loads((full / INVENTORY).read_text("utf-8"))


def read_root(path: Path) -> list[tuple[Path, dict, list[dict]]]:
    """Every object of a valid root: its folder, inventory and edition records, each edition's
    record with the content path of each of its files (under "_content")."""
    if not is_root(path):
        raise OcflFailure(_("%(path)s is not an OCFL storage root") % {"path": path})
    root = ocfl_py.StorageRoot(root=str(path))
    root.open_root_fs()
    try:
        root.check_root_structure()
    except ocfl_py.StorageRootException as exc:
        raise OcflFailure(_("%(path)s is not a valid OCFL storage root: %(reason)s")
                          % {"path": path, "reason": exc}) from None
    found = []
    for object_path in sorted(_object_paths(path)):
        inventory = _check_object(root, object_path)
        folder = path / object_path
        state = _paths_by_digest(inventory["versions"][inventory["head"]]["state"])
        records = []
        for logical in sorted((p for p in state if p.endswith("/item.json")),
                              key=lambda p: int(p.split("/", 1)[0])):
            content = inventory["manifest"][state[logical]][0]
            record = json.loads((folder / content).read_text("utf-8"))
            n = logical.split("/", 1)[0]
            try:
                record["_content"] = {row["name"]: folder / inventory["manifest"][
                    state[f"{n}/doc/{row['name']}"]][0] for row in record["files"]}
                # The inventory's digest is the file's SHA-512: the second digest restored.
                record["_sha512"] = {row["name"]: state[f"{n}/doc/{row['name']}"]
                                     for row in record["files"]}
            except KeyError as exc:
                raise OcflFailure(_("object %(object)s: edition %(n)s names a file its "
                                    "version does not hold: %(name)s")
                                  % {"object": object_path, "n": n, "name": exc}) from None
            if record.get("format") != FORMAT:
                raise OcflFailure(_("object %(object)s: %(path)s is not of format "
                                    "%(format)s") % {"object": object_path, "path": logical,
                                                     "format": FORMAT})
            records.append(record)
        found.append((folder, inventory, records))
    return found


def _object_paths(path: Path) -> Iterable[str]:
    """Folders under the root holding an object declaration, or looking like objects
    that lost it (an inventory without a declaration)."""
    for folder, dirs, files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "extensions")
        if OBJECT_DECLARATION in files or INVENTORY in files or (
                any(d.startswith("v") and d[1:].isdigit() for d in dirs)):
            dirs[:] = []
            yield Path(folder).relative_to(path).as_posix()


def _collection_for(data: dict | None) -> Collection | None:
    if not data:
        return None
    community, _made = Community.objects.get_or_create(
        slug=data["community"]["slug"], defaults={
            "name_pt_br": data["community"]["name_pt_br"],
            "name_en": data["community"]["name_en"]})
    collection, _made = Collection.objects.get_or_create(
        slug=data["slug"], defaults={
            "community": community, "name_pt_br": data["name_pt_br"],
            "name_en": data["name_en"], "handle": data.get("handle", ""),
            "default_access_rights": data.get("default_access_rights", "open")})
    return collection


def _restore_events(record: dict) -> int:
    known = set(PremisEvent.objects.filter(ibi=record["ibi"])
                .values_list("identifier", flat=True))
    made = 0
    for e in record.get("events", []):
        if any(str(k) == e["identifier"] for k in known):
            continue
        a = e["agent"]
        agent, _made = PremisAgent.objects.get_or_create(
            identifier_type=a["identifier_type"], identifier=a["identifier"],
            defaults={"kind": a["kind"], "name": a["name"]})
        PremisEvent.objects.create(
            identifier=e["identifier"], type=e["type"], at=datetime.fromisoformat(e["at"]),
            ibi=record["ibi"], file=e.get("file", ""), agent=agent, outcome=e["outcome"],
            detail=e.get("detail", ""), outcome_detail=e.get("outcome_detail", ""))
        made += 1
    return made


def rebuild(path: Path) -> Rebuilt:
    """Recreate every item the root holds; all or nothing (OcflFailure naming the object)."""
    objects = read_root(path)  # the whole root validated before anything is written
    report = Rebuilt()
    stored: list[str] = []
    try:
        with transaction.atomic():
            empty_before = not Item.objects.filter(is_archive_service=False).exists()
            made: list[dict] = []
            for folder, _inventory, records in objects:  # noqa: B007 - named on failure
                for record in records:
                    if Item.objects.filter(ibi=record["ibi"]).exists() or (
                            Item.objects.filter(ibip=record["ibip"]).exists()):
                        report.existing.append(record["ibi"])
                        continue
                    if record.get("is_archive_service") and not empty_before:
                        report.other_service = record["ibi"]
                        continue
                    for row in record["files"]:
                        key = storage.file_key(record["ibi"], row["name"])
                        if default_storage.exists(key):
                            default_storage.delete(key)  # the root is what was held
                        with open(record["_content"][row["name"]], "rb") as src:
                            payload = File(src, name=row["name"])
                            payload.sha256, payload.size = row["sha256"], row["size"]
                            storage.store(record["ibi"], row["name"], payload)
                        stored.append(key)
                        report.files_stored += 1
                    item = bagit._create(record, empty_before, origin="its OCFL object")
                    for name, sha512 in record["_sha512"].items():
                        ItemFile.objects.filter(item=item, name=name).update(sha512=sha512)
                    collection = _collection_for(record.get("collection"))
                    if collection is not None:
                        Item.objects.filter(pk=item.pk).update(collection=collection)
                    report.events += _restore_events(record)
                    report.created.append(record["ibi"])
                    made.append(record)
            bagit._link(made)
            bagit._advance_minting(made)
    except OcflFailure:
        _unstore(stored)
        raise
    except Exception as exc:
        _unstore(stored)
        raise OcflFailure(_("object %(object)s: %(reason)s") % {
            "object": folder.relative_to(path).as_posix(),
            "reason": f"{type(exc).__name__}: {exc}"}) from exc
    return report


def _unstore(keys: list[str]) -> None:
    for key in keys:
        default_storage.delete(key)
