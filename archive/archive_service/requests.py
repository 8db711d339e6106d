"""Requests to the archive service (RTC-11 §6.1, Tables 8.9 and 8.11), read strictly.

`read_request` turns a raw query string into the subject and what it asks, or raises
ProtocolError saying what is wrong; archive/archive_service/answers.py answers. Pure Python: nothing
here touches the database.

    >>> subject, asked = read_request(
    ...     "servicesubject=urlRequest&clientinformation.ipaddress=150.163.2.175&"
    ...     "parsedibiurl.ibi=8JMKD3MGP7W/3EPGUE5")               # Example 6.1
    >>> subject, asked["ibi_text"], asked["client_ips"], asked["verbs"], asked["filepath"]
    ('urlRequest', '8JMKD3MGP7W/3EPGUE5', ['150.163.2.175'], (), None)
"""
from __future__ import annotations

import functools
import ipaddress
import re
import unicodedata
from urllib.parse import parse_qsl, urlencode, urlsplit

from ..identifiers import ibi as ibilib
from ..protocol import persistent_url
from ..protocol.pairs import Pair, decode_bytes, encode_value

SUBJECTS = ("inclusionConfirmationRequest", "urlRequest", "acknowledgment")
MAX_QUERY_LENGTH = 8192
LIMITS = {  # longest value accepted per pair name; others get _DEFAULT_LIMIT
    "clientinformation.ipaddress": 1000, "parsedibiurl.ibi": 255, "parsedibiurl.filepath": 1024,
    "parsedibiurl.verblist": 512, "url": 4096, "url.persistent": 4096, "urlkey": 64,
}
_DEFAULT_LIMIT = 600
_MAX_IPS = 32
_BROKEN_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_KEY = re.compile(r"[0-9]{10,}(?:-[0-9]{10,})?")  # Table 7.1
# The persistent-URL parser reads verb lists; it needs some IBI in front, any one will do.
_ANY_IBI_PATH = "/LK47B6W/362SFKH"


class ProtocolError(ValueError):
    """A request the archive service refuses: 400 with ``error {message}``."""


def read_query(query: str) -> dict[str, str]:
    """The pairs of a raw query string, strictly: ASCII, sound % escapes, one ``=`` per pair,
    every name once. Values are decoded byte for byte (ISO-8859-1) and checked per pair."""
    if len(query) > MAX_QUERY_LENGTH:
        raise ProtocolError(f"the query is longer than {MAX_QUERY_LENGTH} characters")
    if not query.isascii():
        raise ProtocolError("the query has non-ASCII characters: write them %XX (Table 6.1)")
    if broken := _BROKEN_ESCAPE.search(query):
        raise ProtocolError(f"broken % escape at {query[broken.start():broken.start() + 3]!r}")
    if any(field.count("=") != 1 for field in query.split("&")) and query:
        raise ProtocolError("every pair is name=value, joined by & (= in a value is %3D)")
    try:
        fields = parse_qsl(query, keep_blank_values=True, strict_parsing=True,
                           encoding="latin-1", errors="strict")
    except ValueError as exc:
        raise ProtocolError(f"malformed query: {exc}") from None
    found: dict[str, str] = {}
    for name, value in fields:
        if not name:
            raise ProtocolError("a pair has no name")
        if name in found:
            raise ProtocolError(f"{name} is given more than once")
        found[name] = value
    return found


def value(fields: dict[str, str], name: str, *, required: bool = True,
          ascii_only: bool = True) -> str | None:
    value = fields.get(name)
    if value is None:
        if required:
            raise ProtocolError(f"{name} is missing")
        return None
    if len(value) > LIMITS.get(name, _DEFAULT_LIMIT):
        raise ProtocolError(f"{name} is longer than {LIMITS.get(name, _DEFAULT_LIMIT)} "
                            "characters")
    if ascii_only and not value.isascii():
        raise ProtocolError(f"{name} has non-ASCII characters")
    if _CONTROL.search(value):
        raise ProtocolError(f"{name} has control characters")
    return value


def ip_list(text: str) -> list[str]:
    """Table 8.10: ``IP *(SP IP)``, the client first, then its proxies."""
    ips = text.split(" ")
    if len(ips) > _MAX_IPS:
        raise ProtocolError(f"clientinformation.ipaddress lists more than {_MAX_IPS} IPs")
    for ip in ips:
        if not _is_ip(ip):
            raise ProtocolError(f"clientinformation.ipaddress: {ip!r} is not an IP")
    return ips


@functools.lru_cache(maxsize=1024)  # the same readers and resolvers come back
def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def ibi(text: str, name: str) -> str:
    try:
        ibilib.parse(text)
    except ValueError as exc:
        raise ProtocolError(f"{name} is not an IBI: {exc}") from None
    return text


