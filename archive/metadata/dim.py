"""DSpace Intermediate Metadata (`dim`): every value of an item under its field of the
registry, `schema.element.qualifier`, with its language (as DSpace writes it: pt_BR), authority
and confidence, as DSpace's OAI-PMH serves it to the aggregators (IBICT's BDTD and Oasisbr
harvest theses in it) and as `exportsaf` writes SAF's dublin_core.xml and
metadata_<schema>.xml. Pure: no database.

    <dim:dim xmlns:dim="http://www.dspace.org/xmlns/dspace/dim">
      <dim:field mdschema="dc" element="contributor" qualifier="advisor"
                 authority="4727357182510680" confidence="600">Pereira, J. H.</dim:field>
      <dim:field mdschema="dc" element="title" lang="pt_BR">Modelagem …</dim:field>
    </dim:dim>

An attribute is written only when it has a value (DSpace's DIMDisseminationCrosswalk: no
qualifier, no lang, no authority and confidence for a value without an authority).

    >>> xml = to_bytes(dim_element({"dc": [("contributor", "advisor", "", "P, J.", "", -1)]}))
    >>> b'element="contributor" qualifier="advisor">P, J.</dim:field>' in xml
    True
    >>> dspace_language("pt-BR")
    'pt_BR'
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date

from lxml import etree

from ..deposit import controlled

NS = "http://www.dspace.org/xmlns/dspace/dim"
# DSpace publishes no XML Schema of dim; tests/data/schemas/dim.xsd describes it (as DSpace's
# DIMDisseminationCrosswalk and its XOAI templates write it).
SCHEMA = "http://www.dspace.org/schema/dim.xsd"
NSMAP = {"dim": NS}
# A Handle as dc.identifier.uri, as DSpace 7 writes it (handle.canonical.prefix).
HANDLE_PROXY = "https://hdl.handle.net/"
OPEN, EMBARGOED, RESTRICTED, METADATA_ONLY = controlled.ACCESS_LEVELS
EU_REPO_ACCESS = controlled.EU_REPO_ACCESS
_EU_REPO = {EMBARGOED: "embargoedAccess", RESTRICTED: "restrictedAccess",
            METADATA_ONLY: "closedAccess"}


def language_tag(value: str) -> str:
    """DSpace's locale-like languages as BCP 47: pt_BR → pt-BR; "other", "*" → none."""
    text = value.strip().replace("_", "-")
    return "" if text.lower() in ("", "other", "*", "n/a", "none") else text


# A value as the registry holds it: (schema, element, qualifier, language, value, authority,
# confidence).
Row = tuple[str, str, str, str, str, str, int]
# Fields of this registry that DSpace's default one lacks, written as the DSpace field
# `to_item` reads back to the same simple element.
_OUT = {("dc", "coverage", ""): ("dc", "coverage", "spatial")}


def dspace_language(tag: str) -> str:
    """A BCP 47 tag as DSpace writes a value's language: pt-BR → pt_BR."""
    return tag.replace("-", "_")


