"""DSpace's qualified Dublin Core ↔ this repository's simple Dublin Core. No database.

Read (`to_item`), following DSpace's own oai_dc crosswalk where it has one:

    dc.title                      → title (the first; further titles are not kept)
    dc.contributor.author, creator→ creator          dc.contributor.*   → contributor
    dc.date.issued                → date (else dc.date.created, dc.date): EDTF level 0
    dc.description, .abstract, .tableofcontents, .sponsorship → description
    dc.subject.*                  → subject          dc.type            → type
    dc.language.iso, dc.language  → language (pt_BR → pt-BR; the first)
    dc.rights, .uri, .license     → rights           dc.publisher       → publisher
    dc.identifier.citation, .doi, .isbn, .issn, .other, .uri, dc.identifier → identifier
    dc.identifier.uri naming a Handle or DSpace UUID → kept as alternate identifiers instead
    dc.relation.isversionof / .hasversion → an edition link when both items are here, else
                                    relation; dc.relation.* (ispartof …) → relation
    dc.coverage.* → coverage      dc.source → source      dc.format (not .mimetype) → format
    dcterms.*: the same by DCMI term (abstract → description, bibliographicCitation →
               identifier, isPartOf → relation, license/accessRights …)

Every value is also kept as DSpace wrote it (`Mapped.fields`, issue 34): its field of the
metadata registry, `schema.element.qualifier`, its language, authority and confidence; what the
deposit stores is `stored(mapped)`, those values, less the ones the special cases above turned
into something else (a Handle or UUID as an alternate identifier, an access right as the item's
level, an embargo's day, an edition link, an IBI). The simple element above is the field's
(the registry's mapping column, MetadataField.dc_element), so search, oai_dc and citations
read a qualified value as DSpace's oai_dc does. Authors: dc.contributor.author and dc.creator
(TEDE's and BDTD's author, with a Lattes id as authority) are both kept as their own fields,
and both are creators wherever simple Dublin Core is spoken (landing page, citations,
oai_dc's dc:creator, the API's `creator` and `creators`): a DSpace thesis comes back under
the field it came in.

DSpace's own book-keeping (dc.date.accessioned, dc.date.available, dc.description.provenance,
dc.format.mimetype, dspace.*) is not kept, as DSpace's ItemImport writes its own when it
installs an item: the report names them. Access: any rights field naming
an access level in the one vocabulary (deposit/controlled.py `access_of`: COAR's URIs and
labels in English, Portuguese and Spanish, OpenAIRE's `info:eu-repo/semantics/*Access`,
DSpace's words; an unknown value of an access field is closed, `read_rights`), an embargo date
(dc.date.embargo, dc.date.embargoend, dc.embargo.liftdate, dc.embargo.terms, local.embargo.* …)
in the future, or a file readable by another group than Anonymous make `access` say why the
item is not open.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date

from django.utils.translation import gettext as _

from ..deposit import controlled
from ..metadata import dim
from ..registry.names import Qualified
from . import handles
from .saf import KEPT_BUNDLES, ContentLine, MetadataValue

# (schema, element, qualifier) → our element; qualifier "*" is any qualifier.
_DC = {
    ("contributor", "author"): "creator", ("creator", ""): "creator",
    ("contributor", "*"): "contributor",
    ("subject", "*"): "subject", ("type", "*"): "type", ("publisher", "*"): "publisher",
    ("description", ""): "description", ("description", "abstract"): "description",
    ("description", "tableofcontents"): "description",
    ("description", "sponsorship"): "description",
    ("rights", ""): "rights", ("rights", "uri"): "rights", ("rights", "license"): "rights",
    ("rights", "holder"): "rights",
    ("identifier", "*"): "identifier", ("relation", "*"): "relation",
    ("coverage", "*"): "coverage", ("source", "*"): "source",
    ("format", ""): "format", ("format", "extent"): "format", ("format", "medium"): "format",
}
_DCTERMS = {
    "creator": "creator", "contributor": "contributor", "subject": "subject", "type": "type",
    "publisher": "publisher", "description": "description", "abstract": "description",
    "tableOfContents": "description", "rights": "rights", "license": "rights",
    "rightsHolder": "rights", "identifier": "identifier", "bibliographicCitation": "identifier",
    "relation": "relation", "isPartOf": "relation", "hasPart": "relation",
    "references": "relation", "isReferencedBy": "relation", "requires": "relation",
    "isRequiredBy": "relation", "replaces": "relation", "isReplacedBy": "relation",
    "coverage": "coverage", "spatial": "coverage", "temporal": "coverage", "source": "source",
    "format": "format", "extent": "format", "medium": "format",
}
_DATES = (("dc", "date", "issued"), ("dcterms", "issued", ""), ("dc", "date", "created"),
          ("dcterms", "created", ""), ("dc", "date", ""), ("dcterms", "date", ""))
# What DSpace itself writes about its own copy: never the work's metadata.
_BOOKKEEPING = {("dc", "date", "accessioned"), ("dc", "date", "available"),
                ("dc", "description", "provenance"), ("dc", "format", "mimetype"),
                ("dcterms", "dateAccepted", ""), ("dcterms", "available", ""),
                ("dcterms", "provenance", "")}
_ACCESS_FIELDS = {("dc", "rights", "accessrights"), ("dc", "rights", "access"),
                  ("dcterms", "accessrights", ""), ("datacite", "rights", "")}
# Access levels (COAR access rights), from the most open to the most restrictive.
OPEN, EMBARGOED, RESTRICTED, METADATA_ONLY = controlled.ACCESS_LEVELS
EU_REPO_ACCESS = controlled.EU_REPO_ACCESS


def read_rights(mapped: Mapped, value: str, field: str, *, access_field: bool) -> bool:
    """Whether a rights value says who may read the item (its level then noted in `mapped`:
    the most restrictive of those said wins), rather than a licence or a rights statement.
    A value of an access field (`access_field`), or of COAR's or OpenAIRE's access namespace,
    that names no level the vocabulary knows makes the item closed (metadata only), and a
    note for the report says so."""
    level = controlled.access_of(value)
    if level is None:
        if controlled.is_licence(value) or not (access_field
                                                or controlled.in_access_namespace(value)):
            return False
        level = METADATA_ONLY
        mapped.notes.append(_("unknown access value %(value)r in %(field)s: imported closed "
                              "(metadata only)") % {"value": value, "field": field})
    if level != OPEN:
        mapped.access = mapped.access or _("access %(value)s (%(field)s)") % {
            "value": value, "field": field}
        mapped.level = controlled.most_restrictive(mapped.level or OPEN, level)
    return True


_EMBARGO_FIELDS = re.compile(r"(embargo|liftdate|embargoend)", re.IGNORECASE)
# OpenAIRE's guidelines (for DSpace's registry, which has no embargo field by default): the
# access right in dc.rights, the embargo's end in dc.date.
_EMBARGO_END = re.compile(r"info:eu-repo/date/embargoEnd/[0-9]{4}-[0-9]{2}-[0-9]{2}$",
                          re.IGNORECASE)
_EU_REPO = {EMBARGOED: "embargoedAccess", RESTRICTED: "restrictedAccess",
            METADATA_ONLY: "closedAccess"}
_DAY = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
ANONYMOUS = "anonymous"


@dataclass
class Mapped:
    """An item as read from DSpace's metadata, ready for the deposit services."""

    title: str = ""
    language: str = ""
    dc: dict[str, list[str]] = field(default_factory=dict)
    handles: list[str] = field(default_factory=list)
    uuids: list[str] = field(default_factory=list)
    newer_than: list[str] = field(default_factory=list)  # relation.isversionof values
    older_than: list[str] = field(default_factory=list)  # relation.hasversion values
    access: str = ""  # why the item is not open to everyone; "" when it is
    level: str = ""  # EMBARGOED, RESTRICTED, METADATA_ONLY; "" when open
    embargo_until: date | None = None  # with EMBARGOED: the first day its files are open
    restricted_files: list[str] = field(default_factory=list)  # open to a group only
    not_kept: list[str] = field(default_factory=list)  # fields dropped: DSpace's book-keeping
    notes: list[str] = field(default_factory=list)  # for the report, e.g. an unknown access
    # Every value kept, as DSpace wrote it: (field, value, the simple element whose `dc` list
    # must still hold it for it to be stored; "" when always stored). See `stored`.
    fields: list[tuple[str, Qualified, str]] = field(default_factory=list)
    dates_kept: bool = False  # a date field is among them (then `dc["date"]` is its summary)


