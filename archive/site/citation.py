"""Citations of an item: BibTeX and an APA-like readable line. Pure functions on plain values.

    >>> c = Citation(title="Ensuring persistence", authors=["Banon, Gerald"], year="2009",
    ...              publisher="INPE", url="http://urlib.net/8JMKD3MGP8W/34PGRBS")
    >>> apa(c)
    'Banon, Gerald (2009). Ensuring persistence. INPE. http://urlib.net/8JMKD3MGP8W/34PGRBS'
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

# LaTeX's special characters, written so that BibTeX prints them literally.
_BIBTEX_ESCAPES = {
    "\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "#": r"\#", "$": r"\$", "%": r"\%",
    "&": r"\&", "_": r"\_", "^": r"\^{}", "~": r"\~{}",
}
_BIBTEX_SPECIAL = re.compile("|".join(re.escape(c) for c in _BIBTEX_ESCAPES))


@dataclass(frozen=True)
class Citation:
    title: str
    url: str
    authors: list[str] = field(default_factory=list)
    year: str = ""
    publisher: str = ""
    identifier: str = ""  # the IBI, as a note


def of_item(item, *, url: str, publisher: str) -> Citation:
    """The citation of an Item (duck-typed: title, ibi, created, dc(element)); `publisher` when
    the item names none; the year of its dc:date, else of its deposit."""
    publishers = item.dc("publisher")
    year = next((d[:4] for d in item.dc("date") if d[:4].isdigit()), str(item.created.year))
    return Citation(title=item.title, url=url, authors=item.dc("creator"), year=year,
                    publisher=publishers[0] if publishers else publisher, identifier=item.ibi)


def bibtex_escape(text: str) -> str:
    r"""`bibtex_escape("50% & {x}") == r"50\% \& \{x\}"`; line breaks become spaces."""
    text = " ".join(text.split())
    return _BIBTEX_SPECIAL.sub(lambda m: _BIBTEX_ESCAPES[m.group()], text)


def bibtex_key(c: Citation) -> str:
    """ASCII letters and digits only: the first author's surname, the year, a title word."""
    first = c.authors[0].split(",")[0] if c.authors else ""
    words = [first, c.year, *(c.title.split()[:1])]
    ascii_text = unicodedata.normalize("NFKD", "".join(words)).encode("ascii", "ignore").decode()
    return re.sub(r"[^A-Za-z0-9]", "", ascii_text).lower() or "item"


def bibtex(c: Citation) -> str:
    fields = [
        ("author", " and ".join(bibtex_escape(a) for a in c.authors)),
        ("title", bibtex_escape(c.title)),
        ("year", bibtex_escape(c.year)),
        ("publisher", bibtex_escape(c.publisher)),
        ("howpublished", rf"\url{{{c.url}}}"),
        ("url", c.url),
        ("note", f"IBI: {bibtex_escape(c.identifier)}" if c.identifier else ""),
    ]
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields if value)
    return f"@misc{{{bibtex_key(c)},\n{body}\n}}"


def _author_list(authors: list[str]) -> str:
    if len(authors) <= 1:
        return "".join(authors)
    return ", ".join(authors[:-1]) + ", & " + authors[-1]


def apa(c: Citation) -> str:
    """Authors (year). Title. Publisher. URL — the title leads when there is no author."""
    year = f"({c.year or 'n.d.'})"
    title = c.title.rstrip(".")
    head = f"{_author_list(c.authors)} {year}. {title}." if c.authors else f"{title}. {year}."
    parts = [head, f"{c.publisher.rstrip('.')}." if c.publisher else "", c.url]
    return " ".join(p for p in parts if p)
