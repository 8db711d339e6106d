"""Handles (RFC 3650) and DSpace UUIDs as they are written in the wild. Pure: no Django.

A Handle is `<prefix>/<suffix>`: `123456789/42`. It is met bare, as `hdl:123456789/42`,
`info:hdl/123456789/42`, behind the global proxy (`http://hdl.handle.net/123456789/42`) or a
DSpace's own pages (`https://repositorio.example.br/handle/123456789/42`, jspui or xmlui).
Handles are case-insensitive in ASCII (RFC 3650 §3): they are compared in lower case.

    >>> [handle_of(t) for t in ("123456789/42", "hdl:123456789/42",
    ...     "http://hdl.handle.net/123456789/42", "https://r.example/xmlui/handle/1/2?x")]
    ['123456789/42', '123456789/42', '123456789/42', '1/2']
    >>> handle_of("https://example.org/page") is None
    True
    >>> uuid_of("https://demo.dspace.org/items/0b5b6c8a-8e8f-4a3e-9d9f-3f1c2b4a5d6e")
    '0b5b6c8a-8e8f-4a3e-9d9f-3f1c2b4a5d6e'
"""
from __future__ import annotations

import re
from urllib.parse import unquote, urlsplit

PROXY = "https://hdl.handle.net/"
# A prefix is digits and dots (0.NA/… aside, which names prefixes, not items: never an item);
# a suffix any printable characters but the separators of a URL path.
_HANDLE = re.compile(r"([0-9]+(?:\.[0-9]+)*)/([^\s/?#]+)")
_PROXIES = ("hdl.handle.net", "handle.net", "hdl.net")
UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def handle_of(text: str) -> str | None:
    """The Handle `text` names (lower case), or None when it names none."""
    value = (text or "").strip()
    lower = value.lower()
    for scheme in ("hdl:", "info:hdl/"):
        if lower.startswith(scheme):
            return _bare(value[len(scheme):])
    if lower.startswith(("http://", "https://")):
        parts = urlsplit(value)
        path = unquote(parts.path)
        if (parts.hostname or "").lower() in _PROXIES:
            return _bare(path.lstrip("/"))
        _before, found, after = path.partition("/handle/")
        return _bare(after, strict=False) if found else None
    return _bare(value)


def _bare(text: str, strict: bool = True) -> str | None:
    """`prefix/suffix` at the start of text (strict: and nothing after it)."""
    match = _HANDLE.match(text)
    if match is None or (strict and match.end() != len(text)):
        return None
    if match.group(1) == "0":  # 0/… and 0.NA/… are the prefix handles of the system itself
        return None
    return f"{match.group(1)}/{match.group(2)}".lower()


def uuid_of(text: str) -> str | None:
    """The UUID a value names: bare, `urn:uuid:…`, or the last segment of a DSpace 7 URL
    (`/items/<uuid>`, `/entities/<type>/<uuid>`, `/bitstreams/<uuid>[/download]`)."""
    value = (text or "").strip()
    if value.lower().startswith("urn:uuid:"):
        value = value[9:]
    elif value.lower().startswith(("http://", "https://")):
        segments = [s for s in urlsplit(value).path.split("/") if s]
        if segments and segments[-1] in ("download", "content"):
            segments.pop()
        if len(segments) < 2 or segments[-2] not in ("items", "bitstreams") and (
                len(segments) < 3 or segments[-3] != "entities"):
            return None
        value = segments[-1]
    return value.lower() if UUID.fullmatch(value) else None


def proxy_url(handle: str) -> str:
    """The Handle at the global proxy: what a citation prints."""
    return PROXY + handle
