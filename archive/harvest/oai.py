"""OAI-PMH 2.0 data provider at /oai: the public items, deleted ones included, in three formats.

Formats (`FORMATS`): `oai_dc`; `oai_datacite`, the DataCite kernel 4 `<resource>` itself as
the metadata (namespace http://datacite.org/schema/kernel-4, as OpenAIRE and many repositories
harvest it: the schema of DataCite's OAI envelope, oai-1.1, is not one we validate against);
`oai_openaire`, the OpenAIRE Guidelines for Literature Repositories v4.
Sets (`sets.py`): `type:<kind>`, `language:<tag>`, their parents `type` and `language`, and
`openaire`; every header carries its item's setSpecs. A malformed or unknown set is a
badArgument, a known one with no item a noRecordsMatch.

Identifiers are `oai:<archive address>:<IBI repository name>`; datestamps are the items' last
change (`Item.updated`) at second granularity; deleted items stay as `status="deleted"` headers
(deletedRecord = persistent), in their sets. Resumption tokens are signed keyset cursors (the
format, the set, the last datestamp and id served), so items changed during a harvest are
never skipped. Every bad request gets the OAI error code the protocol names (HTTP 200), never
a 500.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.core import signing
from django.db.models import Q, QuerySet
from django.http import HttpRequest, HttpResponse, QueryDict
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods
from lxml import etree

from ..deposit import selectors
from ..identifiers import ibi as ibilib
from ..metadata import datacite, openaire
from ..metadata.selectors import record_of
from ..metadata.vocabularies import Kind
from ..models import Item
from . import oai_dc, sets
from . import selectors as harvest

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


def _dc_metadata(item: Item, request: HttpRequest) -> etree._Element:
    values = oai_dc.item_values(item, identifiers=[selectors.persistent_url(item, request)])
    return oai_dc.dc_element(values)


@dataclass(frozen=True)
class MetadataFormat:
    schema: str
    namespace: str
    metadata: Callable[[Item, HttpRequest], etree._Element]  # of an item with_details


FORMATS = {
    "oai_dc": MetadataFormat(oai_dc.SCHEMA, oai_dc.NS_OAI_DC, _dc_metadata),
    "oai_datacite": MetadataFormat(
        datacite.SCHEMA, datacite.NS, lambda item, request: datacite.resource(
            record_of(item, request))),
    "oai_openaire": MetadataFormat(
        openaire.SCHEMA, openaire.NS, lambda item, request: openaire.resource(
            record_of(item, request))),
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

    def dumps(self) -> str:
        return signing.dumps({
            "v": self.verb, "p": self.prefix, "s": _iso(self.start), "e": _iso(self.end),
            "t": self.set_spec,
            "a": [_iso(self.after[0]), self.after[1]] if self.after else None, "n": self.served,
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
            return cls(verb, data["p"], _from_iso(data["s"]), _from_iso(data["e"]), data["t"],
                       after, int(data["n"]))
        except (signing.BadSignature, ValueError, KeyError, TypeError, IndexError):
            raise OaiError("badResumptionToken", "the resumption token is invalid") from None

    @property
    def oai_set(self) -> sets.OaiSet | None:
        return sets.parse(self.set_spec) if self.set_spec is not None else None


def _page(cursor: Cursor, types: dict[str, Kind]
          ) -> tuple[list[Item], QuerySet[Item], bool]:
    window = harvest.oai_items(start=cursor.start, end=cursor.end, oai_set=cursor.oai_set,
                               types=types)
    items = window
    if cursor.after is not None:
        updated, pk = cursor.after
        items = items.filter(Q(updated__gt=updated) | Q(updated=updated, id__gt=pk))
    if cursor.verb == "ListRecords":
        items = selectors.with_details(items)
    size = settings.OAI_PAGE_SIZE
    page = list(items[:size + 1])
    return page[:size], window, len(page) > size


# -- Verbs -------------------------------------------------------------------------------------

def _identifier(request: HttpRequest, item: Item) -> str:
    return f"oai:{selectors.archive_address(request)}:{item.ibi}"


def _item(request: HttpRequest, identifier: str) -> Item:
    prefix = f"oai:{selectors.archive_address(request)}:"
    item = None
    if identifier.startswith(prefix):
        item = selectors.item_by_ibi(identifier[len(prefix):], selectors.public_items())
    if item is None:
        raise OaiError("idDoesNotExist", f"{identifier!r} is not an item of this repository")
    return item


def _header(parent, request: HttpRequest, item: Item, types: dict[str, Kind]) -> None:
    header = _sub(parent, "header", **({"status": "deleted"} if item.is_deleted else {}))
    _sub(header, "identifier", _identifier(request, item))
    _sub(header, "datestamp", datestamp(item.updated))
    for spec in harvest.set_specs(item, types):
        _sub(header, "setSpec", spec)


def _record(parent, request: HttpRequest, item: Item, types: dict[str, Kind],
            prefix: str) -> None:
    record = _sub(parent, "record")
    _header(record, request, item, types)
    if not item.is_deleted:
        _sub(record, "metadata").append(FORMATS[prefix].metadata(item, request))


def identify(request: HttpRequest, body, args) -> None:
    address = selectors.archive_address(request)
    earliest = selectors.oai_earliest_datestamp() or timezone.now()
    _sub(body, "repositoryName", f"IBI repository at {address}")
    _sub(body, "baseURL", f"{selectors.base_url(request)}/oai")
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


def get_record(request: HttpRequest, body, args) -> None:
    _check_prefix(args["metadataPrefix"])
    item = _item(request, args["identifier"])
    types = harvest.recognised_types()
    found = selectors.with_details(harvest.oai_items(types=types).filter(pk=item.pk)).get()
    _record(body, request, found, types, args["metadataPrefix"])


def _list(request: HttpRequest, body, args, verb: str) -> None:
    if "resumptionToken" in args:
        cursor = Cursor.loads(args["resumptionToken"], verb)
    else:
        _check_prefix(args["metadataPrefix"])
        start, end = _window(args)
        spec = args.get("set")
        if spec is not None:
            _check_set(spec)
        cursor = Cursor(verb, args["metadataPrefix"], start, end, spec)
    types = harvest.recognised_types()
    items, window, more = _page(cursor, types)
    if not items:
        raise OaiError("noRecordsMatch", "no item matches these arguments")
    for item in items:
        if verb == "ListRecords":
            _record(body, request, item, types, cursor.prefix)
        else:
            _header(body, request, item, types)
    if more or cursor.after is not None:
        complete = window.count()
        served = cursor.served
        cursor.after, cursor.served = (items[-1].updated, items[-1].pk), served + len(items)
        # The last page of a resumed list carries an empty token (the list is complete).
        _sub(body, "resumptionToken", cursor.dumps() if more else None,
             completeListSize=str(complete), cursor=str(served))


def list_identifiers(request: HttpRequest, body, args) -> None:
    _list(request, body, args, "ListIdentifiers")


def list_records(request: HttpRequest, body, args) -> None:
    _list(request, body, args, "ListRecords")


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
    req = _sub(root, "request", f"{selectors.base_url(request)}/oai")
    try:
        verb, args = _arguments(query)
    except OaiError as exc:  # the request element then carries no attributes
        _sub(root, "error", exc.message, code=exc.code)
        return _response(root)
    req.set("verb", verb)
    for key, value in args.items():
        req.set(key, oai_dc.xml_text(value))
    body = _sub(root, verb)
    try:
        HANDLERS[verb](request, body, args)
    except OaiError as exc:
        root.remove(body)
        if exc.code == "badArgument":  # the protocol forbids echoing a bad request
            req.attrib.clear()
        _sub(root, "error", exc.message, code=exc.code)
    return _response(root)


def _response(root: etree._Element) -> HttpResponse:
    xml = etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True)
    return HttpResponse(xml, content_type="text/xml; charset=utf-8")
