"""A Record in one of FORMATS (or as a bibliography), as the bytes and Content-Type an answer
carries. Pure. oai_dc is not here: it is built from an item's whole Dublin Core (oai_dc.py),
as OAI-PMH and the item's metadata pages give it (responses.py).

    >>> from .record import Record
    >>> body, content_type = serialize(Record(ibi="x", ibip="", title="T",
    ...                                       persistent_url="http://h/x"), "ris")
    >>> content_type, body.splitlines()[0]
    ('application/x-research-info-systems; charset=utf-8', b'TY  - GEN')
"""
from __future__ import annotations

import json
from collections.abc import Callable

from . import bibtex, csl, datacite, ris, schemaorg
from .accept import BIBLIOGRAPHY, BIBLIOGRAPHY_TYPE, Wanted
from .formats import FORMATS
from .record import Record


def _json(document: object) -> bytes:
    return json.dumps(document, ensure_ascii=False, indent=2).encode()


WRITERS: dict[str, Callable[[Record], bytes]] = {
    "csljson": lambda r: _json(csl.items(r)),
    "bibtex": lambda r: bibtex.entry(r).encode() + b"\n",
    "ris": lambda r: ris.to_text(r).encode(),
    "schemaorg": lambda r: _json(schemaorg.to_dict(r)),
    "datacite": datacite.to_bytes,
}
_TEXT = ("bibtex", "ris")  # text/… -like types without a charset of their own


def content_type(name: str) -> str:
    media_type = FORMATS[name].media_type
    return f"{media_type}; charset=utf-8" if name in _TEXT or media_type.endswith("xml") else (
        media_type)


def serialize(record: Record, name: str) -> tuple[bytes, str]:
    """(body, Content-Type) of the record in a format of WRITERS (KeyError for others)."""
    return WRITERS[name](record), content_type(name)


def cite(record: Record, wanted: Wanted) -> tuple[bytes, str]:
    """(body, Content-Type) of what an Accept header wanted: a format, or a bibliography
    (csl.CitationError when the style cannot be rendered)."""
    if wanted.format == BIBLIOGRAPHY:
        text = csl.bibliography(record, wanted.style, wanted.locale)
        return text.encode() + b"\n", f"{BIBLIOGRAPHY_TYPE}; charset=utf-8"
    if wanted.format == "csljson" and wanted.one:
        return _json(csl.item(record)), content_type("csljson")
    return serialize(record, wanted.format)