def stored(mapped: Mapped) -> dict[str, list[Qualified]]:
    """What the deposit stores of a Mapped: field name → its values, as DSpace wrote them.
    A value that stands for a simple element is stored while `mapped.dc` still holds it (an
    importer may take an IBI out of the identifiers, or give an edition reference that is no
    link back as a relation); a value of `dc` with no field behind it is stored as dc.<element>."""
    waiting: dict[tuple[str, str], list[tuple[str, Qualified]]] = {}
    out: dict[str, list[Qualified]] = {}
    order: list[tuple[str, Qualified] | tuple[str, str]] = []
    for name, value, element in mapped.fields:
        if element:
            waiting.setdefault((element, value.value), []).append((name, value))
        else:
            out.setdefault(name, []).append(value)
    for element, values in mapped.dc.items():
        if element == "date" and mapped.dates_kept:
            continue  # the dates are stored under their fields
        for text in values:
            found = waiting.get((element, text))
            if found:
                name, value = found.pop(0)
                order.append((name, value))
            else:
                order.append((f"dc.{element}", Qualified(text)))
    for name, value in order:
        out.setdefault(name, []).append(value)
    return out


def _element(value: MetadataValue) -> str | None:
    schema, element, qualifier = value.schema.lower(), value.element, value.qualifier.lower()
    if schema == "dc":
        element = element.lower()
        return _DC.get((element, qualifier)) or _DC.get((element, "*"))
    if schema == "dcterms":
        return _DCTERMS.get(element) or _DCTERMS.get(element[:1].lower() + element[1:])
    return None


