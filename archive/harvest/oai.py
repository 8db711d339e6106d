"""OAI-PMH 2.0 data provider at /oai: the public items, deleted ones included, in six formats.

Formats (`FORMATS`): `oai_dc` (simple Dublin Core: qualifiers dropped as DCMI says, so
dc.contributor.advisor is a dc:contributor and dc.contributor.author a dc:creator); `dim`,
DSpace Intermediate Metadata, every value under its field of the registry with its language,
authority and confidence (metadata/dim.py), as DSpace serves it to BDTD and Oasisbr, with
the access right as they read it in dc.rights (closed for an item with no file open to all);
`mtd3-br` and `mtd2-br`, IBICT's MTD-BR 3 and 2 (metadata/mtd3br.py, mtd2br.py), the thesis
formats BDTD harvests from TEDE and DSpace;
`oai_datacite`, the DataCite kernel 4 `<resource>` itself as
the metadata (namespace http://datacite.org/schema/kernel-4, as OpenAIRE and many repositories
harvest it: the schema of DataCite's OAI envelope, oai-1.1, is not one we validate against);
`oai_openaire`, the OpenAIRE Guidelines for Literature Repositories v4.
Sets (`sets.py`): `type:<kind>`, `language:<tag>`, their parents `type` and `language`,
`openaire`, and DSpace's `com_<slug>` and `col_<slug>` of the communities and collections;
every header carries its item's setSpecs (its owning collection's `col_` before those it is
mapped into, which is how a harvester tells them apart). A malformed or unknown set is a
badArgument, a known one with no item a noRecordsMatch.

Identifiers are `oai:<archive address>:<IBI repository name>`; datestamps are the items' last
change (`Item.updated`) at second granularity; deleted items stay as `status="deleted"` headers
(deletedRecord = persistent), in their sets.

Harvest-grade lists: pages of IBI_OAI_PAGE_SIZE records, each read by keyset (the items after
the last (datestamp, id) served: no OFFSET, the same cost at any depth) and built from a fixed
number of queries whatever the page size (the items' own columns, their Dublin Core values,
and for oai_datacite and oai_openaire their files and editions). The qualified formats (`dim`,
`mtd3-br`, `mtd2-br`) read only what they say beyond the values (`Page`: the files' restricted
flags and media types, the previous editions' IBIs, the Handles; no Record) and write their
records as text (metadata/xmltext.py) put into the answer's bytes (`_response`): a page of a
thousand theses, some 30 000 values, is no tree of lxml elements (issue 34: ≥ 3 000 records/s;
bench/oai_theses.py). Resumption tokens are signed
cursors (the verb, the format, from/until, the set, the last datestamp and id served, the
count served, the list's size): no server-side state, so they outlive restarts and work on any
worker; a garbled or forged one is a badResumptionToken. An item changed during a harvest gets
a later datestamp and comes again at the end of the list; the others come exactly once.
completeListSize is counted once, on the first page, up to COUNT_CAP items (then left out),
and carried by the tokens. Every bad request gets the OAI error code the protocol names (HTTP
200), never a 500.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.core import signing
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, QueryDict
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods
from lxml import etree

from ..communities import selectors as tree
from ..deposit import links, selectors
from ..identifiers import ibi as ibilib
from ..metadata import datacite, dim, mtd2br, mtd3br, mtdbr, oai_dc, openaire, vocabularies
from ..metadata.record import Record
from ..metadata.selectors import (
    Values,
    dc_values_of,
    files_of,
    handles_of,
    ibis_of,
    records_of,
    rows_and_elements_of,
    thesis_record,
)
from ..metadata.xmltext import escape, utf8
from ..models import Item
from ..web.addresses import base_url
from . import selectors as harvest
from . import sets

NS_OAI = "http://www.openarchives.org/OAI/2.0/"
NS_XSI = "http://www.w3.org/2001/XMLSchema-instance"
NS_ID = "http://www.openarchives.org/OAI/2.0/oai-identifier"
SCHEMA_OAI = "http://www.openarchives.org/OAI/2.0/OAI-PMH.xsd"
SCHEMA_ID = "http://www.openarchives.org/OAI/2.0/oai-identifier.xsd"
GRANULARITY = "YYYY-MM-DDThh:mm:ssZ"
SECONDS = "%Y-%m-%dT%H:%M:%SZ"
TOKEN_SALT = "archive.oai.resumption"
# The oai-identifier schema's repositoryIdentifier: a domain name (no port, no IP address).
DOMAIN = re.compile(r"[a-zA-Z][a-zA-Z0-9\-]*(\.[a-zA-Z][a-zA-Z0-9\-]*)+")

# verb → (required arguments, optional arguments); the list verbs also take resumptionToken.
VERBS = {
    "Identify": (set(), set()),
    "ListMetadataFormats": (set(), {"identifier"}),
    "ListSets": (set(), set()),
    "GetRecord": ({"identifier", "metadataPrefix"}, set()),
    "ListIdentifiers": ({"metadataPrefix"}, {"from", "until", "set"}),
    "ListRecords": ({"metadataPrefix"}, {"from", "until", "set"}),
}
RESUMABLE = {"ListSets", "ListIdentifiers", "ListRecords"}
PREFIX_SYNTAX = re.compile(r"[A-Za-z0-9\-_\.!~\*'\(\)]+")  # OAI-PMH.xsd's metadataPrefixType
# completeListSize is given when the list holds at most this many items: counting them is a
# short index scan, done once per list (the first page), never a COUNT of the whole table.
COUNT_CAP = 100_000
# Where a page's records written as text go (`_entries`, `_response`): a comment, which no
# value can forge (text and attributes escape "<").
RECORDS = " records "
_RECORDS_MARK = f"<!--{RECORDS}-->".encode()


def _dc_metadata(item: Item, values: Values, record: Record | None,
                 request: HttpRequest, handles: Sequence[str]) -> etree._Element:
    dc = {element: [value for value, _orcid in pairs] for element, pairs in values.items()}
    return oai_dc.dc_element(oai_dc.values_of(
        item.title, item.language, item.created, dc,
        identifiers=[links.persistent_url(item.ibi, base_url(request)),
                     *map(oai_dc.handle_url, handles)],
        access=(item.access_rights, item.embargo_until)))


@dataclass(frozen=True)
class Page:
    """What a page in a qualified format read of its items (a fixed number of queries): their
    values as the registry holds them (`rows`, by field and position) and the dc:type, dc:date
    and dc:identifier elements (`elements`), their files, the IBIs of their previous editions,
    their Handles; and where they are (`base`, and `persistent`, the persistent URLs' prefix,
    computed once)."""

    base: str
    persistent: str
    rows: dict[int, list]
    elements: dict[int, dict[str, list[str]]]
    files: dict[int, list]
    previous: dict[int, str]
    handles: dict[int, list[str]]

    def record(self, item: Item, *, landing: bool = False) -> Record:
        return thesis_record(item, self.elements.get(item.pk, {}), self.rows.get(item.pk, ()),
                             self.files.get(item.pk, ()), self.base, landing=landing)


def _dim_text(item: Item, page: Page) -> str:
    # The access right as BDTD and Oasisbr read dc.rights: said for every item, and closed
    # for one with no file open to all (mtdbr.level_of), whatever level it was given.
    level = mtdbr.level_of(item.access_rights,
                           [file[4] for file in page.files.get(item.pk, ())])
    previous = page.previous.get(item.previous_edition_id)
    fields = dim.dspace_fields(
        item.title, item.language, page.rows.get(item.pk, ()),
        identifier_uris=[page.persistent + item.ibi,
                         *(dim.HANDLE_PROXY + h for h in page.handles.get(item.pk, ()))],
        newer_than=[page.persistent + previous] if previous else [],
        level=level, embargo=item.embargo_until)
    if level == mtdbr.OPEN:
        fields["dc"].append(("rights", "", "", mtdbr.right_of(level), "", -1))
    return dim.dim_text(fields)


def _mtd3br_text(item: Item, page: Page) -> str:
    return mtd3br.mtd3br_text(mtdbr.read(page.rows.get(item.pk, ()), page.record(item),
                                         institution=settings.IBI_REPOSITORY_NAME))


def _mtd2br_text(item: Item, page: Page) -> str:
    name = settings.IBI_REPOSITORY_NAME or \
        f"IBI repository at {links.archive_address(page.base)}"
    return etree.tostring(mtd2br.mtd2br_element(
        mtdbr.read(page.rows.get(item.pk, ()), page.record(item, landing=True),
                   institution=settings.IBI_REPOSITORY_NAME),
        updated=datestamp(item.updated), repository=(name, page.base)), encoding=str)


@dataclass(frozen=True)
class MetadataFormat:
    schema: str
    namespace: str
    # (item read with harvest.PAGE_FIELDS, its Dublin Core, its Record when `from_record`,
    # the request, its Handles)
    metadata: Callable[..., etree._Element] | None = None
    from_record: bool = True  # read files and editions too (records_of)
    # Or, for the qualified formats, the record's text from what its page read (`Page`):
    # no Record, no element a value (a page writes some 30 000 values).
    text: Callable[[Item, Page], str] | None = None


FORMATS = {
    "oai_dc": MetadataFormat(oai_dc.SCHEMA, oai_dc.NS_OAI_DC, _dc_metadata, from_record=False),
    "dim": MetadataFormat(dim.SCHEMA, dim.NS, text=_dim_text),
    "mtd2-br": MetadataFormat(mtd2br.SCHEMA, mtd2br.NS, text=_mtd2br_text),
    "mtd3-br": MetadataFormat(mtd3br.SCHEMA, mtd3br.NS, text=_mtd3br_text),
    "oai_datacite": MetadataFormat(
        datacite.SCHEMA, datacite.NS,
        lambda item, values, record, request, handles: datacite.resource(record)),
    "oai_openaire": MetadataFormat(
        openaire.SCHEMA, openaire.NS,
        lambda item, values, record, request, handles: openaire.resource(record)),
}


class OaiError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


def _q(tag: str) -> str:
    return f"{{{NS_OAI}}}{tag}"


def _sub(parent: etree._Element, tag: str, text: str | None = None, **attrs) -> etree._Element:
    element = etree.SubElement(parent, _q(tag), attrs)
    if text is not None:
        element.text = oai_dc.xml_text(text)
    return element


def datestamp(when: datetime) -> str:
    return when.astimezone(UTC).strftime(SECONDS)


# -- Arguments ---------------------------------------------------------------------------------

def _arguments(query: QueryDict) -> tuple[str, dict[str, str]]:
    """The verb and its arguments, checked against the protocol (badVerb / badArgument)."""
    verbs = query.getlist("verb")
    if len(verbs) != 1 or verbs[0] not in VERBS:
        raise OaiError("badVerb", "verb is missing, repeated or not an OAI-PMH verb")
    verb = verbs[0]
    args = {}
    for key in query:
        if key == "verb":
            continue
        values = query.getlist(key)
        if len(values) != 1:
            raise OaiError("badArgument", f"{key} is repeated")
        if not values[0]:
            raise OaiError("badArgument", f"{key} is empty")
        args[key] = values[0]
    required, optional = VERBS[verb]
    if "resumptionToken" in args and verb in RESUMABLE:
        if len(args) > 1:
            raise OaiError("badArgument", "resumptionToken is an exclusive argument")
        return verb, args
    unknown = set(args) - required - optional
    if unknown:
        raise OaiError("badArgument", f"{verb} does not take {', '.join(sorted(unknown))}")
    missing = required - set(args)
    if missing:
        raise OaiError("badArgument", f"{verb} needs {', '.join(sorted(missing))}")
    return verb, args


def _parse_date(text: str) -> tuple[datetime, datetime | None, str]:
    """(start, end of the same granule or None past year 9999, granularity) of an OAI date."""
    try:  # the regular expressions keep fromisoformat from accepting other ISO 8601 forms
        if re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", text):
            start = datetime.fromisoformat(f"{text}T00:00:00+00:00")
            step, kind = timedelta(days=1), "day"
        elif re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z", text):
            start, step, kind = datetime.fromisoformat(text), timedelta(seconds=1), "second"
        else:
            raise ValueError(text)
    except ValueError:
        raise OaiError("badArgument", f"{text!r} is not YYYY-MM-DD or {GRANULARITY}") from None
    try:
        end = start + step
    except OverflowError:
        end = None
    return start, end, kind


def _window(args: dict[str, str]) -> tuple[datetime | None, datetime | None]:
    """from/until (inclusive, at their granularity) as start <= updated < end."""
    start = end = None
    kinds = set()
    if "from" in args:
        start, _, kind = _parse_date(args["from"])
        kinds.add(kind)
    if "until" in args:
        until, end, kind = _parse_date(args["until"])
        kinds.add(kind)
        if start is not None and start > until:
            raise OaiError("badArgument", "from is later than until")
    if len(kinds) > 1:
        raise OaiError("badArgument", "from and until have different granularities")
    return start, end


def _check_prefix(prefix: str) -> None:
    if not PREFIX_SYNTAX.fullmatch(prefix):
        raise OaiError("badArgument", _("metadataPrefix is not a metadata prefix"))
    if prefix not in FORMATS:
        raise OaiError("cannotDisseminateFormat",
                       _("the formats disseminated are %(formats)s")
                       % {"formats": ", ".join(FORMATS)})


def _check_set(spec: str) -> sets.OaiSet:
    if not sets.valid(spec):
        raise OaiError("badArgument", _("set is not a setSpec"))
    found = sets.parse(spec)
    if found is not None and found.family in (sets.COLLECTION, sets.COMMUNITY) \
            and not harvest.tree_set_exists(found):
        found = None
    if found is None:
        raise OaiError("badArgument", _("%(set)s is not a set of this repository (ListSets "
                                        "lists them)") % {"set": spec})
    return found


# -- Resumption tokens -------------------------------------------------------------------------

def _iso(when: datetime | None) -> str | None:
    return when.isoformat() if when else None


def _from_iso(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


@dataclass
class Cursor:
    verb: str
    prefix: str
    start: datetime | None
    end: datetime | None
    set_spec: str | None = None
    after: tuple[datetime, int] | None = None  # the last (datestamp, id) served
    served: int = 0
    complete: int | None = None  # the list's size when it started (None: past COUNT_CAP)

    def dumps(self) -> str:
        return signing.dumps({
            "v": self.verb, "p": self.prefix, "s": _iso(self.start), "e": _iso(self.end),
            "t": self.set_spec,
            "a": [_iso(self.after[0]), self.after[1]] if self.after else None, "n": self.served,
            "c": self.complete,
        }, salt=TOKEN_SALT, compress=True)

    @classmethod
    def loads(cls, token: str, verb: str) -> Cursor:
        try:
            data = signing.loads(token, salt=TOKEN_SALT)
            if data["v"] != verb or data["p"] not in FORMATS:
                raise ValueError(verb)
            if data["t"] is not None and sets.parse(data["t"]) is None:
                raise ValueError(data["t"])
            after = (_from_iso(data["a"][0]), int(data["a"][1])) if data["a"] else None
            complete = int(data["c"]) if data["c"] is not None else None
            cursor = cls(verb, data["p"], _from_iso(data["s"]), _from_iso(data["e"]),
                         data["t"], after, int(data["n"]), complete)
            for when in (cursor.start, cursor.end, after and after[0]):
                if when is not None and when.utcoffset() is None:
                    raise ValueError(when)  # every datestamp we sign is aware
            return cursor
        except (signing.BadSignature, ValueError, KeyError, TypeError, IndexError):
            raise OaiError("badResumptionToken", "the resumption token is invalid") from None

    @property
    def oai_set(self) -> sets.OaiSet | None:
        return sets.parse(self.set_spec) if self.set_spec is not None else None


def _page(cursor: Cursor) -> tuple[list[Item], QuerySet[Item], bool]:
    """The items of the cursor's page, the whole list, and whether more follow."""
    window = harvest.oai_items(start=cursor.start, end=cursor.end, oai_set=cursor.oai_set)
    size = settings.IBI_OAI_PAGE_SIZE
    page = harvest.page(window, cursor.after, size + 1)
    return page[:size], window, len(page) > size


