"""DSpace's Simple Archive Format, read and written as DSpace's ItemExport writes it and its
ItemImport reads it (dspace-api org.dspace.app.itemimport / itemexport). No database.

One folder per item::

    item_000/dublin_core.xml      <dublin_core schema="dc"><dcvalue element="contributor"
                                    qualifier="author" language="pt_BR" authority="…"
                                    confidence="600">Banon, G.</dcvalue>…
    item_000/metadata_dcterms.xml the same, for another schema (schema="dcterms", "local" …)
    item_000/contents             one file a line; after a tab, options separated by tabs:
                                    tese.pdf<TAB>bundle:ORIGINAL<TAB>primary:true
                                    license.txt<TAB>bundle:LICENSE
                                    tese.pdf.jpg<TAB>bundle:THUMBNAIL
                                    data.csv<TAB>permissions:-r 'Anonymous'<TAB>description:…
    item_000/handle               123456789/42
    item_000/collections          the Handles of the collections holding it, the owning one
                                    first (placement.py)
    item_000/tese.pdf …           the files the contents name

A qualifier "none" or "" is no qualifier (ItemImport's addDCValue); a line of `contents`
without `bundle:` is in LICENSE when its name is license.txt, else in ORIGINAL (its
processContentFileEntry). Lines registering a file already in an asset store (`-r -s n -f
path`) name bytes that are not in the package, so they are refused.

    >>> [(v.element, v.qualifier, v.language, v.value) for v in read_metadata(
    ...     b'<dublin_core><dcvalue element="title" qualifier="none">T</dcvalue></dublin_core>')]
    [('title', '', '', 'T')]
    >>> read_contents("tese.pdf\\tbundle:ORIGINAL\\tprimary:true \\n")[0].primary
    True
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from django.utils.translation import gettext as _
from lxml import etree

DUBLIN_CORE = "dublin_core.xml"
CONTENTS = "contents"
HANDLE = "handle"
COLLECTIONS = "collections"
METADATA_FILE = re.compile(r"metadata_([A-Za-z0-9_-]+)\.xml")
ORIGINAL = "ORIGINAL"
# The bundles an import keeps, each as such (models/files.py): the work's files, the text
# DSpace extracted from them, their thumbnails, the deposit licence. Any other (CC-LICENSE,
# BRANDED_PREVIEW …) is skipped and counted.
KEPT_BUNDLES = (ORIGINAL, "TEXT", "THUMBNAIL", "LICENSE")
# A metadata file is a few kB; a megabyte is far beyond any DSpace item's.
MAX_METADATA_BYTES = 4 * 1024 * 1024


class SafError(ValueError):
    """A part of an item's package that cannot be read; `where` names the file and line."""

    def __init__(self, message: str, where: str = "") -> None:
        super().__init__(message)
        self.where = where


@dataclass(frozen=True)
class MetadataValue:
    """One <dcvalue>: schema.element.qualifier[language] = value."""

    schema: str
    element: str
    qualifier: str
    language: str
    value: str
    authority: str = ""  # DSpace's authority key (an ORCID iD, a Lattes id, a UUID…)
    confidence: int = -1  # DSpace's Choices.CF_*: -1 unset … 600 accepted

    @property
    def field(self) -> str:
        """`dc.contributor.author`, `dc.title`."""
        return ".".join(p for p in (self.schema, self.element, self.qualifier) if p)


@dataclass(frozen=True)
class ContentLine:
    """One line of `contents`: a file, its bundle and options, and where it was read."""

    name: str
    bundle: str
    primary: bool = False
    description: str = ""
    permissions: str = ""  # as written, e.g. "-r 'Anonymous'"
    line: int = 0


# An XML parser for untrusted files: no entities, no network, no DTD, no recovery (a truncated
# file is an error, never half its values).
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                          huge_tree=False, recover=False, remove_comments=True)


def parse_xml(data: bytes, where: str) -> etree._Element:
    """A well-formed XML document's root, or SafError naming the file and the line."""
    if len(data) > MAX_METADATA_BYTES:
        raise SafError(_("larger than %(count)d bytes") % {"count": MAX_METADATA_BYTES}, where)
    try:
        return etree.fromstring(data, _PARSER)
    except etree.XMLSyntaxError as exc:
        line = exc.lineno or 0
        raise SafError(_("malformed XML: %(reason)s") % {"reason": exc.msg},
                       f"{where}:{line}" if line else where) from None