language_tag = dim.language_tag  # pt_BR → pt-BR


def normal_date(value: str) -> str:
    """DSpace's dates as EDTF level 0 reads them: a timestamp keeps its day
    (2013-09-04T12:00:00Z → 2013-09-04), anything else as written."""
    text = value.strip()
    match = _DAY.match(text)
    return match.group(0) if match and text[10:11] in ("T", " ") else text


def is_embargo_end(value: str) -> bool:
    """Whether a dc:date value is OpenAIRE's embargo end: info:eu-repo/date/embargoEnd/<day>."""
    return bool(_EMBARGO_END.match(value.strip()))


def embargo_until(values: Iterable[MetadataValue]) -> date | None:
    """The latest embargo day any embargo field names (terms written as a day, too), or a
    value of OpenAIRE's form ``info:eu-repo/date/embargoEnd/2027-03-01`` (in dc.date)."""
    found = None
    for value in values:
        if _EMBARGO_FIELDS.search(value.field) or _EMBARGO_END.match(value.value.strip()):
            match = _DAY.search(value.value)
            if match:
                try:
                    day = date(*map(int, match.groups()))
                except ValueError:
                    continue
                found = max(found, day) if found else day
            elif value.value.strip().lower() in ("forever", "indefinite", "permanent"):
                return date.max
    return found


def restricted_groups(lines: Sequence[ContentLine]) -> list[str]:
    """The groups other than Anonymous that a file of a kept bundle (ORIGINAL, TEXT,
    THUMBNAIL, LICENSE) may be read by (`permissions:-r 'Group'`); write permissions (-w) do
    not change who reads."""
    groups = []
    for line in lines:
        text = line.permissions.strip()
        if line.bundle not in KEPT_BUNDLES or not text.startswith("-r"):
            continue
        group = text[2:].strip().strip("'\"").strip()
        if group.lower() != ANONYMOUS:
            groups.append(group or "?")
    return groups


def settle_embargo(mapped: Mapped, until: date | None, today: date) -> None:
    """The level once the embargo's day is known: embargoed until a day to come (liftembargoes
    opens it then), closed for an embargo "forever"; embargoed with its day gone, open (as
    DSpace opens it that day, its access right often left unchanged; so a record harvested
    again never closes what liftembargoes opened); embargoed with no day at all, restricted."""
    if until is not None and until > today:
        if until == date.max:
            mapped.access = mapped.access or _("embargoed for ever")
            mapped.level = METADATA_ONLY if mapped.level == METADATA_ONLY else RESTRICTED
        else:
            mapped.access = mapped.access or _("embargoed until %(day)s") % {
                "day": until.isoformat()}
            if mapped.level in ("", EMBARGOED):
                mapped.level, mapped.embargo_until = EMBARGOED, until
    elif mapped.level == EMBARGOED and until is not None:  # over: open
        mapped.level, mapped.access = "", ""
    elif mapped.level == EMBARGOED:  # embargoed, with no day: closed until told
        mapped.level = RESTRICTED


