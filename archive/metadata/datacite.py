"""A Record as DataCite Metadata Schema kernel 4 XML (`<resource>`), built with lxml. Pure.

An IBI is not a DOI, and DataCite's `identifierType` names the scheme of the one identifier a
record is about, so the identifier is the item's persistent URL (`identifierType="URL"`, the
choice of repositories that publish DataCite XML for non-DOI identifiers); the IBI (repository
name) and the IBIp follow as `alternateIdentifier`s of types `IBI` and `IBIp`::

    >>> r = Record(ibi="sid.inpe.br/mtc-m19/2013/09.04.12.27.57", ibip="8JMKD3MGP7W/3EPGUE5",
    ...            title="Relatório", persistent_url="http://urlib.net/8JMKD3MGP7W/3EPGUE5",
    ...            creators=(Creator("Banon, Gerald J. F."),), date="2013-09-04",
    ...            types=("Relatório técnico",))
    >>> xml = to_bytes(r).decode()
    >>> '<identifier identifierType="URL">http://urlib.net/8JMKD3MGP7W/3EPGUE5</identifier>' in xml
    True
    >>> '<resourceType resourceTypeGeneral="Report">Relatório técnico</resourceType>' in xml
    True

Who may read the files is a `rights` of its own, the COAR access right with its URI (as
OpenAIRE's guidelines write it), and an embargo's end is the `Available` date. Required
properties with nothing to say get DataCite's own code for unknown values,
`(:unav)`; a record with no year at all is published under the current year, as DataCite reads
publicationYear ("the year the resource was made public") when nothing better is known.
dc:relation values are not carried: free text names no relationType. A thesis's advisors
are its `Supervisor` contributors (with their ORCID iD or Lattes CV), its committee and other
contributors `Other`, its CNPq knowledge areas subjects of CNPq's scheme.
"""
from __future__ import annotations

import re
from datetime import UTC, datetime

from lxml import etree

from ..access import policy
from .citing import AREA_SCHEME
from .record import Creator, Record, doi
from .vocabularies import is_language, kind, xml_text

NS = "http://datacite.org/schema/kernel-4"
NS_XSI = "http://www.w3.org/2001/XMLSchema-instance"
SCHEMA = "http://schema.datacite.org/meta/kernel-4/metadata.xsd"
UNKNOWN = "(:unav)"  # DataCite's standard value for "value unavailable"
ORCID = "https://orcid.org"
LATTES = "http://lattes.cnpq.br/"
CNPQ = AREA_SCHEME  # a dc.subject.cnpq value's subjectScheme
# dc:date values DataCite can read as ISO 8601 (a year, a month, a day, a UTC instant).
_ISO_DATE = re.compile(r"[0-9]{4}(-[0-9]{2}(-[0-9]{2}(T[0-9]{2}:[0-9]{2}(:[0-9]{2})?Z?)?)?)?")


def _sub(parent: etree._Element, tag: str, text: str | None = None,
         **attrs: str) -> etree._Element:
    element = etree.SubElement(parent, f"{{{NS}}}{tag}", attrs)
    if text is not None:
        element.text = xml_text(text)
    return element


def identifiers(root: etree._Element, record: Record, *,
                translation: str = "IsTranslationOf") -> None:
    """The record's alternateIdentifiers (its IBI, its IBIp, other dc:identifier values) and
    relatedIdentifiers (the neighbouring editions, the original it translates) under root, in
    DataCite's namespace. OpenAIRE's records carry the same elements; its schema lists DataCite
    4.1's relation types, which have no IsTranslationOf (`translation` names another)."""
    alternates = _sub(root, "alternateIdentifiers")
    _sub(alternates, "alternateIdentifier", record.ibi, alternateIdentifierType="IBI")
    if record.ibip:
        _sub(alternates, "alternateIdentifier", record.ibip, alternateIdentifierType="IBIp")
    for handle in record.handles:  # DataCite's own type for it (alternateIdentifierType)
        _sub(alternates, "alternateIdentifier", handle, alternateIdentifierType="Handle")
    for value in _clean(record.identifiers):
        # A DOI bare (10.x/…), as DataCite writes one, however dc:identifier spelled it.
        kind = alternate_identifier_type(value)
        _sub(alternates, "alternateIdentifier", doi(value) or value if kind == "DOI" else value,
             alternateIdentifierType=kind)
    related = [(url, relation) for url, relation in (
        (record.previous_edition, "IsNewVersionOf"),
        (record.next_edition, "IsPreviousVersionOf"),
        (record.translation_of, translation)) if url]
    if related:
        parent = _sub(root, "relatedIdentifiers")
        for url, relation in related:
            _sub(parent, "relatedIdentifier", url, relatedIdentifierType="URL",
                 relationType=relation)


def _clean(values) -> list[str]:
    return [t for t in (xml_text(v).strip() for v in values) if t]


def _day(when: datetime) -> str:
    return when.astimezone(UTC).date().isoformat()


def publication_year(record: Record) -> str:
    """The year of dc:date, else of the deposit, else this year (see the module's docstring)."""
    if record.year:
        return record.year
    for when in (record.created, record.updated, record.deleted_at):
        if when is not None:
            return f"{when.astimezone(UTC).year:04d}"
    return f"{datetime.now(UTC).year:04d}"


def issued(record: Record) -> str:
    """The date of publication: dc:date when it is ISO 8601, else the publication year."""
    date = record.date.strip()
    return date if _ISO_DATE.fullmatch(date) else publication_year(record)


def alternate_identifier_type(value: str) -> str:
    """The scheme a dc:identifier value is written in, as DataCite names it."""
    lower = value.lower()
    if lower.startswith("10.") or "doi.org/10." in lower or lower.startswith("doi:"):
        return "DOI"
    if lower.startswith(("http://", "https://")):
        return "URL"
    if lower.startswith("isbn"):
        return "ISBN"
    if lower.startswith("issn"):
        return "ISSN"
    return "Other"


