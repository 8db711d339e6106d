"""A Record as an OpenAIRE Guidelines for Literature Repositories v4 record (`oai_openaire`).
Pure: no database, no request.

The guidelines' mandatory properties are always there: title, creator, resource type (with
its COAR URI), publication date, resource identifier, access rights (COAR URI); the
"mandatory if applicable" ones when the item has them (language, publisher, description,
subject, contributor, file location, license condition)::

    >>> r = Record(ibi="sid.inpe.br/mtc-m19/2013/09.04.12.27.57", ibip="8JMKD3MGP7W/3EPGUE5",
    ...            title="Relatório", persistent_url="http://urlib.net/8JMKD3MGP7W/3EPGUE5",
    ...            date="2013-09-04", types=("Relatório técnico",), language="pt-BR")
    >>> xml = to_bytes(r).decode()
    >>> 'uri="http://purl.org/coar/resource_type/c_18gh">technical report<' in xml
    True
    >>> '<dc:language>pt</dc:language>' in xml
    True

Where the guidelines' schema (DataCite 4.1 vocabularies) lacks what kernel 4 says
(`archive/metadata/datacite.py`), the nearest older term stands in: a translation
`IsVariantFormOf` its original, and a withdrawal is no date (OAI-PMH says it). The identifier
is the persistent URL (`identifierType="URL"`), the IBI and IBIp are alternate identifiers, as
in DataCite. The access right is the item's level as a COAR access right (`c_abf2` open,
`c_f1cf` embargoed, `c_16ec` restricted, `c_14cb` metadata only; an open item without a file
open to all, or a tombstone, is metadata only), an embargo's period the guidelines'
`Accepted` (its start: the deposit) and `Available` (its end) dates, and only the files open
to all are listed (`oaire:file`): no URL is given of a file a harvester may not read.
"""
from __future__ import annotations

from lxml import etree

from ..access import policy
from .datacite import (
    CNPQ,
    UNKNOWN,
    access_right,
    contributors,
    identifiers,
    issued,
    name_identifiers,
)
from .record import Creator, Record
from .vocabularies import is_language, kind, xml_text

NS = "http://namespace.openaire.eu/schema/oaire/"
NS_DATACITE = "http://datacite.org/schema/kernel-4"
NS_DC = "http://purl.org/dc/elements/1.1/"
NS_XSI = "http://www.w3.org/2001/XMLSchema-instance"
SCHEMA = "https://www.openaire.eu/schema/repo-lit/4.0/openaire.xsd"
NSMAP = {"oaire": NS, "datacite": NS_DATACITE, "dc": NS_DC, "xsi": NS_XSI}
OPEN_ACCESS = policy.coar(policy.OPEN)
COAR = "http://purl.org/coar/resource_type/"
THESES = {"doctoral": COAR + "c_db06", "masters": COAR + "c_bdcc", "bachelor": COAR + "c_7a1f"}
# OpenAIRE's objectType of a file, by the kind of the resource.
OBJECT_TYPES = {"literature": "fulltext", "dataset": "dataset", "software": "software"}


def _sub(parent: etree._Element, ns: str, tag: str, text: str | None = None,
         **attrs: str) -> etree._Element:
    element = etree.SubElement(parent, f"{{{ns}}}{tag}", attrs)
    if text is not None:
        element.text = xml_text(text)
    return element


def _dc(parent: etree._Element, tag: str, text: str) -> etree._Element:
    return _sub(parent, NS_DC, tag, text)


def _dcite(parent: etree._Element, tag: str, text: str | None = None,
           **attrs: str) -> etree._Element:
    return _sub(parent, NS_DATACITE, tag, text, **attrs)


def _clean(values) -> list[str]:
    return [t for t in (xml_text(v).strip() for v in values) if t]


def language_code(tag: str) -> str:
    """The ISO 639 code the guidelines ask for: the primary subtag of a BCP 47 tag (pt-BR → pt),
    or "" when the tag is none."""
    primary = tag.split("-", 1)[0].lower()
    return primary if is_language(tag) and 2 <= len(primary) <= 3 else ""


