"""A thesis as IBICT's MTD-BR formats describe it (mtd2br.py, mtd3br.py), read from its values
as the registry holds them and from its Record. Pure: no database.

The fields are those of the thesis profile and of the fields IBICT's TEDE (DSpace) writes, as
BDTD's crosswalks read them (github.com/ibict-br/REPOX crosswalks/BDTD, dim → mtd3-br):
authors in dc.contributor.author or dc.creator, advisors in dc.contributor.advisor (TEDE:
advisor1), co-advisors in dc.contributor.advisor-co (advisor-co1), the committee in
dc.contributor.referee (referee1 …), the programme, department, initials and country under
dc.publisher, the CNPq area in dc.subject.cnpq. An authority that is a Lattes CV id or an
ORCID iD goes with its person.

    >>> t = read([("dc", "contributor", "advisor", "", "Pereira, J.", "4727357182510680", 600),
    ...           ("dc", "subject", "cnpq", "", "CNPQ::ENGENHARIAS", "", -1)],
    ...          Record(ibi="x", ibip="y", title="T", persistent_url="http://h/x"))
    >>> t.advisors[0].lattes, t.cnpq, t.access
    ('4727357182510680', ('CNPQ::ENGENHARIAS',), 'info:eu-repo/semantics/closedAccess')
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache

from ..deposit import controlled
from ..identifiers import orcid
from .record import FileRef, Record

# (schema, element, qualifier, language, value, authority, confidence): registry.selectors.
Row = tuple[str, str, str, str, str, str, int]
OPEN, EMBARGOED, RESTRICTED, METADATA_ONLY = controlled.ACCESS_LEVELS
EU_REPO_ACCESS = controlled.EU_REPO_ACCESS
_EU_REPO = {OPEN: "openAccess", EMBARGOED: "embargoedAccess",
            RESTRICTED: "restrictedAccess", METADATA_ONLY: "closedAccess"}

# Field names (schema.element.qualifier) of each role, DSpace's and TEDE's.
AUTHORS = ("dc.contributor.author", "dc.creator")
ADVISORS = ("dc.contributor.advisor", "dc.contributor.advisor1", "dc.contributor.advisor2")
CO_ADVISORS = ("dc.contributor.advisor-co", "dc.contributor.advisor-co1",
               "dc.contributor.advisor-co2")
REFEREES = ("dc.contributor.referee", *(f"dc.contributor.referee{n}" for n in range(1, 6)))
ABSTRACTS = ("dc.description.abstract", "dc.description.resumo")
# Keywords in TEDE are dc.subject.por, dc.subject.eng …: the qualifier says the language.
_SUBJECT_LANGUAGES = {"por": "pt", "eng": "en", "spa": "es", "fra": "fr"}
_NOT_KEYWORDS = {"cnpq"}


@dataclass(frozen=True)
class Person:
    name: str
    lattes: str = ""  # the bare 16 digits of a Lattes CV id
    orcid: str = ""  # the bare ORCID iD


@dataclass(frozen=True)
class Text:
    value: str
    language: str = ""  # as the value's language was written (pt_BR, en), or ""


@dataclass(frozen=True)
class Thesis:
    title: str
    language: str  # the item's, BCP 47
    titles: tuple[Text, ...] = ()  # further titles (dc.title.alternative, translations)
    authors: tuple[Person, ...] = ()
    advisors: tuple[Person, ...] = ()
    co_advisors: tuple[Person, ...] = ()
    referees: tuple[Person, ...] = ()
    abstracts: tuple[Text, ...] = ()
    subjects: tuple[Text, ...] = ()
    cnpq: tuple[str, ...] = ()
    sponsors: tuple[str, ...] = ()
    publisher: str = ""
    country: str = ""
    departments: tuple[str, ...] = ()
    programmes: tuple[str, ...] = ()
    initials: tuple[str, ...] = ()
    issued: str = ""  # the defence (dc.date.issued, else the item's date)
    citation: str = ""
    doi: str = ""
    uri: str = ""  # its persistent URL
    landing_url: str = ""
    degree: str = ""  # "doctoral", "masters", "bachelor" (citing.py), or ""
    degree_name: str = ""  # local.degree.name: "Doutor em Engenharia Civil"
    access: str = ""  # info:eu-repo/semantics/…Access
    licence: str = ""
    files: tuple[FileRef, ...] = ()  # the files open to all
    relations: tuple[str, ...] = ()
    relations_other: tuple[str, ...] = ()
    references: tuple[str, ...] = ()
    accessioned: str = ""  # the deposit's day
    available: str = ""  # the day its files are (or were) open: an embargo's end


def access_level(record: Record) -> str:
    """The item's level as its files have it: an open item whose every file is restricted is
    restricted, one with no file at all metadata only."""
    level = record.access_rights
    if level == OPEN and not record.files:
        return RESTRICTED if record.some_closed else METADATA_ONLY
    return level


def level_of(access_rights: str, restricted: Sequence[bool]) -> str:
    """`access_level` of an item given at `access_rights` whose files have these `restricted`
    flags (what a harvest page reads of them, no Record)::

        >>> level_of(OPEN, [True]), level_of(OPEN, []), level_of(OPEN, [True, False])
        ('restricted', 'metadata-only', 'open')
    """
    if access_rights == OPEN and all(restricted):
        return RESTRICTED if restricted else METADATA_ONLY
    return access_rights


def right_of(level: str) -> str:
    """info:eu-repo/semantics/…Access of an `access_level`."""
    return EU_REPO_ACCESS + _EU_REPO.get(level, _EU_REPO[METADATA_ONLY])


def access_right(record: Record) -> str:
    """OpenAIRE's info:eu-repo/semantics/…Access of an item, as BDTD and Oasisbr read
    dc.rights (LA Referencia's eu_rights): openAccess only when a file is open to all
    (access_level)."""
    return right_of(access_level(record))


@cache
def _key(name: str) -> tuple[str, str, str]:
    """("dc", "contributor", "advisor") of "dc.contributor.advisor": rows are looked up by
    their first three members, never by a name joined for each (a harvest page reads 27 000)."""
    schema, element, qualifier = (name.split(".", 2) + ["", ""])[:3]
    return schema, element, qualifier


@lru_cache(maxsize=4096)  # a harvest page's advisors and committees come again and again
def _person_of(name: str, authority: str) -> Person:
    if len(authority) == 16 and authority.isdigit():
        return Person(name, lattes=authority)
    try:
        return Person(name, orcid=orcid.normalize(authority)) if authority else Person(name)
    except ValueError:
        return Person(name)


def _keys(*names: str) -> tuple[tuple[str, str, str], ...]:
    return tuple(map(_key, names))


# The fields read, as rows' keys once (a harvest page reads a thousand theses).
_TITLES = _keys("dc.title", "dc.title.alternative")
_AUTHORS, _ADVISORS = _keys(*AUTHORS), _keys(*ADVISORS)
_CO_ADVISORS, _REFEREES = _keys(*CO_ADVISORS), _keys(*REFEREES)
_ABSTRACTS, _DESCRIPTION = _keys(*ABSTRACTS), _keys("dc.description")
(_RIGHTS_URI, _RIGHTS, _CNPQ, _SPONSORSHIP, _PUBLISHER, _COUNTRY, _DEPARTMENT, _PROGRAM,
 _INITIALS, _ISSUED, _CITATION, _DOI, _DEGREE_NAME, _RELATION_OTHER, _REFERENCES) = _keys(
    "dc.rights.uri", "dc.rights", "dc.subject.cnpq", "dc.description.sponsorship",
    "dc.publisher", "dc.publisher.country", "dc.publisher.department", "dc.publisher.program",
    "dc.publisher.initials", "dc.date.issued", "dc.identifier.citation", "dc.identifier.doi",
    "local.degree.name", "dc.relation.other", "dc.relation.references")


def read(rows: Sequence[Row], record: Record, *, institution: str = "") -> Thesis:
    """The thesis its values (`rows`, by field and position) and its Record describe; the
    institution that grants the degree is dc.publisher, else `institution` (the
    repository's name), never the programme or department (Record.publisher may be)."""
    by_field: dict[tuple[str, str, str], list[Row]] = {}
    for row in rows:
        by_field.setdefault(row[:3], []).append(row)
    get = by_field.get

    def rows_of(keys: tuple[tuple[str, str, str], ...]) -> list[Row]:
        return [row for key in keys for row in get(key, ())]

    def people(keys: tuple[tuple[str, str, str], ...]) -> tuple[Person, ...]:
        return tuple([_person_of(row[4], row[5]) for key in keys for row in get(key, ())])

    def values(key: tuple[str, str, str]) -> tuple[str, ...]:
        return tuple([row[4] for row in get(key, ())])

    def first(key: tuple[str, str, str]) -> str:
        found = get(key)
        return found[0][4] if found else ""

    titles = [Text(row[4], row[3]) for row in rows_of(_TITLES) if row[4] != record.title]
    abstracts = rows_of(_ABSTRACTS) or rows_of(_DESCRIPTION)
    # The keywords and the relations, the keys in the rows' order (by_field keeps it): one
    # walk of a few fields, not of every value.
    subjects: list[Text] = []
    relations: list[str] = []
    for (schema, element, qualifier), found in by_field.items():
        if schema != "dc":
            continue
        if element == "subject" and qualifier not in _NOT_KEYWORDS:
            subjects += [Text(row[4], row[3] or _SUBJECT_LANGUAGES.get(qualifier, ""))
                         for row in found]
        elif element == "relation" and qualifier not in ("other", "references"):
            relations += [row[4] for row in found]
    licences = [*values(_RIGHTS_URI), *(v for v in values(_RIGHTS) if controlled.is_licence(v))]
    created = record.created.date().isoformat() if record.created else ""
    embargo = record.embargo_until.isoformat() if record.embargo_until else ""
    return Thesis(
        title=record.title, language=record.language, titles=tuple(titles),
        authors=people(_AUTHORS), advisors=people(_ADVISORS),
        co_advisors=people(_CO_ADVISORS), referees=people(_REFEREES),
        abstracts=tuple(Text(row[4], row[3]) for row in abstracts),
        subjects=tuple(subjects), cnpq=values(_CNPQ), sponsors=values(_SPONSORSHIP),
        publisher=first(_PUBLISHER) or institution, country=first(_COUNTRY),
        departments=values(_DEPARTMENT), programmes=values(_PROGRAM),
        initials=values(_INITIALS), issued=first(_ISSUED) or record.date,
        citation=first(_CITATION), doi=record.doi or first(_DOI), uri=record.persistent_url,
        landing_url=record.landing_url, degree=record.degree,
        degree_name=first(_DEGREE_NAME), access=access_right(record),
        licence=next(iter(licences), ""), files=record.files, relations=tuple(relations),
        relations_other=values(_RELATION_OTHER), references=values(_REFERENCES),
        accessioned=created,
        available=embargo if record.access_rights == EMBARGOED and embargo else created)


# ISO 639-1 → ISO 639-2 of the languages theses are written in here, as MTD-BR 3 writes them
# (three letters, as BDTD's crosswalks do), each one of mtd3-br.xsd's langType; Spanish stays
# "es": the schema's list lacks "spa".
_ISO639_2 = {"pt": "por", "en": "eng", "es": "es", "fr": "fra", "it": "ita", "de": "deu",
             "ja": "jpn", "zh": "chi", "ru": "rus", "la": "lat", "gn": "grn", "nl": "dut",
             "ar": "ara", "ko": "kor", "pl": "pol", "el": "ell", "he": "heb", "tr": "tur"}


_ISO639_1 = {three: two for two, three in _ISO639_2.items()} | {
    "spa": "es", "ger": "de", "fre": "fr", "zho": "zh", "nld": "nl", "gre": "el"}


def _primary(tag: str) -> str:
    return tag.replace("_", "-").split("-", 1)[0].strip().lower()


@cache
def language_code(tag: str) -> str:
    """A language (BCP 47, DSpace's pt_BR, or ISO 639-2 as dc.language.iso often has it) as
    MTD-BR 3 writes it, its ISO 639-2 code; "" for none or one of another language (the
    attribute is then left out).

        >>> language_code("pt_BR"), language_code("por"), language_code("tlh"), language_code("")
        ('por', 'por', '', '')
    """
    primary = _primary(tag)
    return _ISO639_2.get(_ISO639_1.get(primary, primary), "")


@cache
def two_letter_code(tag: str) -> str:
    """The same as MTD-BR 2 writes it, ISO 639-1: ``two_letter_code("por") == "pt"``."""
    primary = _primary(tag)
    primary = _ISO639_1.get(primary, primary)
    return primary if len(primary) == 2 and primary.isalpha() else ""
