"""`importsaf`: a DSpace Simple Archive Format export (a folder or a .zip) into this repository.

Each item folder becomes an item with a freshly minted IBI, keeping its Handle (the `handle`
file, or a Handle in dc.identifier.uri) and its DSpace UUID as alternate identifiers. Its
ORIGINAL bundle becomes its files, the `primary:true` one the target file (else the first);
its TEXT, THUMBNAIL and LICENSE bundles are kept as such (models/files.py: never listed or
served as the work's files), so that an export puts them back; other bundles (CC-LICENSE …)
are skipped and counted. Its `collections` file places it (placement.py): the first Handle
its owning collection, the others those it is mapped into; a Handle no collection here
answers to fails the item, naming it. Metadata goes through
crosswalk.py: every value of dublin_core.xml and metadata_<schema>.xml is kept under its field
of the metadata registry with its language, authority and confidence; a value of a field the
registry does not have fails its item, naming the field (a librarian adds it in the admin and
imports again). An item whose Handle (or DSpace UUID) is already here is the same item: left
alone when nothing changed (skipped), else its metadata replaced and new files added
(updated). A package with neither (DSpace's batch-ingest SAF) is known again by its content:
an item here with its title and exactly its files (names and SHA-256), or, without files, its
title and metadata. `dry_run` decides all this and reports it, and writes nothing.

Every item stands alone: one that cannot be read or stored fails with its reason and the file
and line where it was found, and the others still come in. A failed item leaves nothing: the
deposit services store its files only once everything was checked and remove them if the
record does not commit. The same Handle in two folders fails the second. Editions: an item
whose dc.relation.isversionof names another item of the export (by Handle or identifier URI),
or that another's dc.relation.hasversion names, becomes its next edition; it waits for it
when it comes first.

Memory: the first pass keeps a few identifiers per item (Handles, identifier URIs, edition
references); items are read, stored and forgotten one at a time.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from django.utils.translation import gettext as _

from ..deposit import services as deposit
from ..deposit import staging, storage
from ..models import Item
from ..registry import selectors as registry
from . import access, crosswalk, handles, ibis, placement, saf, selectors, services
from .packages import Package
from .report import FAILED, IMPORTED, SKIPPED, UPDATED, Report

Scheme = services.Scheme


@dataclass
class Scanned:
    """What the first pass keeps of a package: enough to order editions and find twins."""

    handles: list[str] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)  # Handles and identifier URIs it answers to
    newer_than: list[str] = field(default_factory=list)
    older_than: list[str] = field(default_factory=list)
    error: tuple[str, str] | None = None  # (reason, where), when it cannot even be scanned


def _metadata(package: Package) -> list[saf.MetadataValue]:
    if not package.exists(saf.DUBLIN_CORE):
        raise saf.SafError(_("no dublin_core.xml"), saf.DUBLIN_CORE)
    values = saf.read_metadata(package.read(saf.DUBLIN_CORE), saf.DUBLIN_CORE)
    for name in package.names():
        if saf.METADATA_FILE.fullmatch(name):
            values += saf.read_metadata(package.read(name), name)
    return values


def _handle_file(package: Package) -> str:
    if not package.exists(saf.HANDLE):
        return ""
    return saf.first_line(package.read(saf.HANDLE, 4096).decode("utf-8-sig", "replace"))


def _key(value: str) -> str:
    return handles.handle_of(value) or value.strip()


def scan(package: Package) -> Scanned:
    found = Scanned()
    try:
        mapped = crosswalk.to_item(_metadata(package), handle=_handle_file(package))
    except saf.SafError as exc:
        found.error = (str(exc), f"{package.name}/{exc.where}")
        return found
    found.handles = mapped.handles
    found.keys = [*mapped.handles, *(v for v in mapped.dc.get("identifier", ())
                                     if v.startswith(("http://", "https://")))]
    found.newer_than = [_key(v) for v in mapped.newer_than]
    found.older_than = [_key(v) for v in mapped.older_than]
    return found


@dataclass
class Importer:
    """One run over the packages of a source; `report` gets a row per item."""

    packages: list[Package]
    report: Report
    today: date = field(default_factory=date.today)  # noqa: DTZ011 (embargoes are days)
    progress: Callable[[int], None] = lambda n: None
    # The export comes from the repository the items already here by its Handles came from:
    # a Handle of DSpace's default prefix then names the same item (services.py).
    same_repository: bool = False
    # Items that carry an IBI not held here: copied, or migrated with --migrate (ibis.py).
    keeping: ibis.Keeping = field(default_factory=ibis.Keeping)
    # Say what would be imported, updated, skipped or would fail; change nothing.
    dry_run: bool = False
    # What is kept per package between the passes, small whatever the collection: its Handles
    # and why it could not be scanned; after its import, its item's id (None: failed).
    scanned: dict[str, tuple[tuple[str, ...], tuple[str, str] | None]] = field(
        default_factory=dict)
    done: dict[str, int | None] = field(default_factory=dict)
    registry: set[str] | None = None  # the registry's field names, read once
    # Where items go: their `collections` files read through the map (placement.py).
    placing: placement.Placement = field(default_factory=placement.Placement)
    # models.Provenance: "elsewhere" on the librarian's --published-elsewhere; new content
    # is refused where a collection reviews (archive/review/policy.py).
    provenance: str = "new"

    def run(self) -> Report:
        # Handle or URI → the first package naming it
        self.owners = owners = {}
        refs: dict[str, Scanned] = {}  # only the packages naming other versions
        for package in self.packages:
            scanned = scan(package)
            self.scanned[package.name] = (tuple(scanned.handles), scanned.error)
            for key in scanned.keys:
                owners.setdefault(key, package.name)
            if scanned.newer_than or scanned.older_than:
                refs[package.name] = scanned
        self.previous = self._editions(refs, owners)
        waiting = []
        for package in self.packages:
            if self._ready(package):
                self._one(package, owners)
            else:
                waiting.append(package)
        while waiting:
            ready = [p for p in waiting if self._ready(p)] or waiting[:1]  # a cycle: break it
            for package in ready:
                waiting.remove(package)
                self._one(package, owners)
        return self.report

    def _editions(self, refs: dict[str, Scanned], owners: dict[str, str]) -> dict[str, str]:
        """package name → the key of its previous edition (a package's, or a Handle here)."""
        previous: dict[str, str] = {}
        for name, scanned in refs.items():
            for ref in scanned.newer_than:
                previous.setdefault(name, ref)
            for ref in scanned.older_than:
                newer = owners.get(ref)
                if newer is not None and scanned.keys:
                    previous.setdefault(newer, scanned.keys[0])
        return previous

    def _ready(self, package: Package) -> bool:
        ref = self.previous.get(package.name)
        return ref is None or self._owner(ref) is None or self._owner(ref) in self.done

    def _owner(self, ref: str) -> str | None:
        return self.owners.get(ref)

    def _one(self, package: Package, owners: dict[str, str]) -> None:
        found_handles, error = self.scanned[package.name]
        handle = found_handles[0] if found_handles else ""
        try:
            if error:
                raise saf.SafError(error[0], error[1].partition("/")[2])
            twin = next((h for h in found_handles if owners.get(h) != package.name), None)
            if twin:
                raise saf.SafError(_("the Handle %(handle)s is also in %(other)s") % {
                    "handle": twin, "other": owners[twin]}, saf.HANDLE)
            status, item, mapped = self._import(package)
        except Exception as exc:  # one bad item must not stop a long migration
            where = getattr(exc, "where", "")
            self.done[package.name] = None
            self.report.add(FAILED, package.name, line=f"{package.name}/{where}" if where
                            else package.name, identifier=handle, reason=reason(exc))
        else:
            self.done[package.name] = item.pk if item is not None else None
            self.report.add(status, package.name, identifier=handle,
                            ibi=item.ibi if item is not None else "",
                            reason="; ".join(mapped.notes), not_kept=mapped.not_kept)
        self.progress(1)

    def _import(self, package: Package) -> tuple[str, Item | None, crosswalk.Mapped]:
        for entry, reason in package.problems:
            raise saf.SafError(reason, entry.partition("/")[2] or entry)
        lines = (saf.read_contents(package.read(saf.CONTENTS).decode("utf-8-sig"))
                 if package.exists(saf.CONTENTS) else [])
        mapped = crosswalk.to_item(_metadata(package), lines, handle=_handle_file(package),
                                   today=self.today)
        if not mapped.title:
            raise saf.SafError(_("no dc.title"), saf.DUBLIN_CORE)
        self._registered(mapped)
        placed = self.placing.place(placement.read_collections(
            package.read(saf.COLLECTIONS, 65536).decode("utf-8-sig", "replace"))
            if package.exists(saf.COLLECTIONS) else [])
        level, restricted = access.of(mapped)
        files = [line for line in lines if line.bundle in saf.KEPT_BUNDLES]
        for line in lines:
            if line.bundle not in saf.KEPT_BUNDLES:
                self.report.bundles_skipped[line.bundle] += 1
        for line in files:
            try:  # there, inside the folder, within the size limit
                package.size(line.name)
            except saf.SafError as exc:
                raise saf.SafError(str(exc), f"{saf.CONTENTS}:{line.line}") from None
        ids = [(Scheme.HANDLE, h, "") for h in mapped.handles]
        ids += [(Scheme.DSPACE_ITEM, u, "") for u in mapped.uuids]
        status, existing, restored = self._carried(mapped, ids, services.holder(ids), placed)
        if status is not None:
            return status, existing, mapped
        with ExitStack() as stack:
            uploads = []
            for line in files:
                try:
                    opened = stack.enter_context(package.open(line.name))
                except saf.SafError as exc:
                    raise saf.SafError(str(exc), f"{saf.CONTENTS}:{line.line}") from None
                uploads.append(deposit.Upload(name=line.name, file=opened, bundle=line.bundle))
            target = next((u.name for u, line in zip(uploads, files, strict=True)
                           if line.primary and line.bundle == saf.ORIGINAL), "")
            target = storage.safe_name(target) if target else ""
            # Read once: the deposit services take the checksums kept on the files.
            sums = {storage.safe_name(u.name): _sha256(u.file) for u in uploads
                    if u.bundle == saf.ORIGINAL}
            bundle_sums = {(u.bundle, storage.safe_name(u.name)): _sha256(u.file)
                           for u in uploads if u.bundle != saf.ORIGINAL}
            if existing is None and not ids and restored is None:
                existing = self._same_content(mapped, sums)
            previous = self._previous(package, existing)
            # An edition reference that is no link here stays what DSpace said: a relation.
            linked = {self.previous.get(package.name)} if previous is not None else set()
            unlinked = [v for v in mapped.newer_than if _key(v) not in linked]
            unlinked += [v for v in mapped.older_than if _key(v) not in self.owners]
            if unlinked:
                mapped.dc.setdefault("relation", []).extend(unlinked)
            if existing is None:
                if self.dry_run:
                    return IMPORTED, None, mapped
                item = services.deposit(title=mapped.title, language=mapped.language,
                                        dc=crosswalk.stored(mapped), uploads=uploads,
                                        target_file=target, ids=ids,
                                        previous_edition=previous, access=level,
                                        restricted_files=restricted, restored_date=restored,
                                        collection=placed[0] if placed else
                                        self.placing.default,
                                        mapped=placed[1] if placed else (),
                                        provenance=self.provenance)
                return IMPORTED, item, mapped
            if services.same(existing, title=mapped.title, language=mapped.language,
                             dc=crosswalk.stored(mapped), files=sums, bundles=bundle_sums,
                             placed=placed) and services.same_access(existing, level, restricted):
                return SKIPPED, existing, mapped
            if not self.same_repository:
                services.refuse_unless_the_same(existing, ids)
            held = {**dict(existing.files.values_list("name", "sha256")),
                    **{name: sha for (_b, name), sha in services.bundles_of(existing).items()}}
            for name, sha in [*sums.items(), *((n, s) for (_b, n), s in bundle_sums.items())]:
                if name in held and held[name] != sha:
                    raise deposit.Conflict(_("%(name)s differs from the file of %(ibi)s: a "
                                             "file here never changes") % {
                        "name": name, "ibi": existing.ibi})
            new = [u for u in uploads if storage.safe_name(u.name) not in held]
            if self.dry_run:
                return UPDATED, existing, mapped
            item = services.update(existing, title=mapped.title, language=mapped.language,
                                   dc=crosswalk.stored(mapped), uploads=new, ids=ids, access=level,
                                   restricted_files=restricted, placed=placed)
            return UPDATED, item, mapped

    def _registered(self, mapped: crosswalk.Mapped) -> None:
        """SafError naming the first field of the item the registry does not have."""
        if self.registry is None:
            self.registry = set(registry.fields_by_name())
        for name, _value, _element in mapped.fields:
            if name not in self.registry:
                raise saf.SafError(_("%(field)s is not a field of the metadata registry")
                                   % {"field": name}, saf.DUBLIN_CORE if name.startswith(
                                       "dc.") else f"metadata_{name.partition('.')[0]}.xml")

    def _carried(self, mapped: crosswalk.Mapped, ids: list[services.Alternate],
                 existing: Item | None, placed: services.Placed | None = None
                 ) -> tuple[str | None, Item | None, Decimal | None]:
        """(status, item, None) of an item that carries its IBI (ibis.py): kept as a Copy or
        a migrated Original, or a Copy held here refreshed from its Original's Archive, and
        put where its `collections` file says (`placed`; a new one without it into
        --collection). Else
        (None, the item held here by its Handles or its IBI, or None, the date of the IBI this
        Archive minted for it, to deposit it under, or None), to import or update."""
        carried, others = ibis.carried(mapped.dc.get("identifier", []))
        if not carried:
            return None, existing, None
        mapped.dc["identifier"] = others  # its own persistent URL is its IBI, not metadata
        held = ibis.holder(carried)
        if existing is not None and (held is None or held.pk != existing.pk):
            raise deposit.Conflict(_("the record carries the IBI %(carried)s, but its Handles "
                                     "name %(other)s here") % {"carried": carried[0],
                                                               "other": existing.ibi})
        if held is not None and held.state != Item.State.COPY:
            return None, held, None
        if held is None and (date := ibis.minted_here(carried)) is not None:
            return None, None, date
        if self.dry_run:  # kept as a Copy (or migrated), or a Copy held here refreshed
            return (IMPORTED if held is None else UPDATED), held, None
        if held is None:
            item, status = ibis.keep(carried, self.keeping).item, IMPORTED
        else:
            item, status = held, UPDATED if ibis.refresh(held) else SKIPPED
        services.add_ids(item, ids)
        if placed is None and status == IMPORTED and self.placing.default is not None:
            placed = (self.placing.default, ())  # a new item without `collections`
        if not item.is_deleted and not services.in_collections(item, placed):
            services.place(item, placed)
            status = UPDATED if status == SKIPPED else status
        return status, item, None

    def _same_content(self, mapped: crosswalk.Mapped, sums: dict[str, str]) -> Item | None:
        """The item a package without Handle or UUID made before: the same title and files
        (names and SHA-256); with no files, the same metadata too (relations aside: those to
        other items of the export become edition links or stay text as the run finds them)."""
        return next((item for item in selectors.items_with_content(mapped.title, sums)
                     if sums or services.same(
                         item, title=mapped.title, language=mapped.language,
                         dc=crosswalk.stored(mapped), files={}, but_relations=True)), None)

    def _previous(self, package: Package, existing: Item | None) -> Item | None:
        ref = self.previous.get(package.name)
        if ref is None:
            return None
        owner = self._owner(ref)
        if owner is not None:
            pk = self.done.get(owner)
            found = Item.objects.filter(pk=pk).first() if pk is not None else None
        else:
            found = services.holder([(Scheme.HANDLE, ref, "")]) if "/" in ref else None
        if found is not None and Item.objects.filter(previous_edition=found).exclude(
                pk=existing.pk if existing else None).exists():
            return None  # it has a newer edition already: the relation stays as text
        return found


def reason(exc: Exception) -> str:
    """What the report says of a failure: the message of the errors we expect, else the
    exception's type too (a fault of ours, or of the source, that the operator can report)."""
    if isinstance(exc, saf.SafError | deposit.ServiceError | staging.Abandoned | OSError
                  | UnicodeError):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


def _sha256(fileobj) -> str:
    sha = getattr(fileobj, "sha256", None)
    if sha is None:
        sha, size = storage.sha256_of(fileobj)
        fileobj.sha256, fileobj.size = sha, size
    return sha


def import_packages(packages: Iterable[Package], report: Report, *,
                    progress: Callable[[int], None] = lambda n: None,
                    today: date | None = None, same_repository: bool = False,
                    keeping: ibis.Keeping | None = None, dry_run: bool = False,
                    placed_by: placement.Placement | None = None,
                    provenance: str = "new") -> Report:
    importer = Importer(list(packages), report, progress=progress, provenance=provenance,
                        same_repository=same_repository, keeping=keeping or ibis.Keeping(),
                        dry_run=dry_run, placing=placed_by or placement.Placement())
    if today is not None:
        importer.today = today
    return importer.run()
