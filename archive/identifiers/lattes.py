"""Lattes CV ids: the 16 digits of a researcher's curriculum on CNPq's Plataforma Lattes
(http://lattes.cnpq.br/<id>). Pure: no Django. The id has no check digit; its form is all
there is to check. The CV's URL is accepted; the bare id is what is kept::

    >>> normalize("http://lattes.cnpq.br/4727357182510680")
    '4727357182510680'
    >>> url("4727357182510680")
    'http://lattes.cnpq.br/4727357182510680'
"""
from __future__ import annotations

import re

LATTES_URL = "http://lattes.cnpq.br/"
_FORM = re.compile(r"[0-9]{16}")
_PREFIX = re.compile(r"^(?:https?://(?:www\.)?lattes\.cnpq\.br/|lattes:)", re.IGNORECASE)


class LattesError(ValueError):
    """Text that is no Lattes CV id."""

    def __init__(self, text: str) -> None:
        super().__init__(f"{text!r} is not a Lattes CV id: it has 16 digits")
        self.text = text


def is_lattes(text: str) -> bool:
    """Whether text says it is a Lattes id (its URL or prefix), whatever its form."""
    return bool(_PREFIX.match(text.strip()))


def normalize(text: str) -> str:
    """The bare 16 digits of text (an id or its CV's URL), or LattesError."""
    value = _PREFIX.sub("", text.strip()).rstrip("/")
    if not _FORM.fullmatch(value):
        raise LattesError(text)
    return value


def url(lattes: str) -> str:
    """The CV's URL of a bare id."""
    return LATTES_URL + lattes
