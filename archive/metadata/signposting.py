"""FAIR Signposting (https://signposting.org/FAIR/), levels 1 and 2: the typed links of an item,
and their four serialisations. Pure: no Django.

One `Signposts` per item says where everything is; it gives the links of each resource a
reader can meet, all as `Link`s:

- `landing()`: the landing page /items/<ibi> (its context), and with `about_page=False` the
  persistent URL /<ibi>: ``cite-as`` the persistent URL, ``describedby`` each metadata format
  (type and profile), ``item`` each file (type), ``type`` (the schema.org class, and
  AboutPage for the page), ``license`` (dc:rights that are URLs), ``author`` (ORCID URLs),
  ``linkset`` (both media types). A tombstone's: cite-as, describedby, type and linkset only.
- `file(name)`: /col/<rep>/doc/<file>: ``collection`` the landing page, ``cite-as`` the
  file's own persistent URL /<ibi>/<file>; `file(name, of_item=True)`, what the file's own
  answer (and its persistent URL's redirect) says: those and the item's ``describedby``,
  ``author``, ``license`` and ``linkset``, so that a client that followed a persistent URL
  to the file finds the item's signposts there.
- `linkset()`: the link contexts of the RFC 9264 linkset: the landing page, each file, each
  metadata URL (``describes`` the landing page).

Serialisations: `to_header` (RFC 8288 Link header), `to_html` (<link> elements), `to_linkset_json`
(application/linkset+json) and `to_linkset_text` (application/linkset). In the two of the Link
header's syntax every target is a URI (`header_uri`: an IRI such as a licence URL with a
non-ASCII letter is percent-encoded, its host in IDNA), so that a header stays ASCII (Django
would send it RFC 2047-encoded, which no client reads as links); a target that cannot be an
http(s) URL is left out and logged::

    >>> from .formats import FORMATS
    >>> from .record import Record
    >>> r = Record(ibi="urlib.net/www/2021/06.03.15.31", ibip="8JMKD3MGPCW/44Q4UJH", title="T",
    ...            persistent_url="http://urlib.net/urlib.net/www/2021/06.03.15.31",
    ...            landing_url="http://a.org/items/urlib.net/www/2021/06.03.15.31")
    >>> s = Signposts(r, described=(("http://a.org/m.bib", FORMATS["bibtex"]),),
    ...               schema_type="Report")
    >>> print(to_header(s.landing(about_page=False)))
    <http://urlib.net/urlib.net/www/2021/06.03.15.31>; rel="cite-as", \
<http://a.org/m.bib>; rel="describedby"; type="application/x-bibtex", \
<https://schema.org/Report>; rel="type"
"""
from __future__ import annotations

import html
import logging
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import quote, urlsplit, urlunsplit

from .formats import Format
from .record import FileRef, Record

logger = logging.getLogger(__name__)

SCHEMA_ORG = "https://schema.org/"
ABOUT_PAGE = SCHEMA_ORG + "AboutPage"
ORCID = "https://orcid.org/"
LINKSET_JSON = "application/linkset+json"
LINKSET_TEXT = "application/linkset"
# Response headers past ~8 KB are refused by common reverse proxies (nginx's default buffer):
# an item with more files, or more authors with an ORCID iD, than this announces them in its
# linkset only.
MAX_HEADER_ITEMS = 20
# What may be repeated inside a quoted parameter or between <>: a media type without
# parameters, and an http(s) URL with nothing that could end the quoting.
_MEDIA_TYPE = re.compile(r"[a-z0-9][a-z0-9!#$&^_.+-]*/[a-z0-9][a-z0-9!#$&^_.+-]*")
_URL = re.compile(r"https?://[^\s<>\"'\\,;{}|^`]+")


@dataclass(frozen=True)
class Link:
    """One typed link: target, relation type and the target attributes Signposting uses."""

    href: str
    rel: str
    type: str = ""
    profile: str = ""


def media_type(stored: str) -> str:
    """The bare media type of a stored content type, or "" when it is none to repeat.

    >>> media_type("Text/Plain; charset=UTF-8"), media_type("not a type")
    ('text/plain', '')
    """
    bare = (stored or "").split(";")[0].strip().lower()
    return bare if _MEDIA_TYPE.fullmatch(bare) else ""


