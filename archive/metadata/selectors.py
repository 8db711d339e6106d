"""The Record of a stored item (`record_of`: use deposit.selectors.with_details to fetch items
in bulk), or of many items in a fixed number of queries (`dc_values_of`, `records_of`)."""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

from django.conf import settings
from django.db.models import Q

from ..access import policy
from ..db import changes
from ..db.among import among
from ..deposit import links, selectors
from ..models import ORCID_FORM, AlternateIdentifier, DcValue, Item, ItemFile
from . import citing
from .formats import FORMATS
from .kinds import kind_of
from .record import Creator, FileRef, Record
from .signposting import Link, Signposts

# element → [(value, ORCID iD)] of one item, in the order of the deposit; and each value
# again under its field's name (dc.relation.ispartof: always with a dot, never an element's)
# with its authority, [(value, authority)], for what only a qualified field says (citing.py).
Values = Mapping[str, Sequence[tuple[str, str]]]
# (name, size, content type, SHA-256, restricted) of one file.
FileRow = tuple[str, int, str, str, bool]


def _neighbour(item: Item | None, base: str | None) -> str:
    return links.persistent_url(item.ibi, base) if item is not None else ""


def record_of(item: Item, base: str | None = None) -> Record:
    """Everything the formats say of an item. A tombstone keeps its identifiers, title, dates
    and the reason of deletion only: its creators, description and files are not given out."""
    try:
        next_edition = item.next_edition
    except Item.DoesNotExist:
        next_edition = None
    values: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for value in item.dc_values.all():
        values[value.element].append((value.value, value.orcid))
        values[value.field.name].append((value.value, value.authority))
    files = [(f.name, f.size, f.content_type, f.sha256, f.restricted) for f in item.files.all()]
    neighbours = (_neighbour(item.previous_edition, base), _neighbour(next_edition, base),
                  _neighbour(item.translation_of, base))
    handles = tuple(row.value for row in item.alternate_ids.all()
                    if row.scheme == AlternateIdentifier.Scheme.HANDLE)
    return _record(item, values, files, neighbours, base, handles)


def handles_of(item_ids: Sequence[int]) -> dict[int, list[str]]:
    """item id → the Handles it had before it came here, of many items in one query."""
    found: dict[int, list[str]] = defaultdict(list)
    for item_id, value in (AlternateIdentifier.objects
                           .filter(item_id__in=item_ids, scheme=AlternateIdentifier.Scheme.HANDLE)
                           .order_by("id").values_list("item_id", "value")):
        found[item_id].append(value)
    return found


def _record(item: Item, values: Values, files: Sequence[FileRow],
            neighbours: tuple[str, str, str], base: str | None,
            handles: Sequence[str] = ()) -> Record:
    """The Record of an item from what was read of it (record_of: one item, records_of: many).
    Public whoever reads it: only the files open to all (access/policy.py `is_open`)."""
    def dc(element: str) -> tuple[str, ...]:
        return tuple(value for value, _ in values.get(element, ()))

    dates = dc("date")
    qualified = {name: dc(name) for name in values if "." in name}
    # A creator's Lattes id (TEDE keeps it as dc.creator's authority), by name.
    lattes = {value: person.lattes for name in citing.CREATOR_FIELDS
              for value, authority in values.get(name, ())
              if (person := citing.person(value, authority)).lattes}
    cited = {**citing.fields(qualified, dc("type")),
             **citing.thesis({name: values[name] for name in qualified})
             } if not item.is_deleted else {}
    previous_edition, next_edition, translation_of = neighbours
    common = dict(
        ibi=item.ibi, ibip=item.ibip, title=item.title,
        persistent_url=links.persistent_url(item.ibi, base),
        landing_url=links.landing_url(item.ibi, base),
        # No dc.publisher: the repository's configured name for what it publishes itself,
        # never for what another body published (an article), never a host name (issue 43).
        publisher=citing.publisher(qualified, dc("publisher")) or (
            "" if citing.published_elsewhere(dc("type")) else settings.IBI_REPOSITORY_NAME),
        date=dates[0] if dates else (item.created.date().isoformat() if item.created else ""),
        language=item.language, created=item.created, updated=item.updated, state=item.state,
        deleted_at=item.deleted_at, deletion_reason=item.deletion_reason,
        edition_number=item.edition_number, previous_edition=previous_edition,
        next_edition=next_edition, translation_of=translation_of, handles=tuple(handles),
        access_rights=item.access_rights,
        embargo_until=item.embargo_until)
    if item.is_deleted:
        return Record(**common)
    return Record(
        **common,
        creators=tuple(Creator(value, orcid, lattes.get(value, ""))
                       for value, orcid in values.get("creator", ())),
        contributors=dc("contributor"), subjects=dc("subject"), descriptions=dc("description"),
        types=dc("type"), rights=dc("rights"), identifiers=dc("identifier"),
        relations=dc("relation"), formats=dc("format"), **cited,
        some_closed=any(not policy.is_open(item.access_rights, file[4]) for file in files),
        files=tuple(FileRef(name=name, url=links.file_url(item.ibi, name, base), size=size,
                            content_type=content_type, sha256=sha256)
                    for name, size, content_type, sha256, restricted in files
                    if policy.is_open(item.access_rights, restricted)))