# -- Verbs -------------------------------------------------------------------------------------

def _item(request: HttpRequest, identifier: str) -> Item:
    prefix = f"oai:{links.archive_address(base_url(request))}:"
    item = None
    if identifier.startswith(prefix):
        item = selectors.item_by_ibi(identifier[len(prefix):], selectors.public_items())
    if item is None:
        raise OaiError("idDoesNotExist", f"{identifier!r} is not an item of this repository")
    return item


def _entries(parent, request: HttpRequest, items: list[Item], prefix: str | None
             ) -> str | None:
    """The headers (prefix None) or the records of items, read in a fixed number of queries
    whatever their number: their Dublin Core values (only dc:type, which names their sets, for
    headers), and for a format built from a Record their files and editions. The records of a
    format written as text (`MetadataFormat.text`) are returned, for `_response` to put where
    their marker is in `parent`."""
    metadata_format = FORMATS[prefix] if prefix else None
    namespace = f"oai:{links.archive_address(base_url(request))}:"
    in_tree = harvest.tree_specs_of(items)
    if metadata_format is not None and metadata_format.text is not None:
        parent.append(etree.Comment(RECORDS))
        return _text_entries(request, items, metadata_format.text, namespace, in_tree)
    ids = [item.pk for item in items]
    records, handles = {}, {}
    values = dc_values_of(ids, None if prefix else ("type",))
    if metadata_format is not None and metadata_format.from_record:
        records = records_of([i for i in items if not i.is_deleted], values,
                             base_url(request))
    if metadata_format is not None and not metadata_format.from_record:
        handles = handles_of(ids)
    for item in items:
        mine = values.get(item.pk, {})
        element = _sub(parent, "record") if prefix else parent
        header = _sub(element, "header", **({"status": "deleted"} if item.is_deleted else {}))
        _sub(header, "identifier", namespace + item.ibi)
        _sub(header, "datestamp", datestamp(item.updated))
        for spec in harvest.set_specs(item, vocabularies.kind(
                [value for value, _orcid in mine.get("type", ())]), in_tree.get(item.pk, [])):
            _sub(header, "setSpec", spec)
        if metadata_format is not None and not item.is_deleted:
            _sub(element, "metadata").append(
                metadata_format.metadata(item, mine, records.get(item.pk), request,
                                         handles.get(item.pk, ())))
    return None