def license_urls(rights: Iterable[str]) -> list[str]:
    """The dc:rights values that are licence URLs (e.g. Creative Commons), in order."""
    return [value.strip() for value in rights if _URL.fullmatch(value.strip())]


def file_links(landing_url: str, persistent_url: str, name: str) -> list[Link]:
    """The links of one file of an item: the landing page it belongs to (collection), and its
    own persistent URL (cite-as), the item's with the file's name as its path (RTC-11 §8.1)."""
    return [Link(landing_url, "collection", "text/html"),
            Link(f"{persistent_url}/{quote(name)}", "cite-as")]


@dataclass(frozen=True)
class Signposts:
    """Where an item's resources are: its Record (persistent URL, landing page, files,
    creators, rights), the URL of each metadata format, its linksets and its schema.org class.
    """

    record: Record
    described: tuple[tuple[str, Format], ...] = ()  # (URL, format) per metadata format
    schema_type: str = "CreativeWork"  # a schema.org class name
    linkset_json: str = ""  # URLs of the linkset in each media type ("" when none)
    linkset_text: str = ""
    max_header_items: int = MAX_HEADER_ITEMS

    def landing(self, *, about_page: bool = True, header: bool = False) -> list[Link]:
        """The links of the landing page (about_page) or of the persistent URL. With `header`,
        an item with more than max_header_items files (or authors with an ORCID iD) lists
        them in its linkset only."""
        r = self.record
        links = [Link(r.persistent_url, "cite-as")]
        links += self._described()
        if not r.is_deleted:
            links += self._few([Link(f.url, "item", media_type(f.content_type))
                                for f in r.files], header)
            links += self._credits(header)
        links.append(Link(SCHEMA_ORG + self.schema_type, "type"))
        if about_page:
            links.append(Link(ABOUT_PAGE, "type"))
        return links + self._linksets()

    def _described(self) -> list[Link]:
        return [Link(url, "describedby", fmt.media_type, fmt.profile)
                for url, fmt in self.described]

    def _credits(self, header: bool) -> list[Link]:
        """author (ORCID URLs) and license (dc:rights that are URLs)."""
        r = self.record
        return (self._few([Link(ORCID + c.orcid, "author") for c in r.creators if c.orcid],
                          header)
                + [Link(url, "license") for url in license_urls(r.rights)])

    def _linksets(self) -> list[Link]:
        return [Link(url, "linkset", kind) for url, kind in (
            (self.linkset_json, LINKSET_JSON), (self.linkset_text, LINKSET_TEXT)) if url]

    def _few(self, links: list[Link], header: bool) -> list[Link]:
        """All links, or in a header none when there are more than it may hold."""
        return links if not header or len(links) <= self.max_header_items else []

    def file(self, name: str, *, of_item: bool = False) -> list[Link]:
        """The file's links; `of_item`: with the item's (its answer's Link header)."""
        links = file_links(self.record.landing_url, self.record.persistent_url, name)
        if of_item:
            links += self._described() + self._credits(header=True) + self._linksets()
        return links

    def linkset(self) -> list[tuple[str, list[Link]]]:
        """(anchor, links) per link context: the landing page, its files, its metadata."""
        r = self.record
        contexts: dict[str, list[Link]] = {
            r.landing_url: [link for link in self.landing() if link.rel != "linkset"]}
        files: Sequence[FileRef] = () if r.is_deleted else r.files
        for f in files:
            contexts.setdefault(f.url, []).extend(self.file(f.name))
        for url, _fmt in self.described:
            described = contexts.setdefault(url, [])
            if not any(link.rel == "describes" for link in described):
                described.append(Link(r.landing_url, "describes", "text/html"))
        return list(contexts.items())


# -- Serialisations ----------------------------------------------------------------------------

# RFC 3986's reserved and unreserved characters and "%": what an IRI keeps when it becomes a URI
# (RFC 3987 §3.1, as Django's iri_to_uri); everything else is percent-encoded as UTF-8.
_URI_SAFE = "/#%[]=:;$&()+,!?*@'~"


