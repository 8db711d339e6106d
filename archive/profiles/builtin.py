"""The built-in profiles and vocabularies, as ensure_builtin puts them back after a flush
(migration 0035 made them first, from its own copy of these tables: history).

An entry: (field, language, required, repeatable, input type, vocabulary, authority,
help in Portuguese, help in English). Pure data."""
from __future__ import annotations

from ..models import DC_ELEMENTS
from . import cnpq

DEGREE_LEVELS = (
    ("mestrado", "Mestrado", "Master's"),
    ("mestrado-profissional", "Mestrado profissional", "Professional master's"),
    ("doutorado", "Doutorado", "Doctorate"),
    ("doutorado-profissional", "Doutorado profissional", "Professional doctorate"),
)


def vocabularies() -> dict[str, tuple[str, str, tuple[tuple[str, str, str], ...]]]:
    """slug → (name in Portuguese, name in English, terms (value, pt, en))."""
    return {
        "degree-level": ("Nível do grau", "Degree level", DEGREE_LEVELS),
        "cnpq": ("Áreas do Conhecimento (CNPq)", "Knowledge areas (CNPq)",
                 tuple((a.code, a.label_pt_br, a.label_en) for a in cnpq.table())),
    }


# The other elements of simple Dublin Core, in the oai_dc order, one text field each.
_PLAIN = tuple(e for e in DC_ELEMENTS if e not in ("creator", "date", "type", "rights"))

# Today's fields: the elements of simple Dublin Core the deposit form has always had.
PADRAO = (
    ("dc.creator", "", False, True, "authority", "", "orcid",
     "Um por linha; o ORCID iD após uma barra: Banon, Gerald | 0000-0002-1825-0097",
     "One per line; an ORCID iD after a bar: Banon, Gerald | 0000-0002-1825-0097"),
    ("dc.date", "", False, True, "date", "", "", "ISO 8601, ex. 2013-09-04",
     "ISO 8601, e.g. 2013-09-04"),
    ("dc.type", "", False, True, "text", "", "", "", ""),
    ("dc.rights", "", False, True, "text", "", "", "", ""),
    *((f"dc.{element}", "", False, True, "textarea" if element == "description" else "text",
       "", "", "", "") for element in _PLAIN),
)

_NAME_LATTES = ("Sobrenome, Nome; o id do currículo Lattes (16 dígitos) ou o ORCID iD após "
                "uma barra: Silva, Maria | 4727357182510680",
                "Surname, Name; the Lattes CV id (16 digits) or ORCID iD after a bar: "
                "Silva, Maria | 4727357182510680")

# MTD-BR's thesis or dissertation, as IBICT's BDTD harvests it.
TESE = (
    ("dc.contributor.author", "", True, False, "authority", "", "lattes-orcid", *_NAME_LATTES),
    ("dc.title.alternative", "en", False, False, "text", "", "", "Título em inglês",
     "Title in English"),
    ("dc.contributor.advisor", "", True, False, "authority", "", "lattes-orcid",
     *_NAME_LATTES),
    ("dc.contributor.advisor-co", "", False, True, "authority", "", "lattes-orcid",
     *_NAME_LATTES),
    ("dc.contributor.referee", "", False, True, "authority", "", "lattes-orcid",
     *_NAME_LATTES),
    ("dc.publisher", "", True, False, "text", "", "", "Instituição que concedeu o grau",
     "Institution that granted the degree"),
    ("dc.publisher.initials", "", True, False, "text", "", "", "Sigla da instituição, ex. UFRGS",
     "The institution's acronym, e.g. UFRGS"),
    ("dc.publisher.country", "", True, False, "text", "", "", "País da instituição, ex. Brasil",
     "Country of the institution, e.g. Brasil"),
    ("dc.publisher.program", "", True, False, "text", "", "", "Programa de pós-graduação",
     "Graduate programme"),
    ("dc.publisher.department", "", False, False, "text", "", "", "Departamento ou faculdade",
     "Department or faculty"),
    ("local.degree.level", "", True, False, "controlled", "degree-level", "",
     "Mestrado, doutorado…", "Master's, doctorate…"),
    ("local.degree.name", "", False, False, "text", "", "",
     "Ex. Mestre em Ciência da Computação", "E.g. Mestre em Ciência da Computação"),
    ("dc.date.issued", "", True, False, "date", "", "", "Data da defesa (AAAA-MM-DD)",
     "Date of the defence (YYYY-MM-DD)"),
    ("dc.subject.cnpq", "", True, True, "controlled", "cnpq", "",
     "Área do conhecimento da Tabela do CNPq", "Knowledge area of CNPq's table"),
    ("dc.subject", "pt-BR", True, True, "text", "", "", "Palavras-chave em português, uma "
     "por linha", "Keywords in Portuguese, one per line"),
    ("dc.subject", "en", False, True, "text", "", "", "Palavras-chave em inglês, uma por "
     "linha", "Keywords in English, one per line"),
    ("dc.description.abstract", "pt-BR", True, False, "textarea", "", "", "Resumo em português",
     "Abstract in Portuguese"),
    ("dc.description.abstract", "en", True, False, "textarea", "", "", "Resumo em inglês",
     "Abstract in English"),
    ("dc.identifier.citation", "", False, False, "text", "", "",
     "Referência da tese (ABNT NBR 6023)", "Reference of the thesis (ABNT NBR 6023)"),
    ("dc.type", "", False, True, "text", "", "", "", ""),
    ("dc.rights", "", False, True, "text", "", "", "", ""),
)

# The thesis profile's own labels where the registry's say less: (field, language) → (pt, en).
TESE_LABELS = {
    ("dc.title.alternative", "en"): ("Título em inglês", "Title in English"),
    ("dc.publisher", ""): ("Instituição", "Institution"),
    ("dc.date.issued", ""): ("Data da defesa", "Date of the defence"),
    ("dc.subject", "pt-BR"): ("Palavras-chave", "Keywords"),
    ("dc.subject", "en"): ("Palavras-chave", "Keywords"),
    ("dc.description.abstract", "pt-BR"): ("Resumo", "Abstract"),
    ("dc.description.abstract", "en"): ("Resumo", "Abstract"),
    ("dc.identifier.citation", ""): ("Referência", "Reference"),
}
LABELS = {"tese": TESE_LABELS}

PROFILES = {
    "padrao": ("Padrão", "Default", "Os campos de Dublin Core simples de todo depósito.", PADRAO),
    "tese": ("Tese/dissertação (MTD-BR)", "Thesis/dissertation (MTD-BR)",
             "Teses e dissertações como o MTD-BR do IBICT e a BDTD as descrevem.", TESE),
}