def name_identifiers(person: Creator, *, bare_orcid: bool = False) -> list[tuple[str, str, str]]:
    """(identifier, nameIdentifierScheme, schemeURI) of a person: the ORCID iD (its URL, as
    DataCite writes it; bare as OpenAIRE's guidelines do) and the Lattes CV."""
    found = []
    if person.orcid:
        found.append((person.orcid if bare_orcid else f"{ORCID}/{person.orcid}", "ORCID",
                      ORCID))
    if person.lattes:
        found.append((LATTES + person.lattes, "Lattes", LATTES))
    return found


def _person(parent: etree._Element, role: str, person: Creator, **attrs: str) -> None:
    """A creator or contributor (`role`): its name, parts, and identifiers."""
    element = _sub(parent, role, **attrs)
    name = xml_text(person.name).strip() or UNKNOWN
    if person.given:  # "Family, Given" is a person's name
        _sub(element, f"{role}Name", name, nameType="Personal")
        _sub(element, "givenName", person.given)
        _sub(element, "familyName", person.family)
    else:
        _sub(element, f"{role}Name", name)
    for value, scheme, uri in name_identifiers(person):
        _sub(element, "nameIdentifier", value, nameIdentifierScheme=scheme, schemeURI=uri)


def _creator(parent: etree._Element, creator: Creator) -> None:
    _person(parent, "creator", creator)


def contributors(record: Record) -> list[tuple[Creator, str]]:
    """(person, contributorType) of a record: a thesis's advisors and co-advisors are its
    `Supervisor`s, its examining committee and every other dc:contributor `Other` (DataCite
    has no role for them; dc:contributor says none)."""
    return [*((c, "Supervisor") for c in (*record.advisors, *record.co_advisors)),
            *((c, "Other") for c in record.referees),
            *((Creator(name), "Other") for name in _clean(record.other_contributors))]


def resource(record: Record) -> etree._Element:
    """The `<resource>` element of a record (a tombstone says what its Record still holds)."""
    root = etree.Element(f"{{{NS}}}resource", nsmap={None: NS, "xsi": NS_XSI})
    root.set(f"{{{NS_XSI}}}schemaLocation", f"{NS} {SCHEMA}")
    _sub(root, "identifier", record.persistent_url, identifierType="URL")

    creators = _sub(root, "creators")
    for creator in record.creators or (Creator(UNKNOWN),):
        _creator(creators, creator)
    titles = _sub(root, "titles")
    _sub(titles, "title", xml_text(record.title).strip() or UNKNOWN)
    _sub(root, "publisher", xml_text(record.publisher).strip() or UNKNOWN)
    _sub(root, "publicationYear", publication_year(record))
    types = _clean(record.types)
    general = kind(types).datacite
    _sub(root, "resourceType", types[0] if types else general, resourceTypeGeneral=general)

    if subjects := _clean(record.subjects):
        parent = _sub(root, "subjects")
        areas = set(record.knowledge_areas)
        for subject in subjects:
            _sub(parent, "subject", subject,
                 **({"subjectScheme": CNPQ} if subject in areas else {}))
    if people := contributors(record):
        parent = _sub(root, "contributors")
        for person, role in people:
            _person(parent, "contributor", person, contributorType=role)

    dates = []
    if _ISO_DATE.fullmatch(record.date.strip()):
        dates.append(("Issued", record.date.strip()))
    if record.created is not None:
        dates.append(("Submitted", _day(record.created)))
    if record.updated is not None:
        dates.append(("Updated", _day(record.updated)))
    if record.deleted_at is not None:
        dates.append(("Withdrawn", _day(record.deleted_at)))
    if record.embargo_until is not None and not record.is_deleted:
        dates.append(("Available", record.embargo_until.isoformat()))
    if dates:
        parent = _sub(root, "dates")
        for date_type, value in dates:
            _sub(parent, "date", value, dateType=date_type)
    if is_language(record.language):
        _sub(root, "language", record.language)

    identifiers(root, record)

    if record.files:
        sizes = _sub(root, "sizes")
        for file in record.files:
            _sub(sizes, "size", f"{file.size} bytes")
    formats = _clean(record.formats) or sorted({f.content_type for f in record.files})
    if formats:
        parent = _sub(root, "formats")
        for value in formats:
            _sub(parent, "format", value)
    _sub(root, "version", str(record.edition_number))

    parent = _sub(root, "rightsList")
    for value in _clean(record.rights):
        uri = {"rightsURI": value} if value.lower().startswith(("http://", "https://")) else {}
        _sub(parent, "rights", value, **uri)
    label, uri = access_right(record)
    _sub(parent, "rights", label, rightsURI=uri)
    descriptions = [("Abstract", d) for d in _clean(record.descriptions)]
    if record.is_deleted and (reason := xml_text(record.deletion_reason).strip()):
        descriptions.append(("Other", reason))
    if descriptions:
        parent = _sub(root, "descriptions")
        for description_type, text in descriptions:
            _sub(parent, "description", text, descriptionType=description_type)
    return root


def access_right(record: Record) -> tuple[str, str]:
    """(label, URI) of the COAR access right of a record: its level, metadata only for a
    tombstone, and for an open item without a file open to all."""
    if record.is_deleted or (record.access_rights == policy.OPEN and not record.files):
        return policy.coar(policy.METADATA_ONLY)
    return policy.coar(record.access_rights)


def to_bytes(record: Record) -> bytes:
    """The record as a UTF-8 XML document."""
    return etree.tostring(resource(record), xml_declaration=True, encoding="UTF-8",
                          pretty_print=True)
