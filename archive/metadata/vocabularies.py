"""Controlled vocabularies the harvest formats need, read from free-text Dublin Core. Pure.

A `dc:type` as deposited may be a DCMI Type ("Text", "Dataset"), a COAR resource type (its URI
or its English label), or free text in English or Portuguese ("Relatório técnico"). `kind`
reads any of them as one `Kind`: the COAR concept (OpenAIRE v4 wants its URI), DataCite's
resourceTypeGeneral and OpenAIRE's resourceTypeGeneral::

    >>> kind(("Relatório técnico",)).coar_label, kind(("Relatório técnico",)).datacite
    ('technical report', 'Report')
    >>> kind(("http://purl.org/coar/resource_type/c_ddb1",)).openaire
    'dataset'
    >>> kind(()).datacite, kind(("something else",)).coar_label
    ('Text', 'text')

Also `xml_text`, the text XML 1.0 can carry, and `is_language`, an xs:language tag. The
deposit's choices (`TYPE_CHOICES`, `LICENCES`, `label_of`, …) are deposit/controlled.py's,
where a deposit stores them as URIs; they are named here too for the edges that show them.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..deposit.controlled import (  # noqa: F401  (the edges' one face of the vocabularies)
    LICENCES,
    TYPE_CHOICES,
    Licence,
    eu_repo_type,
    fold,
    label_of,
    licence_of,
    type_choice_of,
)

COAR_TYPE = "http://purl.org/coar/resource_type/"

# Characters XML 1.0 cannot carry at all (lxml refuses them): dropped rather than failing.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_LANGUAGE = re.compile(r"[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*")  # xs:language's pattern


def xml_text(value: object) -> str:
    """Text XML can carry: `xml_text("a\\x00b") == "ab"`."""
    return _NOT_XML.sub("", str(value))


def is_language(tag: str) -> bool:
    """Whether a tag fits xs:language (BCP 47's shape): `is_language("pt-BR") is True`."""
    return bool(_LANGUAGE.fullmatch(tag))


@dataclass(frozen=True)
class Kind:
    coar: str  # the concept's id in http://purl.org/coar/resource_type/
    coar_label: str
    datacite: str  # DataCite kernel 4 resourceTypeGeneral
    openaire: str  # literature, dataset, software or other research product

    @property
    def coar_uri(self) -> str:
        return COAR_TYPE + self.coar

    @property
    def is_literature(self) -> bool:
        return self.openaire == "literature"


# COAR resource types (version 1.1, those OpenAIRE v4's schema admits) with the other
# vocabularies' names for them and the free-text names depositors write (English, Portuguese).
# DataCite's names are those of kernel 4.4 (2021) or older, which every harvester knows (4.7's
# Poster and Presentation would fail older validators).
_KINDS: tuple[tuple[Kind, tuple[str, ...]], ...] = (
    (Kind("c_6501", "journal article", "JournalArticle", "literature"),
     ("article", "journal article", "artigo", "artigo de periodico", "artigo em revista",
      "journalarticle")),
    (Kind("c_2df8fbb1", "research article", "JournalArticle", "literature"),
     ("research article", "artigo cientifico")),
    (Kind("c_dcae04bc", "review article", "JournalArticle", "literature"),
     ("review article", "artigo de revisao")),
    (Kind("c_0640", "journal", "Journal", "literature"), ("journal", "periodico", "revista")),
    (Kind("c_2f33", "book", "Book", "literature"), ("book", "livro")),
    (Kind("c_3248", "book part", "BookChapter", "literature"),
     ("book part", "book chapter", "bookchapter", "chapter", "capitulo de livro", "capitulo")),
    (Kind("c_f744", "conference proceedings", "ConferenceProceeding", "literature"),
     ("conference proceedings", "proceedings", "conferenceproceeding", "anais")),
    (Kind("c_5794", "conference paper", "ConferencePaper", "literature"),
     ("conference paper", "conferencepaper", "trabalho em evento", "artigo em evento",
      "artigo de conferencia")),
    (Kind("c_c94f", "conference object", "Event", "literature"),
     ("conference object", "conference", "evento")),
    (Kind("c_6670", "conference poster", "Text", "literature"), ("poster", "painel")),
    (Kind("c_8544", "lecture", "Text", "literature"),
     ("lecture", "presentation", "palestra", "apresentacao")),
    (Kind("c_46ec", "thesis", "Dissertation", "literature"), ("thesis", "tese")),
    (Kind("c_db06", "doctoral thesis", "Dissertation", "literature"),
     ("doctoral thesis", "phd thesis", "tese de doutorado")),
    (Kind("c_bdcc", "master thesis", "Dissertation", "literature"),
     ("master thesis", "masters thesis", "dissertation", "dissertacao",
      "dissertacao de mestrado")),
    (Kind("c_7a1f", "bachelor thesis", "Dissertation", "literature"),
     ("bachelor thesis", "monografia", "trabalho de conclusao de curso", "tcc")),
    (Kind("c_93fc", "report", "Report", "literature"), ("report", "relatorio")),
    (Kind("c_18gh", "technical report", "Report", "literature"),
     ("technical report", "relatorio tecnico", "relatorio tecnico-cientifico")),
    (Kind("c_18ws", "research report", "Report", "literature"),
     ("research report", "relatorio de pesquisa")),
    (Kind("c_18ww", "internal report", "Report", "literature"),
     ("internal report", "relatorio interno")),
    (Kind("c_71bd", "technical documentation", "Text", "literature"),
     ("technical documentation", "manual", "documentacao tecnica")),
    (Kind("c_8042", "working paper", "Preprint", "literature"),
     ("working paper", "documento de trabalho")),
    (Kind("c_816b", "preprint", "Preprint", "literature"), ("preprint", "pre-print")),
    (Kind("c_15cd", "patent", "Text", "literature"), ("patent", "patente")),
    (Kind("c_efa0", "review", "PeerReview", "literature"),
     ("review", "peer review", "peerreview", "resenha")),
    (Kind("c_ba08", "book review", "Text", "literature"), ("book review",)),
    (Kind("c_b239", "editorial", "Text", "literature"), ("editorial",)),
    (Kind("c_0857", "letter", "Text", "literature"), ("letter", "carta")),
    (Kind("c_86bc", "bibliography", "Text", "literature"), ("bibliography", "bibliografia")),
    (Kind("c_beb9", "data paper", "DataPaper", "literature"), ("data paper", "datapaper")),
    (Kind("c_baaf", "research proposal", "Text", "literature"),
     ("research proposal", "proposal", "projeto de pesquisa")),
    (Kind("c_2659", "periodical", "Journal", "literature"), ("periodical",)),
    (Kind("c_18cf", "text", "Text", "literature"), ("text", "texto", "documento")),
    (Kind("c_ddb1", "dataset", "Dataset", "dataset"),
     ("dataset", "data set", "data", "dados", "conjunto de dados")),
    (Kind("c_5ce6", "software", "Software", "software"),
     ("software", "computer program", "programa de computador", "code", "source code")),
    (Kind("c_393c", "workflow", "Workflow", "other research product"), ("workflow",)),
    (Kind("c_c513", "image", "Image", "other research product"),
     ("image", "stillimage", "still image", "imagem", "figura", "photograph", "fotografia")),
    (Kind("c_8a7e", "moving image", "Audiovisual", "other research product"),
     ("moving image", "movingimage", "film", "filme")),
    (Kind("c_12ce", "video", "Audiovisual", "other research product"),
     ("video", "audiovisual")),
    (Kind("c_18cc", "sound", "Sound", "other research product"),
     ("sound", "audio", "som")),
    (Kind("c_12cd", "map", "Image", "other research product"), ("map", "mapa")),
    (Kind("c_12cc", "cartographic material", "Image", "other research product"),
     ("cartographic material", "material cartografico")),
    (Kind("c_e9a0", "interactive resource", "InteractiveResource", "other research product"),
     ("interactive resource", "interactiveresource")),
    (Kind("c_7ad9", "website", "InteractiveResource", "other research product"),
     ("website", "web site", "sitio")),
    (Kind("c_1843", "other", "Other", "other research product"),
     ("other", "outro", "collection", "event", "physicalobject", "physical object",
      "service")),
)
TEXT = next(k for k, _ in _KINDS if k.coar == "c_18cf")


_BY_NAME: dict[str, Kind] = {}
for _kind, _names in _KINDS:
    _BY_NAME.setdefault(_kind.coar, _kind)
    _BY_NAME.setdefault(_kind.coar_label, _kind)
    for _name in _names:
        _BY_NAME.setdefault(fold(_name), _kind)


def kind_of(value: str) -> Kind | None:
    """The Kind one dc:type value names (a COAR URI, a label, a DCMI type, an OpenAIRE
    info:eu-repo/semantics type), or None."""
    text = eu_repo_type(value) or value.strip()
    for prefix in (COAR_TYPE, COAR_TYPE.replace("http:", "https:")):
        if text.startswith(prefix):
            return _BY_NAME.get(text[len(prefix):].strip("/"))
    if text.lower().startswith(("http://purl.org/dc/dcmitype/", "https://purl.org/dc/dcmitype/")):
        text = text.rsplit("/", 1)[1]
    return _BY_NAME.get(fold(text))


def kind(types: tuple[str, ...] | list[str]) -> Kind:
    """The first dc:type value that names a Kind, else text (most items here are reports)."""
    return next((k for k in map(kind_of, types) if k is not None), TEXT)


def all_kinds() -> tuple[Kind, ...]:
    """Every Kind, in the vocabulary's order."""
    return tuple(k for k, _ in _KINDS)
