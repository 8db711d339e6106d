"""XML written as text, for the records a harvest page writes by the thousand (dim.py
`dim_text`, mtd3br.py `mtd3br_text`): building an lxml element per value costs more than the
rest of a record. A record's text becomes an element with `parse`, a page's the bytes of the
answer with `utf8` (parsing six megabytes to serialise them again would cost as much as
writing them).

    >>> escape('a < b & "c"\\r'), attribute('say "x"\\n')
    ('a &lt; b &amp; "c"&#13;', 'say &quot;x&quot;&#10;')
    >>> clean("a\\x00b\\x1fc")
    'abc'
"""
from __future__ import annotations

import re

from lxml import etree

# Characters XML 1.0 cannot carry (lxml refuses them): dropped. Never part of markup, so a
# whole record's text can be cleaned at once after its values were escaped.
NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


# The bytes of the C0 controls XML 1.0 refuses, and of U+FFFE and U+FFFF in UTF-8.
_CONTROLS = bytes(c for c in range(0x20) if c not in (0x9, 0xA, 0xD))
_NONCHARACTERS = (b"\xef\xbf\xbe", b"\xef\xbf\xbf")


def clean(text: str) -> str:
    """`text` without the characters XML cannot carry."""
    return NOT_XML.sub("", text)


def escape(value: str) -> str:
    """Character data: &, <, > escaped, and a carriage return kept (a parser would make it a
    line feed)."""
    return (value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace("\r", "&#13;"))


def attribute(value: str) -> str:
    """An attribute's value between double quotes: escaped, its white space kept (a parser
    would make a tab or a line break a space)."""
    return (escape(value).replace('"', "&quot;").replace("\n", "&#10;")
            .replace("\t", "&#9;"))


def parse(text: str) -> etree._Element:
    """The element `text` writes, without the characters XML cannot carry: parsed as it is
    first (libxml2 refuses every one of them, and scanning a page's six megabytes for them
    costs more than parsing it), cleaned and parsed again only when refused.

        >>> parse("<a>x\\x01y</a>").text
        'xy'
    """
    try:
        return etree.fromstring(text)
    except (etree.XMLSyntaxError, ValueError):
        return etree.fromstring(clean(text))


def utf8(text: str) -> bytes:
    """`text` in UTF-8 without the characters XML cannot carry, found in its bytes (a C0
    control, U+FFFE, U+FFFF; a lone surrogate cannot be encoded) at a fraction of the cost
    of scanning its characters: `clean` runs only when one is there.

        >>> utf8("a\\x01b\\ufffe\\ud800c"), utf8("ação")
        (b'abc', b'a\\xc3\\xa7\\xc3\\xa3o')
    """
    try:
        data = text.encode()
    except UnicodeEncodeError:
        return clean(text).encode()
    if len(data.translate(None, _CONTROLS)) != len(data) or any(
            found in data for found in _NONCHARACTERS):
        return clean(text).encode()
    return data
