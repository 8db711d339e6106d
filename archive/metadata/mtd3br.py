"""IBICT's MTD-BR 3 (`mtd3-br`), the format in which BDTD harvests theses and dissertations:
the schema IBICT's harvester validates against (github.com/ibict-br/REPOX,
crosswalks/BDTD/mtd3-br.xsd; a copy in tests/data/schemas/ibict/), one flat sequence of
elements named after DSpace's fields (contributorAdvisor, publisherProgram, subjectCnpq …).
Pure: no database.

    <mtd3-br:mtd3br xmlns:mtd3-br="http://200.130.0.199/mtd3-br/">
      <mtd3-br:contributorAuthor>Oliveira, Mariana</mtd3-br:contributorAuthor>
      <mtd3-br:contributorAdvisor>Pereira, João</mtd3-br:contributorAdvisor>
      <mtd3-br:contributorAdvisorLattes>http://lattes.cnpq.br/4727357182510680</…>
      …
      <mtd3-br:type>doctoralThesis</mtd3-br:type>
      <mtd3-br:rights>info:eu-repo/semantics/openAccess</mtd3-br:rights>
      <mtd3-br:subjectCnpq>CNPQ::ENGENHARIAS::ENGENHARIA CIVIL</mtd3-br:subjectCnpq>
    </mtd3-br:mtd3br>

The schema's order is kept, and its cardinalities: one author (the first: a thesis has one),
advisors and their Lattes CVs, the first co-advisor as `-co1` and the others as `-co2`, the
committee as `Referees1` … `Referees4` and the rest as `Referees5`, each with the Lattes CVs
of those who have one and the first ORCID iD as the role's ID. Abstracts in Portuguese are
`descriptionResumo`, the others `descriptionAbstract`, each with its language (ISO 639-2,
"por"). `rights` is the access right as BDTD reads it (mtdbr.access_right: open only when a
file is open to all), `rightsUri` the licence, `format` the media type of the first open file.

    >>> from archive.metadata.mtdbr import Record, read
    >>> xml = to_bytes(mtd3br_element(read((), Record(ibi="x", ibip="y", title="T",
    ...                                                 persistent_url="http://h/x"))))
    >>> b"<mtd3-br:rights>info:eu-repo/semantics/closedAccess</mtd3-br:rights>" in xml
    True
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

from lxml import etree

from ..identifiers import lattes, orcid
from .mtdbr import Person, Text, Thesis, language_code
from .xmltext import clean, escape, parse

NS = "http://200.130.0.199/mtd3-br/"
SCHEMA = "http://200.130.0.199/mtd3-br/mtd3-br.xsd"
NSMAP = {"mtd3-br": NS}
_NS_XSI = "http://www.w3.org/2001/XMLSchema-instance"
_OPEN = (f'<mtd3-br:mtd3br xmlns:mtd3-br="{NS}" xmlns:xsi="{_NS_XSI}" '
         f'xsi:schemaLocation="{NS} {SCHEMA}">')
_TYPES = {"doctoral": "doctoralThesis", "masters": "masterThesis"}
_REFEREE_SLOTS = 5
_REFEREE_TAGS = tuple(f"contributorReferees{slot}" for slot in range(1, _REFEREE_SLOTS + 1))
_PORTUGUESE = "por"


def _put(root: list[str], tag: str, value: str, language: str = "") -> None:
    # A printable value is all characters XML carries (the test is cheaper than `clean`'s),
    # and one without &, < or > needs no escaping (most: a page writes 34 000 values).
    if value.isprintable():
        text = value.strip()
        if "&" in text or "<" in text or ">" in text:
            text = escape(text)
    else:
        text = escape(clean(value).strip())
    if not text:  # the schema's strings are never empty (stringnaovazia)
        return
    code = language_code(language) if language else ""
    if code:
        root.append(f'<mtd3-br:{tag} lang="{code}">{text}</mtd3-br:{tag}>')
    else:
        root.append(f"<mtd3-br:{tag}>{text}</mtd3-br:{tag}>")


def _people(root: list[str], tag: str, people: Sequence[Person]) -> None:
    """A role: its names, the Lattes CVs of those who have one, the first ORCID iD."""
    for person in people:
        _put(root, tag, person.name)
    for person in people:
        if person.lattes:
            _put(root, tag + "Lattes", lattes.url(person.lattes))
    ids = [person.orcid for person in people if person.orcid]
    if ids:
        _put(root, tag + "ID", orcid.url(ids[0]))


def _texts(root: list[str], tag: str, texts: Iterable[Text], default: str) -> None:
    for text in texts:
        _put(root, tag, text.value, text.language or default)


def mtd3br_text(thesis: Thesis) -> str:
    """<mtd3-br:mtd3br> of a thesis (mtdbr.read) as text (xmltext.py: a harvest page writes
    a thousand)."""
    root = [_OPEN]
    _people(root, "contributorAuthor", thesis.authors[:1])
    _people(root, "contributorAdvisor", thesis.advisors)
    _people(root, "contributorAdvisor-co1", thesis.co_advisors[:1])
    _people(root, "contributorAdvisor-co2", thesis.co_advisors[1:])
    referees, last = thesis.referees, _REFEREE_SLOTS - 1
    for slot, tag in enumerate(_REFEREE_TAGS):
        people = referees[slot:slot + 1] if slot < last else referees[last:]
        if people:
            _people(root, tag, people)
    _put(root, "dateAccessioned", thesis.accessioned)
    _put(root, "dateAvailable", thesis.available)
    _put(root, "dateIssued", thesis.issued)
    _put(root, "identifierUri", thesis.uri)
    _put(root, "identifierCitation", thesis.citation)
    _put(root, "identifierDoi", thesis.doi)
    own = thesis.language
    _texts(root, "descriptionResumo", (a for a in thesis.abstracts
                                       if language_code(a.language or own) == _PORTUGUESE), own)
    _texts(root, "descriptionAbstract", (a for a in thesis.abstracts
                                         if language_code(a.language or own) != _PORTUGUESE), own)
    for sponsor in thesis.sponsors:
        _put(root, "descriptionSponsorship", sponsor)
    _put(root, "publisher", thesis.publisher)
    _put(root, "publisherCountry", thesis.country)
    for tag, values in (("publisherDepartament", thesis.departments),  # sic, the schema's name
                        ("publisherProgram", thesis.programmes),
                        ("publisherInitials", thesis.initials)):
        for value in values:
            _put(root, tag, value)
    _put(root, "type", _TYPES.get(thesis.degree, ""))
    _put(root, "title", thesis.title)
    _texts(root, "titleAlternative", thesis.titles, "")
    _put(root, "language", language_code(own))
    _put(root, "rights", thesis.access)
    _put(root, "rightsUri", thesis.licence)
    _texts(root, "subject", thesis.subjects, own)
    for area in thesis.cnpq:
        _put(root, "subjectCnpq", area)
    _put(root, "format", thesis.files[0].content_type if thesis.files else "")
    for tag, values in (("relation", thesis.relations),
                        ("relationOther", thesis.relations_other),
                        ("relationReferences", thesis.references[:1])):
        for value in values:
            _put(root, tag, value)
    root.append("</mtd3-br:mtd3br>")
    return "".join(root)


def mtd3br_element(thesis: Thesis) -> etree._Element:
    """<mtd3-br:mtd3br> of a thesis (mtdbr.read), as an element (`mtd3br_text`)."""
    return parse(mtd3br_text(thesis))


def to_bytes(element: etree._Element) -> bytes:
    return etree.tostring(element, encoding="utf-8")
