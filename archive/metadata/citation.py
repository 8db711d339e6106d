"""The APA-like readable citation line of an item's pages. Pure functions on plain values.
(BibTeX, CSL citations and the other formats: archive/metadata, built from the item's Record.)

    >>> c = Citation(title="Ensuring persistence", authors=["Banon, Gerald"], year="2009",
    ...              publisher="INPE", url="http://urlib.net/8JMKD3MGP8W/34PGRBS")
    >>> apa(c)
    'Banon, Gerald (2009). Ensuring persistence. INPE. http://urlib.net/8JMKD3MGP8W/34PGRBS'
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Citation:
    title: str
    url: str
    authors: list[str] = field(default_factory=list)
    year: str = ""
    publisher: str = ""
    identifier: str = ""  # the IBI, as a note


def of_item(item, *, url: str, publisher: str) -> Citation:
    """The citation of an Item (duck-typed: title, ibi, created, dc(element),
    creators_withdrawn); `publisher` when the item names none; the year of its dc:date, else
    of its deposit; no authors when they asked for its removal."""
    publishers = item.dc("publisher")
    year = next((d[:4] for d in item.dc("date") if d[:4].isdigit()), str(item.created.year))
    authors = [] if getattr(item, "creators_withdrawn", False) else item.dc("creator")
    return Citation(title=item.title, url=url, authors=authors, year=year,
                    publisher=publishers[0] if publishers else publisher, identifier=item.ibi)


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