def _text_entries(request: HttpRequest, items: list[Item], text: Callable[[Item, Page], str],
                  namespace: str, in_tree: dict[int, list[str]]) -> str:
    """The records of items in a qualified format, as text (a thousand records of ~30
    values: an lxml element each would cost more than the rest of the page)."""
    ids = [item.pk for item in items]
    live = [item.pk for item in items if not item.is_deleted]
    rows, elements = rows_and_elements_of(ids, ("type", "date", "identifier"))
    base = base_url(request)
    page = Page(base=base, persistent=links.persistent_url("", base), rows=rows,
                elements=elements, files=files_of(live) if live else {},
                previous=ibis_of(item.previous_edition_id for item in items),
                handles=handles_of(ids))
    out = []
    for item in items:
        deleted = item.is_deleted
        out.append('<record><header status="deleted">' if deleted else "<record><header>")
        out.append(f"<identifier>{escape(namespace + item.ibi)}</identifier>"
                   f"<datestamp>{datestamp(item.updated)}</datestamp>")
        for spec in harvest.set_specs(item, vocabularies.kind(
                elements.get(item.pk, {}).get("type", ())), in_tree.get(item.pk, [])):
            out.append(f"<setSpec>{escape(spec)}</setSpec>")
        out.append("</header>" if deleted else f"</header><metadata>{text(item, page)}"
                                                "</metadata>")
        out.append("</record>\n")
    return "".join(out)


