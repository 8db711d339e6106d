"""The one description of an item that every metadata format is built from. Pure: no Django.

A format (CSL-JSON, BibTeX, RIS, DataCite, schema.org, oai_dc, …) is a function of a Record,
so that a persistent URL, the landing page, the archive service and OAI-PMH always say the
same thing of an item::

    >>> r = Record(ibi="sid.inpe.br/mtc-m19/2013/09.04.12.27.57", ibip="8JMKD3MGP7W/3EPGUE5",
    ...            title="Relatório", persistent_url="http://urlib.net/8JMKD3MGP7W/3EPGUE5",
    ...            creators=(Creator("Banon, Gerald J. F."),), date="2013-09-04")
    >>> r.year, r.creators[0].family, r.creators[0].given
    ('2013', 'Banon', 'Gerald J. F.')
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime

# A DOI as dc:identifier holds it: bare, "doi:10…" or a doi.org URL (Crossref's display form).
_DOI = re.compile(r"^(?:doi:\s*|https?://(?:dx\.)?doi\.org/)?(10\.[0-9]{4,9}/\S+)$", re.IGNORECASE)


def doi(identifier: str) -> str:
    """The bare DOI an identifier names, else "".

    >>> doi("https://doi.org/10.1000/182"), doi("doi:10.1000/182"), doi("INPE-1234")
    ('10.1000/182', '10.1000/182', '')
    """
    found = _DOI.match(identifier.strip())
    return found.group(1) if found else ""


@dataclass(frozen=True)
class Creator:
    """A creator (or a thesis's advisor, a committee member) as deposited, "Family, Given"
    (or one name), with an ORCID iD and a Lattes CV id when known."""

    name: str
    orcid: str = ""  # the bare iD, e.g. "0000-0002-1825-0097"
    lattes: str = ""  # the bare 16 digits of a Lattes CV, e.g. "4727357182510680"

    @property
    def family(self) -> str:
        return self.name.split(",", 1)[0].strip()

    @property
    def given(self) -> str:
        return self.name.split(",", 1)[1].strip() if "," in self.name else ""


@dataclass(frozen=True)
class FileRef:
    name: str
    url: str  # where the bytes are served, /col/<repository name>/doc/<name>
    size: int = 0
    content_type: str = "application/octet-stream"
    sha256: str = ""


@dataclass(frozen=True)
class Record:
    ibi: str  # the repository name
    ibip: str  # its opaque twin
    title: str
    persistent_url: str  # http://<resolver>/<repository name>: what a citation points at
    landing_url: str = ""
    creators: tuple[Creator, ...] = ()
    contributors: tuple[str, ...] = ()
    subjects: tuple[str, ...] = ()
    descriptions: tuple[str, ...] = ()
    publisher: str = ""  # dc.publisher, else the configured repository name, else none
    publisher_place: str = ""  # where it was published (ABNT's "São José dos Campos: INPE")
    date: str = ""  # dc:date as deposited (ISO 8601 / EDTF), else the deposit's date
    language: str = ""  # BCP 47
    types: tuple[str, ...] = ()  # dc:type values
    rights: tuple[str, ...] = ()
    identifiers: tuple[str, ...] = ()  # other dc:identifier values (a report number, …)
    relations: tuple[str, ...] = ()
    formats: tuple[str, ...] = ()
    # The files open to all (archive/access/policy.py): a Record is public, whoever reads it.
    files: tuple[FileRef, ...] = ()
    # The item's access level (a COAR access right), and the first day an embargo is over.
    access_rights: str = "open"
    embargo_until: date | None = None
    some_closed: bool = False  # a file is not open to all (a restricted file of an open item)
    created: datetime | None = None  # deposited (aware UTC)
    updated: datetime | None = None
    state: str = "Original"  # Original, Copy or Deleted
    deleted_at: datetime | None = None
    deletion_reason: str = ""
    edition_number: int = 1
    previous_edition: str = ""  # persistent URLs of the neighbours in the edition chain
    next_edition: str = ""
    translation_of: str = ""
    # Handles it had before it came here (archive/dspace/), e.g. "123456789/42": cited still.
    handles: tuple[str, ...] = ()
    # From the qualified fields (citing.py): the journal (book, proceedings) it appeared in,
    # where in it, and a thesis's degree ("doctoral", "masters", "bachelor").
    container_title: str = ""
    volume: str = ""
    issue: str = ""
    first_page: str = ""
    last_page: str = ""
    degree: str = ""
    # A thesis's people and where it was defended, from MTD-BR's qualified fields (citing.py
    # `thesis`): advisors (dc.contributor.advisor), co-advisors (.advisor-co), the examining
    # committee (.referee), the graduate programme, its department, the institution's acronym,
    # the degree's name (local.degree.name) and CNPq knowledge areas (dc.subject.cnpq). The
    # institution itself is the publisher (dc.publisher).
    advisors: tuple[Creator, ...] = ()
    co_advisors: tuple[Creator, ...] = ()
    referees: tuple[Creator, ...] = ()
    programme: str = ""
    department: str = ""
    institution_acronym: str = ""
    degree_name: str = ""
    knowledge_areas: tuple[str, ...] = ()

    @property
    def doi(self) -> str:
        """The first dc:identifier that is a DOI, bare (10.x/…)."""
        return next((found for found in map(doi, self.identifiers) if found), "")

    @property
    def other_contributors(self) -> tuple[str, ...]:
        """The dc:contributor values that are no advisor, co-advisor or committee member (a
        thesis's people are given with their roles and ids where a format has them)."""
        named = [c.name for c in (*self.advisors, *self.co_advisors, *self.referees)]
        others = []
        for name in self.contributors:
            if name in named:
                named.remove(name)
            else:
                others.append(name)
        return tuple(others)

    @property
    def pages(self) -> str:
        """"101-118", "101", or ""."""
        return "-".join(p for p in (self.first_page, self.last_page) if p)

    @property
    def year(self) -> str:
        return self.date[:4] if self.date[:4].isdigit() else ""

    @property
    def is_deleted(self) -> bool:
        return self.state == "Deleted"
