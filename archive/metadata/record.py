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

from dataclasses import dataclass
from datetime import date, datetime


@dataclass(frozen=True)
class Creator:
    """A creator as deposited, "Family, Given" (or one name), with an ORCID iD when known."""

    name: str
    orcid: str = ""  # the bare iD, e.g. "0000-0002-1825-0097"

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
    publisher: str = ""  # the item's, else the repository's
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

    @property
    def year(self) -> str:
        return self.date[:4] if self.date[:4].isdigit() else ""

    @property
    def is_deleted(self) -> bool:
        return self.state == "Deleted"
