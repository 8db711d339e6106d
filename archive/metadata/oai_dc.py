"""An item's Dublin Core as an OAI `oai_dc` record, built with lxml.

Pure: no database, no request. Shared by the OAI-PMH GetRecord/ListRecords answers and the
`/items/<rep>/oai_dc.xml` record, so both always say the same thing::

    >>> xml = to_bytes(dc_element({"title": ["<b>A</b>"]}))
    >>> b"<dc:title>&lt;b&gt;A&lt;/b&gt;</dc:title>" in xml
    True
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import date, datetime

from lxml import etree

from ..access import policy
from ..models import DcElement
from .record import Creator, Record

NS_OAI_DC = "http://www.openarchives.org/OAI/2.0/oai_dc/"
NS_DC = "http://purl.org/dc/elements/1.1/"
NS_XSI = "http://www.w3.org/2001/XMLSchema-instance"
SCHEMA = "http://www.openarchives.org/OAI/2.0/oai_dc.xsd"
NSMAP = {"oai_dc": NS_OAI_DC, "dc": NS_DC, "xsi": NS_XSI}
# The fifteen elements in the order of the oai_dc schema's sequence.
ELEMENTS: tuple[str, ...] = tuple(DcElement.values)
# Characters XML 1.0 cannot carry at all (lxml refuses them): dropped rather than failing.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def handle_url(handle: str) -> str:
    """A Handle as dc:identifier, at the global proxy: `http://hdl.handle.net/<handle>`, as
    DSpace writes dc.identifier.uri."""
    return f"http://hdl.handle.net/{handle}"


def xml_text(value: object) -> str:
    """Text XML can carry: `xml_text("a\\x00b") == "ab"`."""
    return _NOT_XML.sub("", str(value))


def item_values(item, *, identifiers: Iterable[str] = ()) -> dict[str, list[str]]:
    """Element → values of an item (uses its prefetched Dublin Core rows); see `values_of`."""
    return values_of(item.title, item.language, item.created,
                     {name: item.dc(name) for name in ELEMENTS}, identifiers=identifiers,
                     access=(item.access_rights, item.embargo_until))


def values_of(title: str, language: str, created: datetime | None,
              dc: Mapping[str, Iterable[str]], *, identifiers: Iterable[str] = (),
              access: tuple[str, date | None] | None = None) -> dict[str, list[str]]:
    """Element → values of an item's record, from its title, language, deposit date and stored
    Dublin Core (`dc`: element → values; its title and language elements are not read).

    `identifiers` (the persistent URL, …) come first among dc:identifier; the deposit date
    stands in for dc:date when the depositor gave none. `access` (the item's level and the
    end of its embargo) adds its COAR access right to dc:rights and, for an embargo, the
    date it ends as the OpenAIRE/DRIVER guidelines write it in dc:date::

        >>> from datetime import UTC, date, datetime
        >>> v = values_of("A", "en", datetime(2020, 1, 2, tzinfo=UTC), {"identifier": ["x"]},
        ...               identifiers=["http://urlib.net/y"])
        >>> v["title"], v["date"], v["identifier"], v["language"]
        (['A'], ['2020-01-02'], ['http://urlib.net/y', 'x'], ['en'])
        >>> v = values_of("A", "", None, {}, access=("embargoed", date(2027, 3, 1)))
        >>> v["rights"], v["date"]
        (['http://purl.org/coar/access_right/c_f1cf'], ['info:eu-repo/date/embargoEnd/2027-03-01'])
    """
    values: dict[str, list[str]] = {name: list(dc.get(name, ())) for name in ELEMENTS
                                    if name not in ("title", "language")}
    values["title"] = [title]
    values["language"] = [language] if language else []
    values["identifier"] = [*identifiers, *values["identifier"]]
    if not values["date"] and created:
        values["date"] = [created.date().isoformat()]
    if access is not None:
        level, embargo_until = access
        values["rights"].append(policy.coar(level)[1])
        if level == policy.EMBARGOED and embargo_until is not None:
            values["date"].append(f"info:eu-repo/date/embargoEnd/{embargo_until.isoformat()}")
    return values


def dc_element(values: Mapping[str, Iterable[str]]) -> etree._Element:
    """The <oai_dc:dc> element of element → values; unknown element names are ignored."""
    root = etree.Element(f"{{{NS_OAI_DC}}}dc", nsmap=NSMAP)
    root.set(f"{{{NS_XSI}}}schemaLocation", f"{NS_OAI_DC} {SCHEMA}")
    for name in ELEMENTS:
        for value in values.get(name, ()):
            text = xml_text(value).strip()
            if text:
                etree.SubElement(root, f"{{{NS_DC}}}{name}").text = text
    return root


def to_bytes(element: etree._Element) -> bytes:
    return etree.tostring(element, xml_declaration=True, encoding="UTF-8", pretty_print=True)


# -- Reading a record another Archive gave (the resolver's stand-in, resolver/formats.py) -------

def read(document: bytes) -> dict[str, list[str]]:
    """Element → values of the first ``<oai_dc:dc>`` of a document (a bare record, or one in an
    OAI-PMH answer), whitespace folded; ValueError when there is none or it is no XML. No
    entity is resolved and nothing is fetched::

        >>> read(to_bytes(dc_element({"title": [" A  report "], "creator": ["B, C"]})))["title"]
        ['A report']
    """
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    try:
        root = etree.fromstring(document, parser)
    except etree.XMLSyntaxError as exc:
        raise ValueError(f"not XML: {exc}") from None
    tag = f"{{{NS_OAI_DC}}}dc"
    found = root if root.tag == tag else root.find(f".//{tag}")
    if found is None:
        raise ValueError("no oai_dc:dc element")
    values: dict[str, list[str]] = {name: [] for name in ELEMENTS}
    for child in found:
        name = child.tag[len(NS_DC) + 2:] if isinstance(child.tag, str) \
            and child.tag.startswith(f"{{{NS_DC}}}") else ""
        text = " ".join((child.text or "").split())
        if name in values and text:
            values[name].append(text)
    return values


def record_from(values: Mapping[str, list[str]], *, ibi: str, ibip: str, persistent_url: str,
                publisher: str) -> Record:
    """The Record of an oai_dc record's values (`read`), for an item another Archive holds:
    what every format is built from, as for the items held here. Its persistent URL and, when
    the record names none, its publisher (the Archive) are given::

        >>> r = record_from({"title": ["A"], "creator": ["Banon, Gerald"], "date": ["2009"]},
        ...                 ibi="x/y/2009/01.01.00.00", ibip="", persistent_url="http://h/x",
        ...                 publisher="h")
        >>> r.title, r.creators[0].family, r.year, r.publisher
        ('A', 'Banon', '2009', 'h')
    """
    def first(name: str) -> str:
        return next(iter(values.get(name, ())), "")

    return Record(
        ibi=ibi, ibip=ibip, title=first("title") or ibi, persistent_url=persistent_url,
        creators=tuple(Creator(name) for name in values.get("creator", ())),
        contributors=tuple(values.get("contributor", ())),
        subjects=tuple(values.get("subject", ())),
        descriptions=tuple(values.get("description", ())),
        publisher=first("publisher") or publisher, date=first("date"),
        language=first("language"), types=tuple(values.get("type", ())),
        rights=tuple(values.get("rights", ())), identifiers=tuple(values.get("identifier", ())),
        relations=tuple(values.get("relation", ())), formats=tuple(values.get("format", ())))