def read_metadata(data: bytes, where: str = DUBLIN_CORE) -> list[MetadataValue]:
    """The values of a dublin_core.xml or metadata_<schema>.xml (schema "dc" by default)."""
    root = parse_xml(data, where)
    if root.tag != "dublin_core":
        raise SafError(_("the root element is <%(tag)s>, not <dublin_core>")
                       % {"tag": root.tag}, where)
    schema = (root.get("schema") or "dc").strip()
    values = []
    for node in root:
        if node.tag != "dcvalue":
            raise SafError(_("<%(tag)s> where a <dcvalue> was expected") % {"tag": node.tag},
                           f"{where}:{node.sourceline}")
        element = (node.get("element") or "").strip()
        if not element:
            raise SafError(_("a <dcvalue> without an element"), f"{where}:{node.sourceline}")
        qualifier = (node.get("qualifier") or "").strip()
        value = "".join(node.itertext()).strip()
        confidence = (node.get("confidence") or "").strip()
        try:
            confidence_number = int(confidence) if confidence else -1
        except ValueError:
            raise SafError(_("confidence %(value)r is not a number") % {"value": confidence},
                           f"{where}:{node.sourceline}") from None
        if value:  # ItemImport skips empty values too
            values.append(MetadataValue(
                schema, element, "" if qualifier == "none" else qualifier,
                (node.get("language") or "").strip(), value,
                (node.get("authority") or "").strip(), confidence_number))
    return values


def read_contents(text: str, where: str = CONTENTS) -> list[ContentLine]:
    """The files a `contents` file names, in order; SafError for a line it cannot take."""
    lines = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        if raw.strip().startswith("-r "):
            raise SafError(_("a registered bitstream (-r) names bytes outside the package"),
                           f"{where}:{number}")
        name, *options = raw.split("\t")
        name = name.strip()
        fields = {"bundle": "", "description": "", "permissions": "", "primary": ""}
        for option in options:
            key, colon, value = option.partition(":")
            if colon and key.strip() in fields:
                fields[key.strip()] = value.strip()
        bundle = fields["bundle"] or ("LICENSE" if name == "license.txt" else ORIGINAL)
        lines.append(ContentLine(name=name, bundle=bundle,
                                 primary=fields["primary"].lower() == "true",
                                 description=fields["description"],
                                 permissions=fields["permissions"], line=number))
    return lines


def first_line(text: str) -> str:
    """The value of a `handle` file: its first line (ItemImport's processHandleFile)."""
    return (text.splitlines() or [""])[0].strip()


# -- Writing, as ItemExport writes --------------------------------------------------------------

def metadata_xml(schema: str, values: Iterable[tuple]) -> bytes:
    """A dublin_core.xml (schema "dc") or metadata_<schema>.xml of (element, qualifier,
    language, value[, authority, confidence]), as ItemExport's writeMetadata writes it:
    qualifier "none" for none; authority and confidence only for a value with an authority."""
    root = etree.Element("dublin_core", schema=schema)
    for element, qualifier, language, value, *more in values:
        node = etree.SubElement(root, "dcvalue", element=element, qualifier=qualifier or "none")
        if language:
            node.set("language", language)
        authority, confidence = (more + ["", -1])[:2]
        if authority:
            node.set("authority", authority)
            node.set("confidence", str(confidence))
        node.text = value
    return etree.tostring(root, xml_declaration=True, encoding="utf-8", standalone=False,
                          pretty_print=True)


def contents_text(lines: Iterable[ContentLine]) -> str:
    """`contents` as ItemExport's writeBitstreams writes it."""
    out = []
    for line in lines:
        text = f"{line.name}\tbundle:{line.bundle}"
        if line.primary:
            text += "\tprimary:true"
        if line.permissions:
            text += f"\tpermissions:{line.permissions}"
        if line.description:
            text += f"\tdescription:{' '.join(line.description.split())}"
        out.append(text + "\n")
    return "".join(out)