def identify(request: HttpRequest, body, args) -> None:
    address = links.archive_address(base_url(request))
    earliest = harvest.oai_earliest_datestamp() or timezone.now()
    _sub(body, "repositoryName", f"IBI repository at {address}")
    _sub(body, "baseURL", base_url(request) + reverse("archive:oai"))
    _sub(body, "protocolVersion", "2.0")
    _sub(body, "adminEmail", settings.OAI_ADMIN_EMAIL or f"admin@{settings.IBI_HOSTNAME}")
    _sub(body, "earliestDatestamp", datestamp(earliest))
    _sub(body, "deletedRecord", "persistent")
    _sub(body, "granularity", GRANULARITY)
    if DOMAIN.fullmatch(address):  # the oai-identifier scheme only admits a domain name
        description = _sub(body, "description")
        ident = etree.SubElement(description, f"{{{NS_ID}}}oai-identifier", nsmap={None: NS_ID})
        ident.set(f"{{{NS_XSI}}}schemaLocation", f"{NS_ID} {SCHEMA_ID}")
        sample = ibilib.repository_name(settings.IBI_HOSTNAME, settings.IBI_PORT,
                                        datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC))
        for tag, text in (("scheme", "oai"), ("repositoryIdentifier", address),
                          ("delimiter", ":"), ("sampleIdentifier", f"oai:{address}:{sample}")):
            etree.SubElement(ident, f"{{{NS_ID}}}{tag}").text = text


