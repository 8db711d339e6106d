"""The kind of work an item is, in each citation format's vocabulary. Pure.

dc:type is read once, by vocabularies.py (`kind`: DCMI, COAR or free text in English and
Portuguese, as DataCite's resourceTypeGeneral); this table names that kind for CSL-JSON,
BibTeX, RIS and schema.org, so that every format says the same of an item::

    >>> kind_of(("Relatório técnico",)).bibtex, kind_of(("Dataset",)).schemaorg
    ('techreport', 'Dataset')
    >>> kind_of(()).csl, kind_of(()).ris                     # no dc:type: a text
    ('article', 'GEN')
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .vocabularies import kind


@dataclass(frozen=True)
class Kind:
    csl: str  # CSL item type
    bibtex: str  # BibTeX entry type (the classic ones: every BibTeX style knows them)
    ris: str  # RIS TY
    schemaorg: str  # schema.org class


OTHER = Kind("article", "misc", "GEN", "CreativeWork")
# DataCite kernel 4 resourceTypeGeneral → the other vocabularies.
VOCABULARY: dict[str, Kind] = {
    "JournalArticle": Kind("article-journal", "article", "JOUR", "ScholarlyArticle"),
    "DataPaper": Kind("article-journal", "article", "JOUR", "ScholarlyArticle"),
    "Preprint": Kind("article", "unpublished", "UNPB", "ScholarlyArticle"),
    "ConferencePaper": Kind("paper-conference", "inproceedings", "CPAPER", "ScholarlyArticle"),
    "ConferenceProceeding": Kind("book", "proceedings", "CONF", "Book"),
    "Journal": Kind("periodical", "misc", "JFULL", "Periodical"),
    "Book": Kind("book", "book", "BOOK", "Book"),
    "BookChapter": Kind("chapter", "incollection", "CHAP", "Chapter"),
    "Report": Kind("report", "techreport", "RPRT", "Report"),
    "Dissertation": Kind("thesis", "phdthesis", "THES", "Thesis"),
    "PeerReview": Kind("review", "misc", "GEN", "Review"),
    "Dataset": Kind("dataset", "misc", "DATA", "Dataset"),
    "Software": Kind("software", "misc", "COMP", "SoftwareSourceCode"),
    "Image": Kind("graphic", "misc", "FIGURE", "ImageObject"),
    "Audiovisual": Kind("motion_picture", "misc", "VIDEO", "VideoObject"),
    "Sound": Kind("song", "misc", "SOUND", "AudioObject"),
    "InteractiveResource": Kind("webpage", "misc", "ELEC", "WebPage"),
}


def kind_of(types: Iterable[str]) -> Kind:
    """The Kind of an item's dc:type values (the first one vocabularies.py knows)."""
    return VOCABULARY.get(kind(tuple(types)).datacite, OTHER)
