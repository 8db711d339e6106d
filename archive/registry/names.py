"""A field's name, `schema.element.qualifier` (DSpace's and SAF's spelling), and a qualified
value as the edges give it. Pure: no database.

    >>> split("dc.contributor.advisor")
    ('dc', 'contributor', 'advisor')
    >>> split("dc.title")
    ('dc', 'title', '')
    >>> join("dc", "subject", "")
    'dc.subject'
    >>> split("title") is None
    True
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_NAME = re.compile(r"([A-Za-z][A-Za-z0-9_-]*)\.([A-Za-z][A-Za-z0-9_-]*)"
                   r"(?:\.([A-Za-z][A-Za-z0-9_-]*))?")


def split(name: str) -> tuple[str, str, str] | None:
    """(schema, element, qualifier) of a field's name ("" for no qualifier), or None when
    it is no field's name (a bare element, a space, a fourth part)."""
    found = _NAME.fullmatch(name.strip())
    if found is None:
        return None
    schema, element, qualifier = found.groups()
    return schema, element, qualifier or ""


def join(schema: str, element: str, qualifier: str = "") -> str:
    return ".".join(part for part in (schema, element, qualifier) if part)


@dataclass(frozen=True)
class Qualified:
    """One value of a field: its text, its language (a BCP 47 tag, "" for none), its
    authority id ("" for none) and DSpace's confidence in it (-1: unset)."""

    value: str
    language: str = ""
    authority: str = ""
    confidence: int = -1