def list_metadata_formats(request: HttpRequest, body, args) -> None:
    if "identifier" in args:  # every item, deleted ones too, is in every format
        _item(request, args["identifier"])
    for prefix, metadata_format in FORMATS.items():
        fmt = _sub(body, "metadataFormat")
        _sub(fmt, "metadataPrefix", prefix)
        _sub(fmt, "schema", metadata_format.schema)
        _sub(fmt, "metadataNamespace", metadata_format.namespace)


def _set(parent, spec: str, name: str, description: str = "", identifier: str = "") -> None:
    element = _sub(parent, "set")
    _sub(element, "setSpec", spec)
    _sub(element, "setName", name)
    if description or identifier:
        values = {"description": [description], "identifier": [identifier]}
        _sub(element, "setDescription").append(oai_dc.dc_element(values))


def list_sets(request: HttpRequest, body, args) -> None:
    """`openaire`, `type` and `language` always; the kinds and languages that have items."""
    if "resumptionToken" in args:
        raise OaiError("badResumptionToken", "the set list is given whole, never resumed")
    kinds, languages = harvest.present_sets(harvest.recognised_types())
    _set(body, sets.OPENAIRE, _("OpenAIRE"), _(
        "Literature this Archive holds as Original (tombstones included), for OpenAIRE to "
        "harvest in oai_openaire"))
    _set(body, sets.TYPE, _("By resource type"))
    for kind in kinds:
        _set(body, sets.type_spec(kind), _("Resource type: %(type)s") % {"type": kind.coar_label},
             identifier=kind.coar_uri)
    _set(body, sets.LANGUAGE, _("By language"))
    for tag in languages:
        _set(body, sets.language_spec(tag), _("Language: %(tag)s") % {"tag": tag})
    communities, collections = tree.every_set()
    for community in communities:
        _set(body, sets.community_spec(community.slug),
             _("Community: %(name)s") % {"name": community.name}, community.description)
    for collection in collections:
        _set(body, sets.collection_spec(collection.slug),
             _("Collection: %(name)s") % {"name": collection.name}, collection.description)


