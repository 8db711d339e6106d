"""Highwire Press `citation_*` meta tags of a Record, the only metadata Google Scholar reads
from a landing page (https://scholar.google.com/intl/en/scholar/inclusion.html#indexing). Pure.

Which tags, from what:

- citation_title; citation_author, one per creator as deposited ("Family, Given"), each
  followed by its citation_author_orcid when known;
- citation_publication_date: dc:date as YYYY/MM/DD, YYYY/MM or YYYY (Scholar's form);
- citation_pdf_url: every PDF file, the target file first; citation_language; citation_publisher;
  citation_keywords, one per subject; citation_doi for a dc:identifier that is a DOI;
- citation_journal_title (citation_inbook_title for a chapter or paper), citation_volume,
  citation_issue, citation_firstpage, citation_lastpage (citing.py); for a thesis,
  citation_dissertation_institution, the publisher;
- citation_technical_report_number: for a report (dc:type as kinds.py reads it, e.g.
  "Technical report" or "Relatório técnico"), each dc:identifier that is a report number:
  no URL, URN, DOI, ISBN or ISSN, but a code with a digit such as "INPE-15678-RPQ/819";
  with it citation_technical_report_institution, the publisher;
- citation_public_url, the persistent URL; citation_abstract_html_url, the landing page.

    >>> from .record import Creator, Record
    >>> r = Record(ibi="sid.inpe.br/mtc-m19/2013/09.04.12.27.57", ibip="8JMKD3MGP7W/3EPGUE5",
    ...            title="Relatório", persistent_url="http://urlib.net/8JMKD3MGP7W/3EPGUE5",
    ...            creators=(Creator("Banon, Gerald"),), date="2013-09-04",
    ...            types=("Relatório técnico",), identifiers=("INPE-15678-RPQ/819",))
    >>> [(name, value) for name, value in tags(r) if "date" in name or "report" in name]
    [('citation_publication_date', '2013/09/04'), ('citation_technical_report_number', \
'INPE-15678-RPQ/819')]
"""
from __future__ import annotations

import re

from .kinds import kind_of
from .record import Record, doi

_DATE = re.compile(r"([0-9]{4})(?:-([0-9]{2})(?:-([0-9]{2}))?)?")
_NOT_A_REPORT_NUMBER = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|10\.[0-9]{4,9}/|isbn|issn)",
                                  re.IGNORECASE)
_REPORT_NUMBER = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ./_-]{0,99}")


def publication_date(date: str) -> str:
    """dc:date (ISO 8601 / EDTF) as Highwire writes it; "" for what is no date.

    >>> publication_date("2009-02-16T10:00Z"), publication_date("2009-02"), publication_date("")
    ('2009/02/16', '2009/02', '')
    """
    found = _DATE.match(date.strip())
    return "/".join(part for part in found.groups() if part) if found else ""


def is_report(record: Record) -> bool:
    """Whether dc:type makes the item a report, as every other format reads it (kinds.py)."""
    return kind_of(record.types).schemaorg == "Report"


def report_numbers(record: Record) -> list[str]:
    """The dc:identifier values of a report that are report numbers (see the module's doc)."""
    if not is_report(record):
        return []
    return [value.strip() for value in record.identifiers
            if _REPORT_NUMBER.fullmatch(value.strip()) and any(c.isdigit() for c in value)
            and not _NOT_A_REPORT_NUMBER.match(value.strip())]


def tags(record: Record, target_file: str = "") -> list[tuple[str, str]]:
    """(name, content) of every meta tag, in order; none for a tombstone."""
    if record.is_deleted:
        return []
    found = [("citation_title", record.title)]
    for creator in record.creators:
        found.append(("citation_author", creator.name))
        if creator.orcid:
            found.append(("citation_author_orcid", f"https://orcid.org/{creator.orcid}"))
    if date := publication_date(record.date):
        found.append(("citation_publication_date", date))
    pdfs = sorted((f for f in record.files if f.content_type.split(";")[0] == "application/pdf"),
                  key=lambda f: f.name != target_file)
    found += [("citation_pdf_url", f.url) for f in pdfs]
    if record.language:
        found.append(("citation_language", record.language))
    if record.publisher:
        found.append(("citation_publisher", record.publisher))
    found += [("citation_keywords", subject) for subject in record.subjects]
    found += [("citation_doi", value) for value in map(doi, record.identifiers) if value]
    found += [(name, value) for name, value in (
        ("citation_journal_title" if kind_of(record.types).bibtex == "article"
         else "citation_inbook_title", record.container_title),
        ("citation_volume", record.volume), ("citation_issue", record.issue),
        ("citation_firstpage", record.first_page), ("citation_lastpage", record.last_page),
        ("citation_dissertation_institution", record.publisher if record.degree else ""),
    ) if value]
    numbers = report_numbers(record)
    found += [("citation_technical_report_number", number) for number in numbers]
    if numbers and record.publisher:
        found.append(("citation_technical_report_institution", record.publisher))
    found.append(("citation_public_url", record.persistent_url))
    if record.landing_url:
        found.append(("citation_abstract_html_url", record.landing_url))
    return found
