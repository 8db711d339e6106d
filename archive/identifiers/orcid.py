"""ORCID iDs: the bare iD of a researcher, read from what a depositor types. Pure: no Django.

An iD is 16 characters in four groups, 0000-0002-1825-0097, whose last character is the
ISO 7064 MOD 11-2 check digit of the 15 digits before it ("X" stands for 10). The ORCID
URL and the iD with spaces instead of hyphens are accepted; the bare iD is what is kept::

    >>> normalize("https://orcid.org/0000-0002-1825-0097")
    '0000-0002-1825-0097'
    >>> check_digit("000000021825009")
    '7'
    >>> url("0000-0002-1694-233X")
    'https://orcid.org/0000-0002-1694-233X'
"""
from __future__ import annotations

import re

ORCID_URL = "https://orcid.org/"
_FORM = re.compile(r"[0-9]{4}-[0-9]{4}-[0-9]{4}-[0-9]{3}[0-9X]")
_PREFIX = re.compile(r"^(?:https?://(?:www\.)?orcid\.org/|orcid:)", re.IGNORECASE)


class OrcidError(ValueError):
    """Text that is no ORCID iD; `reason` says why ("form" or "check digit"), for the edges'
    translated messages."""

    def __init__(self, text: str, reason: str) -> None:
        super().__init__(f"{text!r} is not an ORCID iD: "
                         + ("its check digit is wrong" if reason == "check digit"
                            else "write it as 0000-0000-0000-000X"))
        self.text, self.reason = text, reason


def check_digit(base_digits: str) -> str:
    """ISO 7064 MOD 11-2 over the 15 base digits (ORCID's own algorithm)."""
    total = 0
    for digit in base_digits:
        total = (total + int(digit)) * 2
    result = (12 - total % 11) % 11
    return "X" if result == 10 else str(result)


def normalize(text: str) -> str:
    """The bare iD of text (an iD or its orcid.org URL), or OrcidError."""
    value = _PREFIX.sub("", text.strip()).replace(" ", "-").upper()
    if not _FORM.fullmatch(value):
        raise OrcidError(text, "form")
    digits = value.replace("-", "")
    if check_digit(digits[:15]) != digits[15]:
        raise OrcidError(text, "check digit")
    return value


def url(orcid: str) -> str:
    """The ORCID URL of a bare iD: what Signposting's author link and JSON-LD name."""
    return ORCID_URL + orcid
