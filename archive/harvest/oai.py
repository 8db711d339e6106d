"""OAI-PMH 2.0 data provider at /oai: oai_dc records of the public items, deleted ones included.

Identifiers are `oai:<archive address>:<IBI repository name>`; datestamps are the items' last
change (`Item.updated`) at second granularity; deleted items stay as `status="deleted"` headers
(deletedRecord = persistent). No sets. Resumption tokens are signed keyset cursors (the last
datestamp and id served), so items changed during a harvest are never skipped.
Every bad request gets the OAI error code the protocol names (HTTP 200), never a 500.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.core import signing
from django.db.models import Q, QuerySet
from django.http import HttpRequest, HttpResponse, QueryDict
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods
from lxml import etree

from ..deposit import selectors
from ..identifiers import ibi as ibilib
from ..models import Item
from . import oai_dc

NS_OAI = "http://www.openarchives.org/OAI/2.0/"
NS_XSI = "http://www.w3.org/2001/XMLSchema-instance"
NS_ID = "http://www.openarchives.org/OAI/2.0/oai-identifier"
SCHEMA_OAI = "http://www.openarchives.org/OAI/2.0/OAI-PMH.xsd"
SCHEMA_ID = "http://www.openarchives.org/OAI/2.0/oai-identifier.xsd"
GRANULARITY = "YYYY-MM-DDThh:mm:ssZ"
SECONDS = "%Y-%m-%dT%H:%M:%SZ"
PREFIX = "oai_dc"
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
    if prefix != PREFIX:
        raise OaiError("cannotDisseminateFormat", f"only {PREFIX} is disseminated")


# -- Resumption tokens -------------------------------------------------------------------------

def _iso(when: datetime | None) -> str | None:
    return when.isoformat() if when else None


def _from_iso(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


@dataclass
class Cursor:
    verb: str
    start: datetime | None
    end: datetime | None
    after: tuple[datetime, int] | None = None  # the last (datestamp, id) served
    served: int = 0

    def dumps(self) -> str:
        return signing.dumps({
            "v": self.verb, "s": _iso(self.start), "e": _iso(self.end),
            "a": [_iso(self.after[0]), self.after[1]] if self.after else None, "n": self.served,
        }, salt=TOKEN_SALT, compress=True)

    @classmethod
    def loads(cls, token: str, verb: str) -> Cursor:
        try:
            data = signing.loads(token, salt=TOKEN_SALT)
            if data["v"] != verb:
                raise ValueError(verb)
            after = (_from_iso(data["a"][0]), int(data["a"][1])) if data["a"] else None
            return cls(verb, _from_iso(data["s"]), _from_iso(data["e"]), after, int(data["n"]))
        except (signing.BadSignature, ValueError, KeyError, TypeError, IndexError):
            raise OaiError("badResumptionToken", "the resumption token is invalid") from None


def _page(cursor: Cursor) -> tuple[list[Item], QuerySet[Item], bool]:
    window = selectors.oai_items(start=cursor.start, end=cursor.end)
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


def _header(parent, request: HttpRequest, item: Item) -> None:
    header = _sub(parent, "header", **({"status": "deleted"} if item.is_deleted else {}))
    _sub(header, "identifier", _identifier(request, item))
    _sub(header, "datestamp", datestamp(item.updated))


def _record(parent, request: HttpRequest, item: Item) -> None:
    record = _sub(parent, "record")
    _header(record, request, item)
    if not item.is_deleted:
        values = oai_dc.item_values(item, identifiers=[selectors.persistent_url(item, request)])
        _sub(record, "metadata").append(oai_dc.dc_element(values))


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
    if "identifier" in args:
        _item(request, args["identifier"])
    fmt = _sub(body, "metadataFormat")
    _sub(fmt, "metadataPrefix", PREFIX)
    _sub(fmt, "schema", oai_dc.SCHEMA)
    _sub(fmt, "metadataNamespace", oai_dc.NS_OAI_DC)


def list_sets(request: HttpRequest, body, args) -> None:
    if "resumptionToken" in args:
        raise OaiError("badResumptionToken", "this repository has no sets to resume")
    raise OaiError("noSetHierarchy", "this repository does not support sets")


def get_record(request: HttpRequest, body, args) -> None:
    _check_prefix(args["metadataPrefix"])
    item = _item(request, args["identifier"])
    _record(body, request, selectors.with_details(Item.objects.filter(pk=item.pk)).get())


def _list(request: HttpRequest, body, args, verb: str) -> None:
    if "resumptionToken" in args:
        cursor = Cursor.loads(args["resumptionToken"], verb)
    else:
        _check_prefix(args["metadataPrefix"])
        start, end = _window(args)
        if "set" in args:
            raise OaiError("noSetHierarchy", "this repository does not support sets")
        cursor = Cursor(verb, start, end)
    items, window, more = _page(cursor)
    if not items:
        raise OaiError("noRecordsMatch", "no item matches these arguments")
    for item in items:
        (_record if verb == "ListRecords" else _header)(body, request, item)
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
