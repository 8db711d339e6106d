"""What a citation needs beyond simple Dublin Core, read from the qualified fields of the
metadata registry (docs/librarians/registry.md). Pure: the values come as field name → values.

- the container an article, chapter or paper appeared in: ``oaire.citation.title`` (DSpace 7's
  OpenAIRE registry), else ``dc.relation.ispartof`` or ``dcterms.isPartOf``; only for those
  kinds, as a thesis's ``dc.relation.ispartof`` names its graduate programme;
- volume, issue and pages: ``oaire.citation.volume``, ``.issue``, ``.startPage``, ``.endPage``
  (DSpace 7's own fields for them: its ``dc`` registry has none);
- a thesis's degree: ``local.degree.level`` (``doutorado``, ``mestrado``…), else dc:type
  (COAR's doctoral and master thesis, "Tese", "Dissertação"), as vocabularies.py reads it;
- the publisher: ``dc.publisher`` itself before its qualified refinements (a programme or a
  department is no publisher);
- a thesis's people and place (``thesis``): its advisors, co-advisors and committee with the
  ORCID iD or Lattes id of each (their authority), its graduate programme and department, the
  institution's acronym, the degree's name and its CNPq knowledge areas; and the area the
  degree is in (``degree_area``), which ABNT's genre names ("Tese (Doutorado em Física)").

    >>> found = fields({"dc.relation.ispartof": ["Revista Brasileira de Cartografia"],
    ...                 "oaire.citation.volume": ["72"], "oaire.citation.startPage": ["101"],
    ...                 "oaire.citation.endPage": ["118"]}, ("Artigo",))
    >>> found["container_title"], found["volume"], found["first_page"], found["last_page"]
    ('Revista Brasileira de Cartografia', '72', '101', '118')
    >>> fields({"local.degree.level": ["mestrado"]}, ("Tese",))["degree"]
    'masters'
    >>> fields({}, ("Dissertação",))["degree"], fields({}, ("Tese",))["degree"]
    ('masters', 'doctoral')
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from .kinds import kind_of
from .record import Creator
from .vocabularies import fold
from .vocabularies import kind as vocabulary_kind

# The kinds that appear inside another work (BibTeX's entry types for them).
CONTAINED = frozenset({"article", "incollection", "inproceedings"})
CONTAINER_FIELDS = ("oaire.citation.title", "dc.relation.ispartof", "dcterms.isPartOf")
_PARTS = {"volume": "oaire.citation.volume", "issue": "oaire.citation.issue",
          "first_page": "oaire.citation.startPage", "last_page": "oaire.citation.endPage"}
# local.degree.level as Brazilian repositories write it (MTD-BR, TEDE), folded.
_LEVELS = {"doutorado": "doctoral", "doctorate": "doctoral", "doctoral": "doctoral",
           "phd": "doctoral", "mestrado": "masters", "mestrado profissional": "masters",
           "master": "masters", "masters": "masters", "graduacao": "bachelor",
           "bacharelado": "bachelor", "licenciatura": "bachelor", "bachelor": "bachelor"}
# COAR thesis types → the level; "thesis" (c_46ec) alone is "Tese": a doctor's in Brazil.
_BY_COAR = {"c_db06": "doctoral", "c_bdcc": "masters", "c_7a1f": "bachelor",
            "c_46ec": "doctoral"}


def _first(values: Mapping[str, Sequence[str]], *names: str) -> str:
    return next((v.strip() for name in names for v in values.get(name, ()) if v.strip()), "")


def level_of(text: str) -> str:
    """"doctoral", "masters", "bachelor" of a local.degree.level as written, "" if unknown::

        >>> level_of("Mestrado Profissional"), level_of("Doutorado"), level_of("pós-doc")
        ('masters', 'doctoral', '')
    """
    return _LEVELS.get(fold(text), "")


def area_label(value: str) -> str:
    """A dc.subject.cnpq value for people: its path through CNPq's table, without the
    table's name::

        >>> area_label("CNPQ::ENGENHARIAS::ENGENHARIA CIVIL")
        'ENGENHARIAS › ENGENHARIA CIVIL'
    """
    parts = [part.strip() for part in value.split("::") if part.strip()]
    if len(parts) > 1 and parts[0].upper() == "CNPQ":
        parts = parts[1:]
    return " › ".join(parts)


def degree(values: Mapping[str, Sequence[str]], types: Sequence[str]) -> str:
    """"doctoral", "masters", "bachelor", or "" for what is no thesis."""
    if kind_of(types).bibtex != "phdthesis":
        return ""
    level = level_of(_first(values, "local.degree.level"))
    return level or _BY_COAR.get(vocabulary_kind(tuple(types)).coar, "doctoral")


def fields(values: Mapping[str, Sequence[str]], types: Sequence[str]) -> dict[str, str]:
    """The Record's citation fields (see the module's doc) of an item's qualified values."""
    contained = kind_of(types).bibtex in CONTAINED
    found = {name: _first(values, field) for name, field in _PARTS.items()} if contained \
        else dict.fromkeys(_PARTS, "")
    found["container_title"] = _first(values, *CONTAINER_FIELDS) if contained else ""
    found["degree"] = degree(values, types)
    return found