def to_item(values: Sequence[MetadataValue], lines: Sequence[ContentLine] = (),
            handle: str = "", today: date | None = None) -> Mapped:
    """The item that DSpace's metadata, `contents` and `handle` describe."""
    today = today or date.today()  # noqa: DTZ011 (an embargo's day is the library's)
    mapped = Mapped()
    found_handle = handles.handle_of(handle) if handle else None
    if found_handle:
        mapped.handles.append(found_handle)
    dates: dict[tuple[str, str, str], str] = {}
    for value in values:
        key = (value.schema.lower(), value.element.lower(), value.qualifier.lower())
        if key in _BOOKKEEPING:
            continue
        if key[0] == "dspace":  # DSpace's own: its UUID an alternate identifier, else dropped
            if "uuid" in (key[1], key[2]) and handles.uuid_of(value.value):
                mapped.uuids.append(handles.uuid_of(value.value))
            else:
                mapped.not_kept.append(value.field)
            continue
        kept = Qualified(value.value, language_tag(value.language), value.authority,
                         value.confidence)
        # The item's title and language are the first dc.title and dc.language; kept as values
        # too only when they say more (a language, an authority, another spelling), and so are
        # the further ones.
        if key[:2] in (("dc", "title"), ("dcterms", "title")):
            if not mapped.title and not value.qualifier:
                mapped.title = value.value
                if not (kept.language or kept.authority) and key[0] == "dc":
                    continue
            mapped.fields.append((value.field, kept, ""))
            continue
        if key[:2] == ("dc", "language") or key[:2] == ("dcterms", "language"):
            if not mapped.language:
                mapped.language = language_tag(value.value)
                if (key == ("dc", "language", "iso") and value.value == mapped.language
                        and not (kept.language or kept.authority)):
                    continue
            mapped.fields.append((value.field, kept, ""))
            continue
        if key in _DATES or (key[0] == "dcterms" and key[1] in ("issued", "created", "date")):
            # Every date kept under its field, a timestamp as its day; the item's date is the
            # first of issued, created, date (below).
            kept = Qualified(normal_date(value.value), kept.language, kept.authority,
                             kept.confidence)
        if _EMBARGO_END.match(value.value.strip()):
            continue  # the embargo's day (OpenAIRE's dc.date form), read by embargo_until
        if (key[:2] == ("dc", "rights") and key[2] != "holder" or key in _ACCESS_FIELDS
                or key[:2] in (("dcterms", "rights"), ("dcterms", "license"))) and read_rights(
                mapped, value.value, value.field, access_field=key in _ACCESS_FIELDS):
            continue
        if key in _ACCESS_FIELDS:
            mapped.dc.setdefault("rights", []).append(value.value)  # a licence
            mapped.fields.append((value.field, kept, "rights"))
            continue
        if _EMBARGO_FIELDS.search(value.field):
            continue  # read below, by embargo_until
        if key in _DATES or (key[0] == "dcterms" and key[1] in ("issued", "created", "date")):
            dates.setdefault(key, value.value)
            mapped.fields.append((value.field, kept, ""))
            mapped.dates_kept = True
            continue
        if key[1] == "identifier" or key[:2] == ("dcterms", "identifier"):
            if _alternate(mapped, value.value):
                continue
        if key[:2] == ("dc", "relation") and key[2] == "isversionof" or key == (
                "dcterms", "isversionof", ""):
            mapped.newer_than.append(value.value)
            mapped.fields.append((value.field, kept, "relation"))  # stored if no link
            continue
        if key[:2] == ("dc", "relation") and key[2] == "hasversion" or key == (
                "dcterms", "hasversion", ""):
            mapped.older_than.append(value.value)
            mapped.fields.append((value.field, kept, "relation"))
            continue
        element = _element(value)
        if element is None:  # a field simple Dublin Core has no element for: kept as it is
            mapped.fields.append((value.field, kept, ""))
            continue
        mapped.dc.setdefault(element, []).append(value.value)
        mapped.fields.append((value.field, kept, element))
    for key in _DATES:
        if key in dates:
            mapped.dc["date"] = [normal_date(dates[key])]
            break
    settle_embargo(mapped, embargo_until(values), today)
    groups = restricted_groups(lines)
    if groups:
        mapped.restricted_files = [line.name for line in lines if line.bundle in KEPT_BUNDLES
                                   and line.permissions.strip().startswith("-r")
                                   and line.permissions.strip()[2:].strip().strip("'\"")
                                   .strip().lower() != ANONYMOUS]
        mapped.access = mapped.access or _("files readable by %(groups)s only") % {
            "groups": ", ".join(sorted(set(groups)))}
    mapped.not_kept = sorted(set(mapped.not_kept))
    return mapped


def _alternate(mapped: Mapped, text: str) -> bool:
    """Whether an identifier is a Handle or a DSpace UUID, kept as an alternate identifier."""
    handle = handles.handle_of(text) if "/" in text and (
        text.lower().startswith(("http", "hdl:", "info:hdl"))) else None
    if handle:
        if handle not in mapped.handles:
            mapped.handles.append(handle)
        return True
    uuid = handles.uuid_of(text) if text.lower().startswith(("http", "urn:uuid:")) else None
    if uuid:
        if uuid not in mapped.uuids:
            mapped.uuids.append(uuid)
        return True
    return False


# -- Written back, for DSpace's ItemImport ------------------------------------------------------

# What exportsaf writes and what OAI-PMH's dim says are one thing: metadata/dim.py.
Row = dim.Row
dspace_language = dim.dspace_language
to_dspace = dim.dspace_fields
