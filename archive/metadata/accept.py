"""Which metadata format an HTTP Accept header asks for, as doi.org reads it; and the one reader
of the Accept and Accept-Language headers for the whole app (`best`, `languages`). Pure
(werkzeug's parser: q-values, wildcards, the more specific range first; ties go to the order
offered).

    >>> accept("application/x-bibtex")
    Wanted(format='bibtex', style='', locale='')
    >>> accept("text/x-bibliography; style=ieee; locale=pt-BR")
    Wanted(format='bibliography', style='ieee', locale='pt-BR')
    >>> accept("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8") is None
    True

None means the page: `text/html`, `*/*`, a family wildcard such as `application/*`, no header,
or only types no format has (``application/pdf`` may well be what the item's file is: the
resolver's redirect is the right answer then, never a 406).
"""
from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field

from werkzeug.datastructures import MIMEAccept
from werkzeug.http import parse_accept_header, parse_list_header, parse_options_header

from . import csl
from .csl import gettext_noop
from .formats import FORMATS

PAGE_TYPES = ("text/html", "application/xhtml+xml")
BIBLIOGRAPHY = "bibliography"  # not a format of its own: CSL-JSON rendered in a CSL style
BIBLIOGRAPHY_TYPE = "text/x-bibliography"
MAX_LENGTH = 4096  # longer Accept headers are no client's
MAX_LANGUAGES_LENGTH = 1000  # nor Accept-Language headers longer than this


class AcceptError(csl.CitationError):
    """An Accept header asking for what cannot be given (an unknown CSL style or locale); a
    `message` template and its `params`, as csl.CitationError."""


@dataclass(frozen=True)
class Wanted:
    format: str  # a name of FORMATS, or BIBLIOGRAPHY
    style: str = ""  # for BIBLIOGRAPHY: an installed CSL style and a locale
    locale: str = ""
    # CSL-JSON asked for by its media type: one item object, as doi.org answers it (a
    # download and :(csljson) give CSL-JSON's list of items).
    one: bool = field(default=False, repr=False)

    @property
    def metadata(self) -> str:
        """The format the answer is built from: a bibliography is rendered from CSL-JSON."""
        return "csljson" if self.format == BIBLIOGRAPHY else self.format

    @property
    def media_type(self) -> str:
        return BIBLIOGRAPHY_TYPE if self.format == BIBLIOGRAPHY else FORMATS[self.format].media_type


def best(header: str, offered: Sequence[str]) -> tuple[str, dict[str, str]] | None:
    """The offered media type the header prefers and the parameters the client gave with it
    (``style=apa``), or None when it accepts none of them."""
    if len(header) > MAX_LENGTH:
        raise AcceptError(gettext_noop("the Accept header is longer than %(max)s "
                                       "characters"), max=str(MAX_LENGTH))
    ranges: list[tuple[str, float]] = []
    parameters: dict[str, dict[str, str]] = {}
    for value, quality in parse_accept_header(header):
        media_range, options = parse_options_header(value)
        ranges.append((media_range.lower(), quality))
        parameters.setdefault(media_range.lower(), options)
    chosen = MIMEAccept(ranges).best_match(offered) if ranges else None
    return (chosen, parameters.get(chosen, {})) if chosen else None


def bibliography(options: dict[str, str]) -> Wanted:
    """The style and locale asked, checked: AcceptError when either is not installed."""
    try:
        style, locale = csl.check(options.get("style") or csl.DEFAULT_STYLE,
                                  options.get("locale") or csl.DEFAULT_LOCALE)
    except csl.CitationError as exc:
        raise AcceptError(exc.message, **exc.params) from None
    return Wanted(BIBLIOGRAPHY, style, locale)


@functools.lru_cache(maxsize=256)  # clients send a few Accept headers, again and again
def accept(header: str) -> Wanted | None:
    """What a persistent URL's Accept header asks for; None: the page (today's redirect)."""
    if not header.strip():
        return None
    offered = [*PAGE_TYPES, *(f.media_type for f in FORMATS.values()), BIBLIOGRAPHY_TYPE]
    found = best(header, offered)
    if found is None or found[0] in PAGE_TYPES:
        return None
    media_type, options = found
    if media_type == BIBLIOGRAPHY_TYPE:
        return bibliography(options)
    name = next(f.name for f in FORMATS.values() if f.media_type == media_type)
    return Wanted(name, one=name == "csljson")


@functools.lru_cache(maxsize=256)
def languages(header: str) -> list[tuple[str, float]]:
    """The language ranges of an Accept-Language header, lower case, best first, ranges of
    equal quality in the header's order; q=0 kept (it says "not this"). A range whose quality
    cannot be read is left out; a header longer than MAX_LANGUAGES_LENGTH names none.

        >>> languages("pt-BR, en;q=0.8, *;q=0.1, fr;q=0")
        [('pt-br', 1.0), ('en', 0.8), ('*', 0.1), ('fr', 0.0)]
    """
    if len(header) > MAX_LANGUAGES_LENGTH:
        return []
    ranges = []
    for item in parse_list_header(header):
        value, options = parse_options_header(item)
        try:
            quality = float(options.get("q", 1))
        except ValueError:
            continue
        if value and 0 <= quality <= 1:
            ranges.append((value.lower(), quality))
    return sorted(ranges, key=lambda found: -found[1])  # stable: the header's order in a tie