@functools.lru_cache(maxsize=256)  # a pure function of a short text from a small language
def verbs(text: str | None) -> tuple[str, ...]:
    if not text:
        return ()
    try:
        return persistent_url.parse(_ANY_IBI_PATH, urlencode({"ibiurl.verblist": text})).verbs
    except persistent_url.PersistentUrlError as exc:
        raise ProtocolError(f"parsedibiurl.verblist: {exc}") from None


def filepath(text: str | None) -> str | None:
    """A path-absolute (RFC 3986) as the query carried it, decoded once; never anything that
    could leave the item.

    `read_query` gave each byte of the value as one character (ISO-8859-1). Non-ASCII
    characters travel as the ``%XX`` of their bytes (§6.1), UTF-8 or, as in Example 6.2,
    ISO-8859-1: both are read (`decode_bytes`)::

        >>> filepath("/Relat\\xc3\\xb3rio Final.pdf"), filepath("/Relat\\xf3rio Final.pdf")
        ('/Relatório Final.pdf', '/Relatório Final.pdf')
    """
    if text in (None, "", "/"):
        return None
    if not text.startswith("/") or text.startswith("//"):
        raise ProtocolError("parsedibiurl.filepath is not a path such as /reference.bib")
    path = decode_bytes(text.encode("latin-1"))
    if "\\" in path or any(unicodedata.category(c) in ("Cc", "Cs") for c in path):
        raise ProtocolError("parsedibiurl.filepath has a backslash or a control character")
    if any(part in ("", ".", "..") for part in path[1:].split("/")):
        raise ProtocolError("parsedibiurl.filepath has an empty, '.' or '..' segment")
    return path


def forms_text(text: str) -> None:
    words = text.split(" ")
    if len(words) not in (2, 4) or words[0::2] not in (["rep"], ["ibip"], ["rep", "ibip"]):
        raise ProtocolError("ibi is not 'rep <name>', 'ibip <IBIp>' or both (Table 9.4)")
    for word in words[1::2]:
        ibi(word, "ibi")


def http_url(text: str, name: str) -> str:
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc or " " in parts.netloc:
        raise ProtocolError(f"{name} is not an http URL")
    return text


def relation_of(persistent: str) -> str:
    """The relation a persistent URL asked for: ``…/8JMKD3MGP8W/35MMLL8!:(oai_dc)`` →
    ``.lastedition.metadata(oai_dc)``."""
    parts = urlsplit(http_url(persistent, "url.persistent"))
    try:
        return persistent_url.parse(parts.path, parts.query).relation()
    except persistent_url.PersistentUrlError as exc:
        raise ProtocolError(f"url.persistent: {exc}") from None


def acknowledgment(fields: dict[str, str]) -> dict | None:
    """Table 8.11, read as far as it can be: what record_acknowledgment needs, or None when
    there is nothing to count (no urlkey of Table 7.1). Nothing else in it refuses it: every
    acknowledgment is answered alike (Algorithm 1, lines 19-20), and a persistent URL this
    Archive cannot read only leaves the relation unknown (the access counts for the item)."""
    try:
        urlkey = value(fields, "urlkey")
    except ProtocolError:
        return None
    if not _KEY.fullmatch(urlkey):
        return None
    try:
        ips = ip_list(value(fields, "clientinformation.ipaddress"))
    except ProtocolError:
        ips = []
    try:
        relation = relation_of(value(fields, "url.persistent", ascii_only=False))
    except ProtocolError:
        relation = ""
    return {"urlkey": urlkey, "client_ips": ips, "relation": relation}


def url_request(fields: dict[str, str]) -> dict:
    """Table 8.9, read; what url_request needs."""
    return {"client_ips": ip_list(value(fields, "clientinformation.ipaddress")),
            "ibi_text": ibi(value(fields, "parsedibiurl.ibi"), "parsedibiurl.ibi"),
            "verbs": verbs(value(fields, "parsedibiurl.verblist", required=False)),
            "filepath": filepath(value(fields, "parsedibiurl.filepath", required=False,
                                       ascii_only=False))}


def read_request(query: str) -> tuple[str, dict]:
    """(servicesubject, what it asks): for a urlRequest the keywords of
    archive_service.url_request, for an acknowledgment those of record_acknowledgment (None:
    nothing to count, the acknowledgment is answered all the same)."""
    try:
        fields = read_query(query)
    except ProtocolError:
        if "servicesubject=acknowledgment" in query.split("&"):
            return "acknowledgment", None  # answered alike, counted not
        raise
    subject = value(fields, "servicesubject")
    if subject == "urlRequest":
        return subject, url_request(fields)
    if subject == "acknowledgment":
        return subject, acknowledgment(fields)
    if subject == "inclusionConfirmationRequest":
        return subject, {}
    raise ProtocolError(f"unknown servicesubject {subject!r}: expected one of "
                        f"{', '.join(SUBJECTS)}")


def error_pairs(message: str) -> list[Pair]:
    """``error {words of message}``, each word escaped so that it stays one word."""
    return [("error", [encode_value(word) for word in message.split()] or ["error"])]