def published_elsewhere(types: Sequence[str]) -> bool:
    """Whether the kind appears inside another work, whose publisher is not this repository."""
    return kind_of(types).bibtex in CONTAINED


def publisher(values: Mapping[str, Sequence[str]], publishers: Sequence[str]) -> str:
    """dc.publisher, else the first value of the publisher element (a dcterms.publisher…)."""
    return _first(values, "dc.publisher") or next((p for p in publishers if p.strip()), "")


# MTD-BR's qualified fields of a thesis → the Record's fields (record.py).
PEOPLE = {"advisors": "dc.contributor.advisor", "co_advisors": "dc.contributor.advisor-co",
          "referees": "dc.contributor.referee"}
PLACES = {"programme": "dc.publisher.program", "department": "dc.publisher.department",
          "institution_acronym": "dc.publisher.initials", "degree_name": "local.degree.name"}
AREAS = "dc.subject.cnpq"
# Their scheme, as DataCite's subjectScheme and schema.org's DefinedTermSet name it.
AREA_SCHEME = "CNPq: Tabela de Áreas do Conhecimento"
# Where a creator's authority is kept: DSpace's author field, and TEDE's dc.creator.
CREATOR_FIELDS = ("dc.contributor.author", "dc.creator")
# An authority as kept (registry/authorities.py checked it): a bare ORCID iD, a Lattes id.
_ORCID = re.compile(r"[0-9]{4}-[0-9]{4}-[0-9]{4}-[0-9]{3}[0-9X]")
_LATTES = re.compile(r"[0-9]{16}")


def person(name: str, authority: str) -> Creator:
    """A person with the ORCID iD or Lattes id its authority is (another authority's key
    names neither)::

        >>> person("Pereira, João", "4727357182510680")
        Creator(name='Pereira, João', orcid='', lattes='4727357182510680')
        >>> person("Silva, Ana", "0000-0002-1825-0097").orcid
        '0000-0002-1825-0097'
    """
    authority = authority.strip()
    if _ORCID.fullmatch(authority):
        return Creator(name, orcid=authority)
    if _LATTES.fullmatch(authority):
        return Creator(name, lattes=authority)
    return Creator(name)


def thesis(values: Mapping[str, Sequence[tuple[str, str]]]) -> dict:
    """The Record's thesis fields (record.py) of an item's qualified values, field name →
    (value, authority)::

        >>> found = thesis({"dc.contributor.advisor": [("Pereira, João", "4727357182510680")],
        ...                 "dc.publisher.program": [("PPG em Física", "")],
        ...                 "dc.subject.cnpq": [("CNPQ::CIENCIAS EXATAS E DA TERRA", "")]})
        >>> found["advisors"][0].lattes, found["programme"], found["knowledge_areas"]
        ('4727357182510680', 'PPG em Física', ('CNPQ::CIENCIAS EXATAS E DA TERRA',))
    """
    found: dict = {key: tuple(person(v.strip(), a) for v, a in values.get(name, ()) if v.strip())
                   for key, name in PEOPLE.items()}
    found.update({key: next((v.strip() for v, _ in values.get(name, ()) if v.strip()), "")
                  for key, name in PLACES.items()})
    found["knowledge_areas"] = tuple(v.strip() for v, _ in values.get(AREAS, ()) if v.strip())
    return found


# What comes before the area in a degree's name or a programme's (MTD-BR writes "Doutor em
# Física", "Programa de Pós-Graduação em Física"), folded.
_AREA_AFTER = ("programa de pos-graduacao em ", "pos-graduacao em ", "doutorado em ",
               "mestrado em ", "mestrado profissional em ", "doutor em ", "doutora em ",
               "mestre em ", "mestra em ", "bacharel em ", "licenciado em ", "licenciada em ",
               "graduacao em ")


def degree_area(degree_name: str, programme: str) -> str:
    """The area a degree is in, as ABNT NBR 6023 names it in a thesis's genre: from the
    degree's name, else from the programme's; "" when neither says::

        >>> degree_area("Doutor em Engenharia Civil", "")
        'Engenharia Civil'
        >>> degree_area("", "Programa de Pós-Graduação em Ciência da Computação")
        'Ciência da Computação'
        >>> degree_area("", "PPGCC")
        ''
    """
    for text in (degree_name, programme):
        folded = fold(text) + " "
        for prefix in _AREA_AFTER:
            if folded.startswith(prefix):
                # fold keeps the words (it drops accents and doubled spaces): cut as many.
                return " ".join(text.split()[len(prefix.split()):])
    return ""
