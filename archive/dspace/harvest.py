"""`harvest`: the records of any OAI-PMH 2.0 repository (DSpace, EPrints, another Archive of
this software) into items here, incrementally and resumably.

* Metadata: DSpace's `dim` when the source lists it in ListMetadataFormats (every value
  under its field, `schema.element.qualifier`, with its language, authority and confidence,
  read by crosswalk.py as importsaf reads SAF: a field the registry lacks fails its record),
  else `oai_dc` (simple Dublin Core: each value a dc.<element>); ListRecords, with the set
  and `from` asked. Files: DSpace's `ore`
  (its ResourceMap aggregates the ORIGINAL bitstreams) when the source lists it in
  ListMetadataFormats, else `mets` (the ORIGINAL fileGrp), each asked per record with
  GetRecord; else the item is metadata only, its dc:identifier values (the item's page at the
  source among them) kept.
* An item is keyed by its OAI identifier (an alternate identifier of scheme "oai"): a record
  harvested again updates its item (metadata replaced, new files added; a file here never
  changes), never a second item. A deleted record becomes a tombstone. Its Handle (from a
  dc:identifier such as http://hdl.handle.net/123456789/42) and DSpace UUIDs are kept too, so
  the old links lead to it (site/legacy.py).
* Incremental: the newest datestamp harvested is kept per source and set (HarvestSource); the
  next run asks `from` it (inclusive: records of that very second come again, and are skipped
  when unchanged). `full=True` asks everything.
* Resumable: after each page, its resumption token is kept; a run stopped by a crash resumes
  at the page after the last one done. A token the source no longer knows restarts the run
  from its `from`.
* A page that fails (an OAI-PMH error, a truncated answer, an HTTP error, a redirect to another
  host) is reported and stops the run, its token kept for the next; a record that fails is
  reported and the next record comes.
* A list that never ends is left: a resumption token the run was given before stops it,
  reported as failed (its token dropped: the next run starts the list again, it does not
  resume the loop); and a run asks at most IBI_HARVEST_MAX_PAGES pages (--max-pages), then
  stops with the next page's token kept, so the next run goes on from there. Pages are asked
  IBI_HARVEST_PAGE_DELAY seconds apart (--page-delay), besides --delay between any two
  requests and a 503's Retry-After (remote.py).
* Collections: a record's header names them in its `col_` setSpecs (placement.py
  `collection_sets`), the owning collection first, then those it is mapped into: DSpace's
  `col_<prefix>_<suffix>` (a collection's Handle) found in the map of --map-collections, else
  by the Handle a collection here keeps; another Archive's `col_<slug>` in the map, else a
  collection here of that slug. One found neither way fails its record, naming it. A new
  record without any goes into --collection, else the default collection; an item harvested
  again is moved and mapped as its sets now say (without any it stays where it is).
* Remote access only through remote.py: the source's host and the --files-from hosts.
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from ..deposit import services as deposit
from ..deposit import storage
from ..metadata import dim
from ..models import HarvestSource, Item
from ..registry import selectors as registry
from . import access, crosswalk, handles, ibis, oaipmh, placement, saf, services
from .remote import Remote, RemoteError
from .report import DELETED, FAILED, IMPORTED, SKIPPED, UPDATED, Report

logger = logging.getLogger(__name__)
Scheme = services.Scheme
FILE_FORMATS = ("ore", "mets")


@dataclass
class Outcome:
    """What a run did besides its report rows."""

    pages: int = 0
    completed: bool = False
    capped: bool = False  # stopped at the page cap, the next page's token kept
    resumed: bool = False
    file_format: str = ""
    last_datestamp: str = ""


def pick_date(values: list[str]) -> str:
    """dc:date of an oai_dc record: DSpace lists accessioned, available and issued alike; the
    issued date is the one without a time of day. "" when none is EDTF level 0."""
    plain = [v for v in values if "T" not in v] + [v for v in values if "T" in v]
    for value in plain:
        try:
            return deposit.clean_date(crosswalk.normal_date(value))
        except deposit.ServiceError:
            continue
    return ""


def mapped_record(dc: dict[str, list[str]], today: date | None = None) -> crosswalk.Mapped:
    """oai_dc's elements as an item: the first title and language; Handles and DSpace UUIDs
    among dc:identifier kept as alternate identifiers; a dc:rights naming an access level
    (crosswalk's one vocabulary) is the item's level, with OpenAIRE's embargo end
    (`info:eu-repo/date/embargoEnd/<day>` in dc:date) the day an embargo lifts."""
    today = today or date.today()  # noqa: DTZ011 (an embargo's day is the library's)
    mapped = crosswalk.Mapped()
    titles = dc.get("title", [])
    mapped.title = titles[0] if titles else ""
    mapped.not_kept += ["dc:title"] * (len(titles) > 1)
    languages = [crosswalk.language_tag(v) for v in dc.get("language", [])]
    for tag in languages:
        try:
            mapped.language = deposit.clean_language(tag)
            break
        except deposit.ServiceError:
            mapped.not_kept.append("dc:language")
    until = None
    for element, values in dc.items():
        if element in ("title", "language"):
            continue
        if element == "date":
            ends = [v for v in values if crosswalk.is_embargo_end(v)]
            until = crosswalk.embargo_until(
                saf.MetadataValue("dc", "date", "", "", v) for v in ends)
            values = [v for v in values if v not in ends]
            chosen = pick_date(values)
            if chosen:
                mapped.dc["date"] = [chosen]
            elif values:
                mapped.not_kept.append("dc:date")
            continue
        for value in values:
            if element == "identifier" and _alternate(mapped, value):
                continue
            if element == "rights" and crosswalk.read_rights(mapped, value, "dc:rights",
                                                             access_field=False):
                continue
            mapped.dc.setdefault(element, []).append(value)
    crosswalk.settle_embargo(mapped, until, today)
    mapped.not_kept = sorted(set(mapped.not_kept))
    return mapped


def _alternate(mapped: crosswalk.Mapped, value: str) -> bool:
    lower = value.lower()
    handle = handles.handle_of(value) if lower.startswith(("http", "hdl:", "info:hdl")) else None
    if handle:
        mapped.handles.append(handle)
        return True
    uuid = handles.uuid_of(value) if lower.startswith(("http", "urn:uuid:")) else None
    if uuid:
        mapped.uuids.append(uuid)
        return True
    return False


def file_ids(remote_file: oaipmh.RemoteFile, name: str) -> list[services.Alternate]:
    """DSpace's names of a bitstream, from its URL: DSpace 7's /bitstreams/<uuid>/download,
    DSpace 6's /bitstream/<handle>/<sequence>/<name> and /bitstream/handle/<h>/<n>?sequence=."""
    parts = urlsplit(remote_file.url)
    segments = [s for s in parts.path.split("/") if s]
    uuid = handles.uuid_of(remote_file.url)
    if uuid and "bitstreams" in segments:
        return [(Scheme.DSPACE_BITSTREAM, uuid, name)]
    if "bitstream" in segments:
        rest = segments[segments.index("bitstream") + 1:]
        query = dict(p.partition("=")[::2] for p in parts.query.split("&") if p)
        if rest[:1] == ["handle"] and len(rest) >= 4 and query.get("sequence", "").isdigit():
            return [(Scheme.DSPACE_SEQUENCE, f"{rest[1]}/{rest[2]}/{query['sequence']}".lower(),
                     name)]
        if len(rest) >= 4 and rest[2].isdigit():
            return [(Scheme.DSPACE_SEQUENCE, f"{rest[0]}/{rest[1]}/{rest[2]}".lower(), name)]
    return []


@dataclass
class Harvester:
    remote: Remote
    report: Report
    set_spec: str = ""
    same_repository: bool = False  # a Handle of the default prefix names the same item
    keeping: ibis.Keeping = field(default_factory=ibis.Keeping)  # items carrying an IBI
    max_pages: int = 10_000
    page_delay: float = 0.0
    progress: Callable[[int, int | None], None] = lambda n, total: None
    outcome: Outcome = field(default_factory=Outcome)
    prefix: str = "oai_dc"  # dim when the source offers it (run)
    registry: set[str] | None = None  # the registry's field names, read once
    # models.Provenance: "elsewhere" on the librarian's --published-elsewhere (policy.py).
    provenance: str = "new"
    # Where records go: their headers' col_ setSpecs read through the map (placement.py).
    placing: placement.Placement = field(default_factory=placement.Placement)

    def ask(self, **params: str) -> oaipmh.Page:
        return oaipmh.parse(self.remote.oai(params))

    def run(self, *, from_: str = "", full: bool = False) -> Outcome:
        state, _made = HarvestSource.objects.get_or_create(base_url=self.remote.base,
                                                           set_spec=self.set_spec)
        # A repository that keeps days only refuses a datestamp with a time (badArgument).
        # Identify is a verb every repository answers; one that does not is taken to keep
        # seconds, as OAI-PMH 2.0 allows.
        try:
            days_only = oaipmh.identify(self.ask(verb="Identify"))["granularity"] == (
                "YYYY-MM-DD")
        except (oaipmh.OaiError, RemoteError):
            days_only = False
        formats = oaipmh.metadata_prefixes(self.ask(verb="ListMetadataFormats"))
        if "oai_dc" not in formats and "dim" not in formats:
            raise RemoteError(_("%(base)s offers no oai_dc") % {"base": self.remote.base})
        self.prefix = "dim" if "dim" in formats else "oai_dc"
        self.outcome.file_format = next((f for f in FILE_FORMATS if f in formats), "")
        params: dict[str, str]
        if state.resumption_token and not from_ and not full:
            self.outcome.resumed = True
            params = {"verb": "ListRecords", "resumptionToken": state.resumption_token}
        else:
            start = from_ or ("" if full else state.last_datestamp)
            start = start[:10] if days_only else start
            state.run_from, state.run_newest, state.resumption_token = start, "", ""
            state.save(update_fields=["run_from", "run_newest", "resumption_token"])
            params = self._first(start)
        seen = {params.get("resumptionToken")}
        while True:
            if self.outcome.pages and self.page_delay:
                self.remote.sleep(self.page_delay)
            try:
                page = self.ask(**params)
            except oaipmh.OaiError as exc:
                if exc.code == "noRecordsMatch":
                    page = oaipmh.Page()
                elif exc.code == "badResumptionToken" and "resumptionToken" in params:
                    # Expired while we were down: the same run again from its start.
                    params = self._first(state.run_from)
                    self.outcome.resumed = False
                    seen = {None}
                    continue
                else:
                    return self._page_failed(params, exc)
            except RemoteError as exc:
                return self._page_failed(params, exc)
            self._prefetch(page)
            for header, metadata in page.records:
                self._record(header, metadata)
                if header.datestamp > state.run_newest:
                    state.run_newest = header.datestamp
            self.outcome.pages += 1
            self.progress(len(page.records), page.size)
            state.resumption_token = page.token
            if not page.token:
                state.last_datestamp = max(state.last_datestamp, state.run_newest)
                state.run_from = state.run_newest = ""
                state.harvested_at = timezone.now()
                state.save()
                self.outcome.completed = True
                self.outcome.last_datestamp = state.last_datestamp
                return self.outcome
            if page.token in seen:
                # A list that never ends: its records are done, its loop is not resumed.
                state.resumption_token = ""
                state.save(update_fields=["resumption_token", "run_newest"])
                return self._page_failed(params, RemoteError(_(
                    "the source gave the resumptionToken %(token)s a second time: a list "
                    "that never ends; the run stops") % {"token": page.token}))
            seen.add(page.token)
            state.save(update_fields=["resumption_token", "run_newest"])
            if self.outcome.pages >= self.max_pages:
                self.outcome.capped = True  # the next run resumes at the token kept
                return self.outcome
            params = {"verb": "ListRecords", "resumptionToken": page.token}

    def _prefetch(self, page: oaipmh.Page) -> None:
        """A page's records read, and the items already holding their identifiers found, in
        one query for the whole page."""
        self.mapped: dict[str, crosswalk.Mapped] = {}
        keys = []
        for header, metadata in page.records:
            keys.append((Scheme.OAI, header.identifier))
            if metadata is not None:
                try:
                    mapped = self._map(metadata)
                except Exception:  # noqa: BLE001 (read again, and reported, by _record)
                    continue
                self.mapped[header.identifier] = mapped
                keys += [(Scheme.HANDLE, h) for h in mapped.handles]
                keys += [(Scheme.DSPACE_ITEM, u) for u in mapped.uuids]
        self.known = services.holders(keys)

    def _holder(self, ids: list[services.Alternate]) -> Item | None:
        found = {self.known[(s, v)] for s, v, _f in ids if (s, v) in self.known}
        if len(found) > 1:
            raise deposit.Conflict(_("these identifiers belong to different items here: "
                                     "%(ids)s") % {"ids": ", ".join(f"{s}:{v}"
                                                                    for s, v, _f in ids)})
        return Item.objects.get(pk=found.pop()) if found else None

    def _map(self, metadata) -> crosswalk.Mapped:
        """A record's metadata as an item: dim as DSpace's own fields, else oai_dc."""
        if self.prefix == "dim":
            return crosswalk.to_item([saf.MetadataValue(*row) for row in dim.read_dim(metadata)])
        return mapped_record(oaipmh.dc_values(metadata))

    def _registered(self, mapped: crosswalk.Mapped) -> None:
        """ServiceError naming the first field of the record the registry does not have."""
        if self.registry is None:
            self.registry = set(registry.fields_by_name())
        for name, _value, _element in mapped.fields:
            if name not in self.registry:
                raise deposit.ServiceError(_("%(field)s is not a field of the metadata "
                                             "registry") % {"field": name})

    def _first(self, start: str) -> dict[str, str]:
        params = {"verb": "ListRecords", "metadataPrefix": self.prefix}
        if self.set_spec:
            params["set"] = self.set_spec
        if start:
            params["from"] = start
        return params

    def _page_failed(self, params: dict[str, str], exc: Exception) -> Outcome:
        url = self.remote.request_url(params)
        self.report.add(FAILED, url, line=url, reason=str(exc))
        return self.outcome

    def _record(self, header: oaipmh.Header, metadata) -> None:
        source = header.identifier
        try:
            status, item, mapped = self._upsert(header, metadata)
        except Exception as exc:  # one bad record must not stop a harvest
            expected = (deposit.ServiceError, RemoteError, oaipmh.OaiError, OSError,
                        saf.SafError)
            self.report.add(FAILED, source, line=f"{source} {header.datestamp}",
                            identifier=source, reason=str(exc) if isinstance(exc, expected)
                            else f"{type(exc).__name__}: {exc}")
            return
        self.report.add(status, source, identifier=source, ibi=item.ibi if item else "",
                        reason="; ".join(mapped.notes) if mapped else "",
                        not_kept=mapped.not_kept if mapped else None)

    def _upsert(self, header: oaipmh.Header, metadata):
        oai_id = (Scheme.OAI, header.identifier, "")
        if header.deleted:
            existing = self._holder([oai_id])
            if existing is None or existing.is_deleted:
                return SKIPPED, existing, None
            services.tombstone(existing, _("deleted at %(base)s on %(datestamp)s") % {
                "base": self.remote.base, "datestamp": header.datestamp})
            return DELETED, existing, None
        mapped = self.mapped.get(header.identifier) or self._map(metadata)
        if not mapped.title:
            raise deposit.ServiceError(_("the record has no dc:title"))
        self._registered(mapped)
        placed = self.placing.place(placement.collection_sets(header.sets))
        level, _restricted = access.of(mapped)
        ids = [oai_id, *((Scheme.HANDLE, h, "") for h in mapped.handles),
               *((Scheme.DSPACE_ITEM, u, "") for u in mapped.uuids)]
        status, existing, restored = self._carried(header, mapped, ids, self._holder(ids),
                                                   placed)
        if status is not None:
            return status, existing, mapped
        found_by = list(ids)
        files = self._files(header.identifier)
        names = [storage.safe_name(f.name) for f in files]
        if len(set(names)) != len(names):
            raise deposit.ServiceError(_("two files would be named alike: %(names)s")
                                       % {"names": ", ".join(names)})
        for remote_file, name in zip(files, names, strict=True):
            ids += file_ids(remote_file, name)
        held = dict(existing.files.values_list("name", "size")) if existing else {}
        for remote_file, name in zip(files, names, strict=True):
            if name in held and remote_file.size is not None and held[name] != remote_file.size:
                raise deposit.Conflict(_("%(name)s changed at the source: a file here never "
                                         "changes") % {"name": name})
        wanted = [(f, n) for f, n in zip(files, names, strict=True) if n not in held]
        if existing is not None and not wanted and services.same(
                existing, title=mapped.title, language=mapped.language,
                dc=crosswalk.stored(mapped),
                files={n: s for n, s in existing.files.values_list("name", "sha256")},
                placed=placed) and services.same_access(existing, level, ()):
            with transaction.atomic():
                services.add_ids(existing, ids)
            return SKIPPED, existing, mapped
        if existing is not None and not self.same_repository:
            services.refuse_unless_the_same(existing, found_by)
        with ExitStack() as stack:
            uploads = []
            for remote_file, name in wanted:
                temp = stack.enter_context(self.remote.download(remote_file))
                uploads.append(deposit.Upload(name=name, file=temp,
                                              content_type=remote_file.content_type))
            if existing is None:
                item = services.deposit(title=mapped.title, language=mapped.language,
                                        dc=crosswalk.stored(mapped), uploads=uploads,
                                        target_file=names[0] if names else "", ids=ids,
                                        access=level, restored_date=restored,
                                        provenance=self.provenance,
                                        collection=placed[0] if placed else
                                        self.placing.default,
                                        mapped=placed[1] if placed else ())
                self.known.update({(s, v): item.pk for s, v, _f in ids})
                return IMPORTED, item, mapped
            item = services.update(existing, title=mapped.title, language=mapped.language,
                                   dc=crosswalk.stored(mapped), uploads=uploads, ids=ids,
                                   access=level, placed=placed)
            return UPDATED, item, mapped

    def _carried(self, header: oaipmh.Header, mapped: crosswalk.Mapped,
                 ids: list[services.Alternate], existing: Item | None,
                 placed: services.Placed | None = None
                 ) -> tuple[str | None, Item | None, Decimal | None]:
        """(status, item, None) of a record that carries its IBI (ibis.py): kept as a Copy or
        a migrated Original, or a Copy held here refreshed from its Original's Archive, and
        put where its sets say (`placed`; a new one without sets into --collection). Else
        (None, the item held here by its identifiers or its IBI, or None, the date of the IBI
        this Archive minted for it, to deposit it under, or None)."""
        carried, others = ibis.carried(mapped.dc.get("identifier", []), header.identifier)
        if not carried:
            return None, existing, None
        if "identifier" in mapped.dc:
            mapped.dc["identifier"] = others  # its own persistent URL is its IBI
        held = ibis.holder(carried)
        if existing is not None and (held is None or held.pk != existing.pk):
            raise deposit.Conflict(_("the record carries the IBI %(carried)s, but its "
                                     "identifiers name %(other)s here") % {
                "carried": carried[0], "other": existing.ibi})
        if held is not None and held.state != Item.State.COPY:
            return None, held, None
        if held is None and (date := ibis.minted_here(carried)) is not None:
            return None, None, date
        if held is None:
            item, status = ibis.keep(carried, self.keeping).item, IMPORTED
        else:
            item, status = held, UPDATED if ibis.refresh(held) else SKIPPED
        services.add_ids(item, ids)
        if placed is None and status == IMPORTED and self.placing.default is not None:
            placed = (self.placing.default, ())  # a new item without sets: --collection
        if not item.is_deleted and not services.in_collections(item, placed):
            services.place(item, placed)
            status = UPDATED if status == SKIPPED else status
        self.known.update({(s, v): item.pk for s, v, _f in ids})
        return status, item, None

    def _files(self, identifier: str) -> list[oaipmh.RemoteFile]:
        fmt = self.outcome.file_format
        if not fmt:
            return []
        page = self.ask(verb="GetRecord", identifier=identifier, metadataPrefix=fmt)
        if not page.records or page.records[0][1] is None:
            return []
        content = page.records[0][1]
        return oaipmh.ore_files(content) if fmt == "ore" else oaipmh.mets_files(content)


def harvest(base: str, *, report: Report, set_spec: str = "", from_: str = "",
            full: bool = False, files_from=(), delay: float = 0.0, timeout: float = 60.0,
            sleep=None, progress=None, same_repository: bool = False,
            keeping: ibis.Keeping | None = None, max_pages: int | None = None,
            page_delay: float | None = None, provenance: str = "new",
            placed_by: placement.Placement | None = None) -> Outcome:
    """One run against the OAI-PMH repository at `base` (see the module's docstring), of at
    most `max_pages` pages (IBI_HARVEST_MAX_PAGES), `page_delay` seconds apart
    (IBI_HARVEST_PAGE_DELAY)."""
    kwargs = {"sleep": sleep} if sleep is not None else {}
    remote = Remote(base, files_from, timeout=timeout, delay=delay, **kwargs)
    try:
        harvester = Harvester(
            remote, report, set_spec=set_spec, same_repository=same_repository,
            provenance=provenance, placing=placed_by or placement.Placement(),
            keeping=keeping or ibis.Keeping(),
            max_pages=settings.IBI_HARVEST_MAX_PAGES if max_pages is None else max_pages,
            page_delay=settings.IBI_HARVEST_PAGE_DELAY if page_delay is None else page_delay)
        if progress is not None:
            harvester.progress = progress
        return harvester.run(from_=from_, full=full)
    finally:
        remote.close()