def _person(parent: etree._Element, role: str, person: Creator, **attrs: str) -> None:
    """A creator or contributor (`role`): its name, parts and identifiers (the guidelines
    write the bare ORCID iD beside the scheme's URI)."""
    element = _dcite(parent, role, **attrs)
    name = xml_text(person.name).strip() or UNKNOWN
    if person.given:
        _dcite(element, f"{role}Name", name, nameType="Personal")
        _dcite(element, "givenName", person.given)
        _dcite(element, "familyName", person.family)
    else:
        _dcite(element, f"{role}Name", name)
    for value, scheme, uri in name_identifiers(person, bare_orcid=True):
        _dcite(element, "nameIdentifier", value, nameIdentifierScheme=scheme, schemeURI=uri)


def resource(record: Record) -> etree._Element:
    """The `<oaire:resource>` element of a record."""
    root = etree.Element(f"{{{NS}}}resource", nsmap=NSMAP)
    root.set(f"{{{NS_XSI}}}schemaLocation", f"{NS} {SCHEMA}")
    # A thesis's own COAR type by its degree (doctoral, master, bachelor thesis), where dc:type
    # says only "Tese" (COAR's thesis, c_46ec), as BDTD and OpenAIRE tell them apart.
    what = kind((THESES[record.degree],) if record.degree in THESES else record.types)

    titles = _dcite(root, "titles")
    _dcite(titles, "title", xml_text(record.title).strip() or UNKNOWN)
    creators = _dcite(root, "creators")
    for creator in record.creators or (Creator(UNKNOWN),):
        _person(creators, "creator", creator)
    if people := contributors(record):
        parent = _dcite(root, "contributors")
        for person, role in people:
            _person(parent, "contributor", person, contributorType=role)

    identifiers(root, record, translation="IsVariantFormOf")

    published = issued(record)
    dates = _dcite(root, "dates")
    if record.embargo_until is not None and not record.is_deleted:
        # The embargo period (the guidelines' "Embargo Period Date"): from the deposit on.
        start = record.created.date().isoformat() if record.created else published
        _dcite(dates, "date", start, dateType="Accepted")
        _dcite(dates, "date", record.embargo_until.isoformat(), dateType="Available")
    _dcite(dates, "date", published, dateType="Issued")
    if code := language_code(record.language):
        _dc(root, "language", code)
    if publisher := xml_text(record.publisher).strip():
        _dc(root, "publisher", publisher)
    _sub(root, NS, "resourceType", what.coar_label, resourceTypeGeneral=what.openaire,
         uri=what.coar_uri)
    for description in _clean(record.descriptions):
        _dc(root, "description", description)
    for value in _clean(record.formats) or sorted({f.content_type for f in record.files}):
        _dc(root, "format", value)
    _dcite(root, "identifier", record.persistent_url, identifierType="URL")
    access, access_uri = access_right(record)
    _dcite(root, "rights", access, rightsURI=access_uri)
    if subjects := _clean(record.subjects):
        parent = _dcite(root, "subjects")
        areas = set(record.knowledge_areas)
        for subject in subjects:
            _dcite(parent, "subject", subject,
                   **({"subjectScheme": CNPQ} if subject in areas else {}))
    if record.files:
        sizes = _dcite(root, "sizes")
        for file in record.files:
            _dcite(sizes, "size", f"{file.size} bytes")
    for value in _clean(record.rights):
        is_uri = value.lower().startswith(("http://", "https://"))
        _sub(root, NS, "licenseCondition", value, startDate=published,
             **({"uri": value} if is_uri else {}))
    if not record.is_deleted:
        object_type = OBJECT_TYPES.get(what.openaire, "other")
        for file in record.files:
            _sub(root, NS, "file", file.url, mimeType=file.content_type,
                 accessRightsURI=OPEN_ACCESS[1], objectType=object_type)
    return root


def to_bytes(record: Record) -> bytes:
    """The record as a UTF-8 XML document."""
    return etree.tostring(resource(record), xml_declaration=True, encoding="UTF-8",
                          pretty_print=True)