def header_uri(href: str) -> str | None:
    """`href` as a URI a header can carry, or None when it cannot be an http(s) URL (no host,
    a bad port, whitespace or control characters, credentials).

    >>> header_uri("https://licença.example/by/4.0/ライ?a=b c#x")
    'https://xn--licena-0ua.example/by/4.0/%E3%83%A9%E3%82%A4?a=b%20c#x'
    >>> header_uri("http:///no-host"), header_uri("javascript:alert(1)")
    (None, None)
    """
    if any(c.isspace() and c != " " or ord(c) < 0x20 or ord(c) == 0x7F for c in href):
        return None
    try:
        parts = urlsplit(href.strip())
        port = parts.port
        host = parts.hostname.encode("idna").decode("ascii") if parts.hostname else ""
    except (ValueError, UnicodeError):  # a port out of range, a host IDNA cannot write
        return None
    if parts.scheme.lower() not in ("http", "https") or not host or parts.username is not None:
        return None
    netloc = (f"[{host}]" if ":" in host else host) + (f":{port}" if port is not None else "")
    return urlunsplit((parts.scheme.lower(), netloc, quote(parts.path, safe=_URI_SAFE),
                       quote(parts.query, safe=_URI_SAFE), quote(parts.fragment, safe=_URI_SAFE)))


def _uris(links: Iterable[Link]) -> list[Link]:
    """The links whose targets can be URIs, with those URIs; the others left out, logged."""
    found = []
    for link in links:
        uri = header_uri(link.href)
        if uri is None:
            logger.warning("signposting: %r (rel %s) is no URL; left out of the Link header",
                           link.href, link.rel)
            continue
        found.append(Link(uri, link.rel, link.type, link.profile))
    return found


def _quoted(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _link_value(link: Link, anchor: str = "") -> str:
    params = [("anchor", anchor), ("rel", link.rel), ("type", link.type),
              ("profile", link.profile)]
    return f"<{link.href}>" + "".join(f"; {name}={_quoted(value)}"
                                      for name, value in params if value)


def to_header(links: Iterable[Link]) -> str:
    """The value of a Link header (RFC 8288 §3): links separated by commas, each target a URI
    (`header_uri`), those that cannot be left out."""
    return ", ".join(_link_value(link) for link in _uris(links))


# rel is a set of space-separated tokens (HTML, RFC 8288): "type " is the relation type `type`.
# Written so, extruct's Dublin Core reader, which takes a <link rel="type"> for DC.type and then
# fails on its missing `content` (extruct 0.18, uniform=True), passes it by; every Signposting
# client reads the token.
_HTML_REL = {"type": "type "}


def to_html(links: Iterable[Link]) -> str:
    """<link> elements for a page's <head>, one per line, every attribute escaped. HTML has
    no `profile` attribute on <link> (the Nu checker refuses it): a link's profile is in the
    Link header and the linkset, which name the same targets."""
    def attrs(link: Link) -> str:
        pairs = [("rel", _HTML_REL.get(link.rel, link.rel)), ("href", link.href),
                 ("type", link.type)]
        return " ".join(f'{name}="{html.escape(value)}"' for name, value in pairs if value)
    return "\n".join(f"<link {attrs(link)}>" for link in links)


def to_linkset_json(contexts: Iterable[tuple[str, list[Link]]]) -> dict:
    """RFC 9264 §4.2: {"linkset": [{"anchor": …, "<rel>": [{"href": …, "type": …}]}]}.
    `profile` is an extension target attribute, so an array of strings (§4.2.4.3)."""
    linkset = []
    for anchor, links in contexts:
        context: dict = {"anchor": anchor}
        for link in links:
            target: dict = {"href": link.href}
            if link.type:
                target["type"] = link.type
            if link.profile:
                target["profile"] = [link.profile]
            context.setdefault(link.rel, []).append(target)
        linkset.append(context)
    return {"linkset": linkset}


def to_linkset_text(contexts: Iterable[tuple[str, list[Link]]]) -> str:
    """RFC 9264 §4.1: the Link header's syntax, each link with its anchor, one per line."""
    return ",\n".join(_link_value(link, anchor) for anchor, links in contexts
                      for link in _uris(links)) + "\n"

