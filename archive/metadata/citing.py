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
  department is no publisher).

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

from collections.abc import Mapping, Sequence

from .kinds import kind_of
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


def degree(values: Mapping[str, Sequence[str]], types: Sequence[str]) -> str:
    """"doctoral", "masters", "bachelor", or "" for what is no thesis."""
    if kind_of(types).bibtex != "phdthesis":
        return ""
    level = _LEVELS.get(fold(_first(values, "local.degree.level")), "")
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