def get_record(request: HttpRequest, body, args) -> str | None:
    _check_prefix(args["metadataPrefix"])
    return _entries(body, request, [_item(request, args["identifier"])], args["metadataPrefix"])


def _list(request: HttpRequest, body, args, verb: str) -> str | None:
    if "resumptionToken" in args:
        cursor = Cursor.loads(args["resumptionToken"], verb)
    else:
        _check_prefix(args["metadataPrefix"])
        start, end = _window(args)
        spec = args.get("set")
        if spec is not None:
            _check_set(spec)
        cursor = Cursor(verb, args["metadataPrefix"], start, end, spec)
    items, window, more = _page(cursor)
    if not items:
        raise OaiError("noRecordsMatch", "no item matches these arguments")
    records = _entries(body, request, items, cursor.prefix if verb == "ListRecords" else None)
    if more or cursor.after is not None:
        if cursor.after is None:  # counted once, when the list starts (COUNT_CAP)
            cursor.complete = harvest.capped_count(window, COUNT_CAP)
        served = cursor.served
        cursor.after, cursor.served = (items[-1].updated, items[-1].pk), served + len(items)
        size = {} if cursor.complete is None else {"completeListSize": str(cursor.complete)}
        # The last page of a resumed list carries an empty token (the list is complete).
        _sub(body, "resumptionToken", cursor.dumps() if more else None, cursor=str(served),
             **size)
    return records