def dspace_fields(title: str, language: str, rows: Sequence[Row], *,
              identifier_uris: Sequence[str] = (), newer_than: Sequence[str] = (),
              level: str = "", embargo: date | None = None) -> dict[str, list[tuple]]:
    """schema → its (element, qualifier, language, value, authority, confidence) for
    dublin_core.xml (dc) and metadata_<schema>.xml: every value under its own field as the
    registry holds it (`rows`, by field and position), so that what `to_item` read comes back
    as DSpace wrote it; the title and language (the item's, with the language of the dc.title
    that says it), `identifier_uris` (its persistent URL, its Handle's proxy URL), the previous
    edition it is a version of, and its access `level` when not open, with its embargo's end,
    as OpenAIRE writes them in DSpace's default registry
    (``info:eu-repo/semantics/embargoedAccess`` in dc.rights,
    ``info:eu-repo/date/embargoEnd/<day>`` in dc.date)."""
    out: dict[str, list[tuple]] = {"dc": []}

    def put(schema: str, element: str, qualifier: str, lang: str, value: str,
            authority: str = "", confidence: int = -1) -> None:
        schema, element, qualifier = _OUT.get((schema, element, qualifier),
                                              (schema, element, qualifier))
        out.setdefault(schema, []).append((element, qualifier, dspace_language(lang), value,
                                           authority, confidence))

    rows = list(rows)
    titles = [r for r in rows if r[:3] == ("dc", "title", "")]
    first = titles[0] if titles and titles[0][4] == title else None
    put("dc", "title", "", first[3] if first else "", title, *(first[5:] if first else ()))
    languages = [r for r in rows if r[:2] == ("dc", "language")]
    if languages and language and language_tag(languages[0][4]) != language:
        languages[0] = languages[0][:4] + (language,) + languages[0][5:]
    if not languages and language:
        languages = [("dc", "language", "iso", "", language, "", -1)]
    skip = {id(r) for r in titles[:1]} | {id(r) for r in rows if r[:2] == ("dc", "language")}
    if level in _EU_REPO:
        put("dc", "rights", "", "", EU_REPO_ACCESS + _EU_REPO[level])
    if level == EMBARGOED and embargo is not None:
        put("dc", "date", "", "", f"info:eu-repo/date/embargoEnd/{embargo.isoformat()}")
    said = set()
    for row in rows:
        if id(row) in skip:
            continue
        if row[:2] == ("dc", "rights") and row[4].strip().lower().startswith(EU_REPO_ACCESS):
            continue  # an access right said in words: the item's level says it (above)
        put(*row)
        said.add(row[:3] + (row[4],))
    for row in languages:
        put(*row)
    for uri in identifier_uris:
        if ("dc", "identifier", "uri", uri) not in said:
            put("dc", "identifier", "uri", "", uri)
    for ref in newer_than:
        if ("dc", "relation", "isversionof", ref) not in said:
            put("dc", "relation", "isversionof", "", ref)
    return out


def dim_element(fields: dict[str, list[tuple]]) -> etree._Element:
    """<dim:dim> of `dspace_fields`'s answer: schema → (element, qualifier, language, value,
    authority, confidence)."""
    root = etree.Element(f"{{{NS}}}dim", nsmap=NSMAP)
    tag, sub = f"{{{NS}}}field", etree.SubElement
    for schema, values in fields.items():
        for element, qualifier, language, value, authority, confidence in values:
            attributes = {"mdschema": schema, "element": element}
            if qualifier:
                attributes["qualifier"] = qualifier
            if language:
                attributes["lang"] = language
            if authority:
                attributes["authority"] = authority
                attributes["confidence"] = str(confidence)
            sub(root, tag, attributes).text = _xml_text(value)
    return root


def to_bytes(element: etree._Element) -> bytes:
    return etree.tostring(element, encoding="utf-8")


# What XML 1.0 cannot carry (Char, §2.2): one regular expression over the value, not a test
# per character (that was half the time of a page of records, bench/README.md thesis_scale.py).
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_text(value: str) -> str:
    return _NOT_XML.sub("", value)


def read_dim(root: etree._Element) -> list[tuple[str, str, str, str, str, str, int]]:
    """(schema, element, qualifier, language, value, authority, confidence) of a <dim:dim>,
    in order; a confidence that is no number is -1 (unset)."""
    rows = []
    for node in root.iter(f"{{{NS}}}field"):
        value = "".join(node.itertext()).strip()
        if not value:
            continue
        try:
            confidence = int(node.get("confidence") or -1)
        except ValueError:
            confidence = -1
        rows.append(((node.get("mdschema") or "").strip(), (node.get("element") or "").strip(),
                     (node.get("qualifier") or "").strip(), (node.get("lang") or "").strip(),
                     value, (node.get("authority") or "").strip(), confidence))
    return rows
