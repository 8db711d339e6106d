"""OAI-PMH 2.0 answers read as a harvester reads them, strictly: no database, no HTTP.

Why not a client library's parser: sickle (and its fork oaipmh-scythe) read a page with lxml's
`recover=True`, so a response cut off mid-record parses as the records before the cut, and a
harvest would record the list as complete. Here a page is well-formed OAI-PMH or an error
naming what is wrong; the tests read the same recorded answers with sickle itself.

Also read here: the file lists of DSpace's `ore` (an Atom entry whose
`ore:aggregates` links are the ORIGINAL bitstreams, with title, type and length) and `mets`
(the fileGrp USE="ORIGINAL", with SIZE and an MD5 CHECKSUM) formats, and oai_dc's elements.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

from django.utils.translation import gettext as _
from lxml import etree

NS = "http://www.openarchives.org/OAI/2.0/"
NS_DC = "http://purl.org/dc/elements/1.1/"
NS_ATOM = "http://www.w3.org/2005/Atom"
NS_METS = "http://www.loc.gov/METS/"
NS_XLINK = "http://www.w3.org/1999/xlink"
AGGREGATES = "http://www.openarchives.org/ore/terms/aggregates"
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                          huge_tree=False, recover=False)


class OaiError(ValueError):
    """An OAI-PMH error answer (`code`: badArgument, noRecordsMatch …) or an answer that is no
    OAI-PMH (`code` "")."""

    def __init__(self, message: str, code: str = "") -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Header:
    identifier: str
    datestamp: str
    deleted: bool = False
    sets: tuple[str, ...] = ()


@dataclass
class Page:
    """One answer: its records (header, metadata element or None), the next token."""

    records: list[tuple[Header, etree._Element | None]] = field(default_factory=list)
    token: str = ""
    size: int | None = None  # completeListSize, when the source says it
    root: etree._Element | None = None


def _q(tag: str, ns: str = NS) -> str:
    return f"{{{ns}}}{tag}"


def parse(body: bytes) -> Page:
    """An OAI-PMH answer, or OaiError (an <error>, malformed or truncated XML, no OAI-PMH)."""
    try:
        root = etree.fromstring(body, _PARSER)
    except etree.XMLSyntaxError as exc:
        raise OaiError(_("not well-formed XML (truncated?): %(reason)s") % {
            "reason": exc.msg}) from None
    if root.tag != _q("OAI-PMH"):
        raise OaiError(_("not an OAI-PMH answer: <%(tag)s>") % {"tag": root.tag})
    errors = root.findall(_q("error"))
    if errors:
        code = errors[0].get("code", "")
        raise OaiError(f"{code}: {(errors[0].text or '').strip()}", code)
    page = Page(root=root)
    for record in root.iter(_q("record")):
        header = record.find(_q("header"))
        if header is None:
            raise OaiError(_("a record without a header"))
        identifier = (header.findtext(_q("identifier")) or "").strip()
        datestamp = (header.findtext(_q("datestamp")) or "").strip()
        if not identifier or not datestamp:
            raise OaiError(_("a record without identifier or datestamp"))
        deleted = header.get("status") == "deleted"
        metadata = record.find(_q("metadata"))
        content = None
        if not deleted:
            if metadata is None or len(metadata) != 1:
                raise OaiError(_("the record %(id)s has no metadata") % {"id": identifier})
            content = metadata[0]
        page.records.append((Header(identifier, datestamp, deleted, tuple(
            (s.text or "").strip() for s in header.findall(_q("setSpec")))), content))
    token = root.find(f".//{_q('resumptionToken')}")
    if token is not None:
        page.token = (token.text or "").strip()
        size = token.get("completeListSize", "")
        page.size = int(size) if size.isdigit() else None
    return page


def identify(page: Page) -> dict[str, str]:
    """Identify's granularity and earliestDatestamp."""
    node = page.root.find(_q("Identify"))
    if node is None:
        raise OaiError(_("no Identify in the answer to Identify"))
    return {"granularity": (node.findtext(_q("granularity")) or "YYYY-MM-DD").strip(),
            "earliest": (node.findtext(_q("earliestDatestamp")) or "").strip()}


def metadata_prefixes(page: Page) -> list[str]:
    return [(n.text or "").strip() for n in page.root.iter(_q("metadataPrefix"))]


def dc_values(metadata: etree._Element) -> dict[str, list[str]]:
    """oai_dc's elements → their values, in order (empty ones left out)."""
    values: dict[str, list[str]] = {}
    for node in metadata:
        if isinstance(node.tag, str) and node.tag.startswith(f"{{{NS_DC}}}"):
            text = "".join(node.itertext()).strip()
            if text:
                values.setdefault(node.tag.split("}", 1)[1], []).append(text)
    return values


@dataclass(frozen=True)
class RemoteFile:
    url: str
    name: str
    content_type: str = ""
    size: int | None = None
    md5: str = ""


def _name(url: str, title: str) -> str:
    if title.strip():
        return title.strip()
    path = urlsplit(url).path.rstrip("/")
    if path.endswith("/download") or path.endswith("/content"):
        path = path.rsplit("/", 1)[0]
    return unquote(path.rsplit("/", 1)[-1])


def _size(text: str | None) -> int | None:
    text = (text or "").strip()
    return int(text) if text.isdigit() else None


def ore_files(entry: etree._Element) -> list[RemoteFile]:
    """The files an ORE ResourceMap (Atom entry, as DSpace's ore.xsl writes it) aggregates."""
    return [RemoteFile(url=link.get("href", "").strip(),
                       name=_name(link.get("href", ""), link.get("title", "")),
                       content_type=(link.get("type") or "").strip(),
                       size=_size(link.get("length")))
            for link in entry.iter(_q("link", NS_ATOM))
            if link.get("rel") == AGGREGATES and (link.get("href") or "").strip()]


def mets_files(mets: etree._Element) -> list[RemoteFile]:
    """The ORIGINAL bundle's files of a METS document (DSpace's mets.xsl / METS export)."""
    files = []
    for group in mets.iter(_q("fileGrp", NS_METS)):
        if (group.get("USE") or "").upper() not in ("ORIGINAL", "CONTENT"):
            continue
        for node in group.iter(_q("file", NS_METS)):
            location = node.find(_q("FLocat", NS_METS))
            url = (location.get(_q("href", NS_XLINK)) or "").strip() if location is not None \
                else ""
            if not url:
                continue
            title = (location.get(_q("title", NS_XLINK)) or "") if location is not None else ""
            files.append(RemoteFile(
                url=url, name=_name(url, title), content_type=node.get("MIMETYPE", ""),
                size=_size(node.get("SIZE")),
                md5=(node.get("CHECKSUM", "") if node.get("CHECKSUMTYPE", "").upper() == "MD5"
                     else "").lower()))
    return files