def list_identifiers(request: HttpRequest, body, args) -> None:
    _list(request, body, args, "ListIdentifiers")


def list_records(request: HttpRequest, body, args) -> str | None:
    return _list(request, body, args, "ListRecords")


HANDLERS = {
    "Identify": identify, "ListMetadataFormats": list_metadata_formats, "ListSets": list_sets,
    "GetRecord": get_record, "ListIdentifiers": list_identifiers, "ListRecords": list_records,
}


@csrf_exempt  # harvesters POST form-encoded requests without a session
@require_http_methods(["GET", "HEAD", "POST"])
def endpoint(request: HttpRequest) -> HttpResponse:
    query = request.POST if request.method == "POST" else request.GET
    root = etree.Element(_q("OAI-PMH"), nsmap={None: NS_OAI, "xsi": NS_XSI})
    root.set(f"{{{NS_XSI}}}schemaLocation", f"{NS_OAI} {SCHEMA_OAI}")
    _sub(root, "responseDate", datestamp(timezone.now()))
    req = _sub(root, "request", base_url(request) + reverse("archive:oai"))
    try:
        verb, args = _arguments(query)
    except OaiError as exc:  # the request element then carries no attributes
        _sub(root, "error", exc.message, code=exc.code)
        return _response(root)
    req.set("verb", verb)
    for key, value in args.items():
        req.set(key, oai_dc.xml_text(value))
    body = _sub(root, verb)
    records = None
    try:
        records = HANDLERS[verb](request, body, args)
    except OaiError as exc:
        root.remove(body)
        if exc.code == "badArgument":  # the protocol forbids echoing a bad request
            req.attrib.clear()
        _sub(root, "error", exc.message, code=exc.code)
    return _response(root, records)


def _response(root: etree._Element, records: str | None = None) -> HttpResponse:
    """The answer's bytes; `records` (the text of a page's records) where their marker is."""
    xml = etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True)
    if records is not None:
        xml = xml.replace(_RECORDS_MARK, utf8(records), 1)
    return HttpResponse(xml, content_type="text/xml; charset=utf-8")