def dc_values_of(item_ids: Sequence[int], elements: Sequence[str] | None = None
                 ) -> dict[int, dict[str, list[tuple[str, str]]]]:
    """item id → element → [(value, ORCID iD)] in the deposit's order, and field name →
    [(value, authority)], of many items at once (one query; `elements` restricts it to some
    elements)."""
    rows = DcValue.objects.filter(among(DcValue, "item_id", item_ids))
    if elements is not None:
        rows = rows.filter(element__in=elements)
    found: dict[int, dict[str, list[tuple[str, str]]]] = {}
    for item_id, element, value, authority, schema, field, qualifier in (
            rows.order_by("position", "id")
            .values_list("item_id", "element", "value", "authority", "field__schema__name",
                         "field__element", "field__qualifier")):
        orcid = authority if ORCID_FORM.fullmatch(authority) else ""
        values = found.setdefault(item_id, {})
        values.setdefault(element, []).append((value, orcid))
        name = ".".join(part for part in (schema, field, qualifier) if part)
        values.setdefault(name, []).append((value, authority))
    return found


def records_of(items: Sequence[Item], values: Mapping[int, Values],
               base: str | None = None) -> dict[int, Record]:
    """item id → Record of many items (`values`: their dc_values_of) in three more queries,
    whatever their number: their files, the IBIs of their editions and originals, and their
    Handles. The
    items need only the fields Record names (see harvest/selectors.py PAGE_FIELDS)."""
    ids = [item.pk for item in items]
    files: dict[int, list[FileRow]] = defaultdict(list)
    for item_id, *row in (ItemFile.objects.filter(item_id__in=ids).order_by("name")
                          .values_list("item_id", "name", "size", "content_type", "sha256",
                                       "restricted")):
        files[item_id].append(tuple(row))
    wanted = {i.previous_edition_id for i in items} | {i.translation_of_id for i in items}
    wanted.discard(None)
    ibis: dict[int, str] = {}
    next_ibi: dict[int, str] = {}
    if ids:
        for pk, ibi, previous in (Item.objects.filter(Q(pk__in=wanted)
                                                      | Q(previous_edition_id__in=ids))
                                  .values_list("pk", "ibi", "previous_edition_id")):
            ibis[pk] = ibi
            if previous is not None:
                next_ibi[previous] = ibi

    def url(ibi: str | None) -> str:
        return links.persistent_url(ibi, base) if ibi else ""

    handles = handles_of(ids) if ids else {}
    return {item.pk: _record(item, values.get(item.pk, {}), files.get(item.pk, ()), (
        url(ibis.get(item.previous_edition_id)), url(next_ibi.get(item.pk)),
        url(ibis.get(item.translation_of_id))), base, handles.get(item.pk, ()))
        for item in items}


def editions_of(items: Sequence[Item], base: str | None = None) -> dict[int, Record]:
    """item id → a bare Record of many items (one query, whatever their number): identifiers,
    title and previous edition, no more: what a format written from the qualified values
    (dim) needs of a Record. The items need only harvest/selectors.py PAGE_FIELDS."""
    wanted = {item.previous_edition_id for item in items} - {None}
    ibis = dict(Item.objects.filter(pk__in=wanted).values_list("pk", "ibi")) if wanted else {}
    return {item.pk: Record(
        ibi=item.ibi, ibip=item.ibip, title=item.title,
        persistent_url=links.persistent_url(item.ibi, base),
        previous_edition=(links.persistent_url(ibis[item.previous_edition_id], base)
                          if item.previous_edition_id in ibis else ""))
        for item in items}


def signposts_of(item: Item, base: str | None = None) -> Signposts:
    """Where the item's resources are, for its Signposting links (signposting.py): every
    metadata format at deposit/links.py `metadata_url`, the linkset beside the landing page."""
    record = record_of(item, base)
    return Signposts(
        record,
        described=tuple((links.metadata_url(item.ibi, base, fmt.name), fmt)
                        for fmt in FORMATS.values()),
        schema_type=schema_type(record),
        linkset_json=links.linkset_url(item.ibi, base, json=True),
        linkset_text=links.linkset_url(item.ibi, base))


def schema_type(record: Record) -> str:
    """The schema.org class of the item, as its JSON-LD says (kinds.py, from dc:type)."""
    return kind_of(record.types).schemaorg


def persistent_url_links(ibi_text: str, base: str | None = None,
                         filepath: str = "") -> list[Link]:
    """The Signposting links of a persistent URL of an item held here: the item's (its files
    within the header's limit), or with a file path that file's when it is open to all (a
    closed one's persistent URL leads to the landing page, and says what the page says); []
    for no such item."""
    item = selectors.item_by_ibi(ibi_text, selectors.with_details(selectors.public_items()))
    if item is None:
        return []
    signposts = signposts_of(item, base)
    if filepath and not item.is_deleted and any(
            f.name == filepath for f in signposts.record.files):
        return signposts.file(filepath, of_item=True)
    return signposts.landing(about_page=False, header=True)


# The Signposts of the items whose files were last served, per process, until an item changes
# (db/changes.py): a download reads no metadata to say where its item's signposts are.
_file_signposts = changes.Store(1000)


def file_answer_links(item: Item, name: str, base: str | None = None) -> list[Link]:
    """The Link header's links of a file's own answer (/col/<rep>/doc/<file>): the file's and
    its item's (signposting.py `file`)."""
    current = changes.token()
    signposts = _file_signposts.get((item.pk, base), current)
    if signposts is None:
        signposts = signposts_of(selectors.with_details(Item.objects.filter(pk=item.pk))[0],
                                 base)
        _file_signposts.put((item.pk, base), current, signposts)
    return signposts.file(name, of_item=True)
