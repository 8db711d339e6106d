"""An authority id as a value keeps it: an ORCID iD (its check digit right), a Lattes CV id
(16 digits), or another authority's key, kept as given (a DSpace UUID, a SHERPA id…), so that
what a DSpace export holds comes back as it was.

Text that looks like an ORCID iD or a Lattes id (digits and hyphens, or their URLs) must be a
right one: 0000-0002-1825-0096 is refused for its check digit, 12345 for its form.

    >>> clean("https://orcid.org/0000-0002-1825-0097")
    '0000-0002-1825-0097'
    >>> clean("http://lattes.cnpq.br/4727357182510680")
    '4727357182510680'
    >>> clean("3c2a1b4e-9d1f-4f0a-8f43-5b6c7d8e9f00")
    '3c2a1b4e-9d1f-4f0a-8f43-5b6c7d8e9f00'
    >>> clean("0000-0002-1825-0096")  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    BadAuthority: '0000-0002-1825-0096' is not an ORCID iD: its check digit is wrong
"""
from __future__ import annotations

import re

from ..identifiers import lattes, orcid

# Digits, hyphens and X only: an ORCID iD or a Lattes id, or a mistyped one.
_ID_LIKE = re.compile(r"[0-9X -]+", re.IGNORECASE)
_ORCID_LIKE = re.compile(r"^(?:https?://(?:www\.)?orcid\.org/|orcid:)", re.IGNORECASE)


class BadAuthority(ValueError):
    """An authority id that claims to be an ORCID iD or a Lattes id and is not one; `kind`
    ("ORCID" or "Lattes") and `reason` ("form", "check digit") say why, for the edges'
    translated messages."""

    def __init__(self, text: str, kind: str, reason: str) -> None:
        detail = ("its check digit is wrong" if reason == "check digit"
                  else "write it as 0000-0000-0000-000X" if kind == "ORCID"
                  else "a Lattes CV id has 16 digits")
        super().__init__(f"{text!r} is not {'an ORCID iD' if kind == 'ORCID' else 'a Lattes CV id'}"
                         f": {detail}")
        self.text, self.kind, self.reason = text, kind, reason


def clean(text: str) -> str:
    """The authority id as kept (bare ORCID iD, bare Lattes id, or the key as given), "" for
    none, or BadAuthority."""
    value = (text or "").strip()
    if not value:
        return ""
    if lattes.is_lattes(value):
        return _lattes(value)
    if _ORCID_LIKE.match(value):
        return _orcid(value)
    if _ID_LIKE.fullmatch(value):
        digits = re.sub(r"[^0-9X]", "", value.upper())
        if "-" in value or " " in value or "X" in digits or len(digits) != 16:
            return _orcid(value) if len(digits) == 16 else _fail(value, digits)
        # 16 bare digits: a Lattes id (an ORCID iD is written with its hyphens).
        return _lattes(value)
    return value


def _fail(value: str, digits: str) -> str:
    kind = "ORCID" if "-" in value else "Lattes"
    raise BadAuthority(value, kind, "form")


def _orcid(value: str) -> str:
    try:
        return orcid.normalize(value)
    except orcid.OrcidError as exc:
        raise BadAuthority(value, "ORCID", exc.reason) from None


def _lattes(value: str) -> str:
    try:
        return lattes.normalize(value)
    except lattes.LattesError:
        raise BadAuthority(value, "Lattes", "form") from None
