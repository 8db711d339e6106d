"""RIS (Research Information Systems) of a Record: ``TAG  - value`` lines from TY to ER, as
EndNote, Zotero and Mendeley import them: TY from dc:type, an article's journal (T2 and JO),
VL, IS, SP, EP and DO (the DOI, bare), a thesis's university as PB, its degree as M3 and its
advisors as A3. Pure.

    >>> from .record import Creator, Record
    >>> text = to_text(Record(ibi="iconet.com.br/banon/2009/09.09.22.01", ibip="",
    ...       title="Ensuring persistence", date="2009-09-09", types=("Report",),
    ...       persistent_url="http://urlib.net/x", creators=(Creator("Banon, Gerald"),)))
    >>> lines = text.splitlines()
    >>> lines[:3], lines[-1]
    (['TY  - RPRT', 'AU  - Banon, Gerald', 'TI  - Ensuring persistence'], 'ER  - ')
"""
from __future__ import annotations

import re

from .kinds import kind_of
from .record import Record

_DATE = re.compile(r"([0-9]{4})(?:-([0-9]{2})(?:-([0-9]{2}))?)?")


# M3, the type of work: Zotero's thesis type.
_THESIS = {"doctoral": "Doctoral thesis", "masters": "Master's thesis",
           "bachelor": "Bachelor's thesis"}


def _line(tag: str, value: str) -> str:
    # One line per tag: a line break inside a value would start a bogus record line.
    return f"{tag}  - {' '.join(value.split())}"


def _date(date: str) -> str:
    """RIS's DA: ``YYYY/MM/DD`` with the parts known."""
    match = _DATE.match(date)
    return "/".join(part for part in match.groups() if part) if match else ""


def to_text(record: Record) -> str:
    """One RIS record, CRLF-free, ending with ``ER  - `` and a newline."""
    kind = kind_of(record.types).ris
    tags: list[tuple[str, str]] = [("TY", kind)]
    tags += [("AU", c.name) for c in record.creators]
    # A thesis's advisors and co-advisors are A3 (rispy's tertiary authors, EndNote's
    # "Advisor" of a thesis); every other contributor, the committee too, A2.
    advisors = [c.name for c in (*record.advisors, *record.co_advisors)]
    tags += [("A2", name) for name in (*(c.name for c in record.referees),
                                       *record.other_contributors)]
    tags += [("A3", name) for name in advisors]
    tags += [("TI", record.title), ("PY", record.year), ("DA", _date(record.date)),
             ("T2", record.container_title), ("VL", record.volume), ("IS", record.issue),
             ("SP", record.first_page), ("EP", record.last_page),
             ("PB", record.publisher), ("M3", _THESIS.get(record.degree, "")),
             ("LA", record.language), ("DO", record.doi)]
    if kind == "JOUR":
        # The journal again as JO, the abbreviation's tag that EndNote and rispy read as the
        # journal's name (`journal_name`) when T2 is not mapped.
        tags.append(("JO", record.container_title))
    tags += [("KW", subject) for subject in record.subjects]
    tags += [("AB", description) for description in record.descriptions[:1]]
    if kind == "RPRT":
        # A report's number is IS, the number of the record (EndNote's "Report Number"; rispy
        # reads it as `number`): SN is an ISBN or ISSN to every reader of RIS but Zotero.
        tags += [("IS", identifier) for identifier in record.identifiers[:1]]
    tags += [("UR", record.persistent_url), ("N1", f"IBI: {record.ibi}")]
    tags += [("N1", f"Handle: {handle}") for handle in record.handles]
    lines = [_line(tag, value) for tag, value in tags if value and value.strip()]
    return "\n".join([*lines, "ER  - ", ""])
