"""The controlled values of a deposit: dc:type from common COAR resource types, dc:rights from
a list of licences, each stored as its URI however it was given. Pure: no Django.

`stored` is the one rule, for the admin, the API and `importitems` alike (services call it): a
type or licence given as its URI (either scheme, with or without the last slash), as its label
in any language the site speaks ("Technical report", "Relatório técnico", COAR's own
"technical report"), or a licence as its SPDX id or short name ("CC-BY-4.0", "CC BY 4.0"), is
stored as the URI, so that search finds one type under one value and every format reads it
exactly. Any other value is kept as written::

    >>> stored("type", "Relatório  Técnico", [{"Technical report": "Relatório técnico"}.get])
    'http://purl.org/coar/resource_type/c_18gh'
    >>> stored("type", "https://purl.org/coar/resource_type/c_18gh/")
    'http://purl.org/coar/resource_type/c_18gh'
    >>> stored("rights", "CC BY 4.0"), stored("type", "Mapa astral")
    ('https://creativecommons.org/licenses/by/4.0/', 'Mapa astral')

The labels are for people: marked for translation here (makemessages extracts the calls of a
function named gettext_noop), translated by whoever shows them; `label_of` gives a stored
value's label, untranslated.
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass

COAR_TYPE = "http://purl.org/coar/resource_type/"


def gettext_noop(message: str) -> str:
    return message


# The librarian picks a dc:type among these common COAR types (metadata/vocabularies.py maps
# every COAR type to the other vocabularies).
TYPE_CHOICES: tuple[tuple[str, str], ...] = tuple((COAR_TYPE + coar, label) for coar, label in (
    ("c_93fc", gettext_noop("Report")),
    ("c_18gh", gettext_noop("Technical report")),
    ("c_18ws", gettext_noop("Research report")),
    ("c_6501", gettext_noop("Journal article")),
    ("c_5794", gettext_noop("Conference paper")),
    ("c_f744", gettext_noop("Conference proceedings")),
    ("c_6670", gettext_noop("Conference poster")),
    ("c_8544", gettext_noop("Lecture or presentation")),
    ("c_2f33", gettext_noop("Book")),
    ("c_3248", gettext_noop("Book chapter")),
    ("c_46ec", gettext_noop("Thesis")),
    ("c_db06", gettext_noop("Doctoral thesis")),
    ("c_bdcc", gettext_noop("Master thesis")),
    ("c_7a1f", gettext_noop("Bachelor thesis")),
    ("c_816b", gettext_noop("Preprint")),
    ("c_8042", gettext_noop("Working paper")),
    ("c_71bd", gettext_noop("Technical documentation")),
    ("c_ddb1", gettext_noop("Dataset")),
    ("c_5ce6", gettext_noop("Software")),
    ("c_c513", gettext_noop("Image")),
    ("c_12cd", gettext_noop("Map")),
    ("c_12ce", gettext_noop("Video")),
    ("c_18cc", gettext_noop("Sound")),
    ("c_18cf", gettext_noop("Text")),
    ("c_1843", gettext_noop("Other")),
))
# OpenAIRE's publication types (info:eu-repo/semantics/<type>, Guidelines for Literature
# Repositories v3, the vocabulary of Brazilian DSpaces under IBICT's guidelines) as COAR types,
# by COAR's own mapping (annotation: other; a contribution to a periodical: an article), each
# named for people as a choice, or by _MORE_TYPE_LABELS when it is none.
EU_REPO_TYPE = "info:eu-repo/semantics/"
EU_REPO_TYPES = {name.lower(): COAR_TYPE + coar for name, coar in (
    ("article", "c_6501"), ("bachelorThesis", "c_7a1f"), ("masterThesis", "c_bdcc"),
    ("doctoralThesis", "c_db06"), ("book", "c_2f33"), ("bookPart", "c_3248"),
    ("review", "c_efa0"), ("conferenceObject", "c_c94f"), ("lecture", "c_8544"),
    ("workingPaper", "c_8042"), ("preprint", "c_816b"), ("report", "c_93fc"),
    ("annotation", "c_1843"), ("contributionToPeriodical", "c_6501"), ("patent", "c_15cd"),
    ("technicalDocumentation", "c_71bd"), ("researchProposal", "c_baaf"),
    ("studentThesis", "c_46ec"), ("dataset", "c_ddb1"), ("software", "c_5ce6"),
    ("other", "c_1843"),
)}
_MORE_TYPE_LABELS = {COAR_TYPE + coar: label for coar, label in (
    ("c_c94f", gettext_noop("Conference object")), ("c_efa0", gettext_noop("Review")),
    ("c_15cd", gettext_noop("Patent")), ("c_baaf", gettext_noop("Research proposal")),
)}
# COAR's own labels where they are not the choice's label in lower case.
_COAR_LABELS = {COAR_TYPE + "c_8544": "lecture", COAR_TYPE + "c_3248": "book part"}


@dataclass(frozen=True)
class Licence:
    uri: str  # stored as dc:rights: DataCite's rightsURI, Signposting's "license" link
    spdx: str  # the SPDX identifier ("" for a rights statement that is no licence)
    label: str  # for people, marked for translation

    @property
    def short(self) -> str:
        """The name in the label's brackets, else the SPDX id: "CC BY 4.0", "MIT"."""
        head, bracket, rest = self.label.rpartition("(")
        return rest.rstrip(")") if bracket and head else self.spdx


# Creative Commons and common software licences by their canonical URL, and "all rights
# reserved" as RightsStatements.org's In Copyright, so that every choice is a URI.
LICENCES: tuple[Licence, ...] = (
    Licence("https://creativecommons.org/licenses/by/4.0/", "CC-BY-4.0",
            gettext_noop("Creative Commons Attribution 4.0 (CC BY 4.0)")),
    Licence("https://creativecommons.org/licenses/by-sa/4.0/", "CC-BY-SA-4.0",
            gettext_noop("Creative Commons Attribution-ShareAlike 4.0 (CC BY-SA 4.0)")),
    Licence("https://creativecommons.org/licenses/by-nc/4.0/", "CC-BY-NC-4.0",
            gettext_noop("Creative Commons Attribution-NonCommercial 4.0 (CC BY-NC 4.0)")),
    Licence("https://creativecommons.org/licenses/by-nc-sa/4.0/", "CC-BY-NC-SA-4.0",
            gettext_noop("Creative Commons Attribution-NonCommercial-ShareAlike 4.0 "
                         "(CC BY-NC-SA 4.0)")),
    Licence("https://creativecommons.org/licenses/by-nd/4.0/", "CC-BY-ND-4.0",
            gettext_noop("Creative Commons Attribution-NoDerivatives 4.0 (CC BY-ND 4.0)")),
    Licence("https://creativecommons.org/licenses/by-nc-nd/4.0/", "CC-BY-NC-ND-4.0",
            gettext_noop("Creative Commons Attribution-NonCommercial-NoDerivatives 4.0 "
                         "(CC BY-NC-ND 4.0)")),
    Licence("https://creativecommons.org/publicdomain/zero/1.0/", "CC0-1.0",
            gettext_noop("Public domain dedication (CC0 1.0)")),
    Licence("https://spdx.org/licenses/MIT.html", "MIT", gettext_noop("MIT License")),
    Licence("https://spdx.org/licenses/Apache-2.0.html", "Apache-2.0",
            gettext_noop("Apache License 2.0")),
    Licence("https://spdx.org/licenses/GPL-3.0-or-later.html", "GPL-3.0-or-later",
            gettext_noop("GNU General Public License 3.0 or later")),
    Licence("http://rightsstatements.org/vocab/InC/1.0/", "",
            gettext_noop("In copyright: all rights reserved")),
)


def fold(value: str) -> str:
    """Lower case, no accents, single spaces: "Relatório  Técnico" → "relatorio tecnico"."""
    plain = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode()
    return " ".join(plain.lower().replace("_", " ").split())


def _bare(uri: str) -> str:
    return uri.strip().lower().removeprefix("https://").removeprefix("http://").rstrip("/")


_TYPE_BY_NAME: dict[str, str] = {}
for _uri, _label in TYPE_CHOICES:
    for _name in (_bare(_uri), fold(_label), fold(_COAR_LABELS.get(_uri, _label))):
        _TYPE_BY_NAME.setdefault(_name, _uri)
_MORE_TYPES = {_bare(uri): label for uri, label in _MORE_TYPE_LABELS.items()}
_LICENCE_BY_NAME: dict[str, Licence] = {}
for _licence in LICENCES:
    for _name in (_bare(_licence.uri), fold(_licence.label), fold(_licence.short),
                  _licence.spdx.lower()):
        if _name:
            _LICENCE_BY_NAME.setdefault(_name, _licence)


def eu_repo_type(value: str) -> str | None:
    """The COAR type URI of an OpenAIRE publication type, or None::

        >>> eu_repo_type("info:eu-repo/semantics/masterThesis")
        'http://purl.org/coar/resource_type/c_bdcc'
    """
    text = value.strip().lower()
    if not text.startswith(EU_REPO_TYPE):
        return None
    return EU_REPO_TYPES.get(text[len(EU_REPO_TYPE):].strip("/"))


# Any Creative Commons licence by its URL, whatever its version and port (3.0 BR, the one
# Brazilian repositories have long written), with or without deed or legalcode.
_CC = re.compile(r"(?:www\.)?creativecommons\.org/licenses/(by(?:-nc)?(?:-sa|-nd)?)/"
                 r"([1-4]\.[05])(?:/([a-z]{2}(?:-[a-z]{2})?))?"
                 r"(?:/(?:legalcode|deed)(?:\.[a-z_-]+)?)?(?:\.[a-z]+)?")


def _creative_commons(value: str) -> Licence | None:
    found = _CC.fullmatch(_bare(value))
    if found is None:
        return None
    kind, version, port = found.groups()
    path = "/".join(p for p in (kind, version, port) if p)
    short = " ".join(p for p in ("CC", kind.upper(), version, (port or "").upper()) if p)
    return Licence(f"https://creativecommons.org/licenses/{path}/",
                   "" if port else f"CC-{kind.upper()}-{version}",
                   f"Creative Commons ({short})")


def licence_of(value: str) -> Licence | None:
    """The Licence a dc:rights value names (its URL in either scheme, its SPDX id, its label
    or short name in English; any Creative Commons licence URL, ports too), or None::

        >>> licence_of("CC-BY-4.0").uri
        'https://creativecommons.org/licenses/by/4.0/'
        >>> licence_of("http://creativecommons.org/licenses/by/4.0").spdx
        'CC-BY-4.0'
        >>> licence_of("http://creativecommons.org/licenses/by-nc-nd/3.0/br/").short
        'CC BY-NC-ND 3.0 BR'
    """
    found = _LICENCE_BY_NAME.get(_bare(value)) or _LICENCE_BY_NAME.get(fold(value))
    if found is None and (found := _creative_commons(value)) is not None:
        found = _LICENCE_BY_NAME.get(_bare(found.uri), found)  # one of ours, as a deed URL
    return found


def type_choice_of(value: str) -> str | None:
    """The TYPE_CHOICES URI a dc:type value names (its URI in either scheme, its label or
    COAR's in English), or None::

        >>> type_choice_of("https://purl.org/coar/resource_type/c_18gh/")
        'http://purl.org/coar/resource_type/c_18gh'
        >>> type_choice_of("Technical report") == type_choice_of("technical  report")
        True
        >>> type_choice_of("Mapa astral") is None
        True
    """
    return _TYPE_BY_NAME.get(_bare(value)) or _TYPE_BY_NAME.get(fold(value))


Translate = Callable[[str], "str | None"]


def stored(element: str, value: str, translations: Iterable[Translate] = ()) -> str:
    """What is stored for a dc:type or dc:rights value (any other element's value as given):
    the URI it names, read in English and through each of `translations` (a label's
    translation in one language, e.g. Django's gettext under that language)."""
    if element == "type":
        found = type_choice_of(value) or eu_repo_type(value)
        if found is None:
            names = {fold(t(label) or label): uri
                     for t in translations for uri, label in TYPE_CHOICES}
            found = names.get(fold(value))
        return found or value
    if element == "rights":
        licence = licence_of(value)
        if licence is None:
            names = {fold(t(lic.label) or lic.label): lic for t in translations for lic in LICENCES}
            licence = names.get(fold(value))
        return licence.uri if licence is not None else value
    return value


# -- Access rights: one vocabulary for every importer (importsaf, harvest, importitems) --------

# COAR's access rights as this repository's levels, from the most open to the most restrictive.
ACCESS_LEVELS = ("open", "embargoed", "restricted", "metadata-only")
OPEN, EMBARGOED, RESTRICTED, METADATA_ONLY = ACCESS_LEVELS
COAR_ACCESS = "purl.org/coar/access_right/"
EU_REPO_ACCESS = "info:eu-repo/semantics/"
_COAR_CODES = {"c_abf2": OPEN, "c_f1cf": EMBARGOED, "c_16ec": RESTRICTED,
               "c_14cb": METADATA_ONLY}
# Folded to letters and digits: OpenAIRE's info:eu-repo/semantics/*Access terms, COAR's labels
# in English, Portuguese and Spanish, the words DSpace writes (its access conditions and
# access status), and those Brazilian and Latin American repositories write.
_ACCESS_WORDS = {word: level for level, words in {
    OPEN: ("openaccess", "open", "acessoaberto", "acessolivre", "accesoabierto",
           "accesolibre"),
    EMBARGOED: ("embargoedaccess", "embargo", "embargoed", "acessoembargado",
                "accesoembargado", "emembargo", "embargado"),
    RESTRICTED: ("restrictedaccess", "restricted", "lease", "acessorestrito",
                 "accesorestringido", "restrito", "restringido"),
    METADATA_ONLY: ("closedaccess", "metadataonlyaccess", "metadataonly", "administrator",
                    "closed", "acessofechado", "acessoapenasaosmetadados",
                    "acessosomenteaosmetadados", "acessoapenasametadados",
                    "acessosomenteametadados", "apenasmetadados", "somentemetadados",
                    "accesocerrado", "accesosoloametadatos", "accesosolometadatos",
                    "solometadatos", "fechado", "cerrado"),
}.items() for word in words}
# A licence is a licence, never an access level, whatever field it is written in.
_LICENCE_HOSTS = ("creativecommons.org/", "rightsstatements.org/", "spdx.org/licenses/",
                  "opensource.org/licenses/", "gnu.org/licenses/")


def _letters(value: str) -> str:
    return "".join(c for c in fold(value) if c.isascii() and c.isalnum())


def access_of(value: str) -> str | None:
    """The level an access right names, None when it names none the vocabulary knows::

        >>> access_of("http://purl.org/coar/access_right/c_16ec"), access_of("Acesso aberto")
        ('restricted', 'open')
        >>> access_of("info:eu-repo/semantics/closedAccess"), access_of("metadata only access")
        ('metadata-only', 'metadata-only')
        >>> access_of("All rights reserved") is None
        True
    """
    text = _bare(value)
    if text.startswith(COAR_ACCESS):
        return _COAR_CODES.get(text[len(COAR_ACCESS):])
    if text.startswith(EU_REPO_ACCESS):
        return _ACCESS_WORDS.get(_letters(text[len(EU_REPO_ACCESS):]))
    return _ACCESS_WORDS.get(_letters(value))


def in_access_namespace(value: str) -> bool:
    """Whether a value is written as an access right (a COAR access right's URI, an
    info:eu-repo/semantics term), known or not."""
    return _bare(value).startswith((COAR_ACCESS, EU_REPO_ACCESS))


def is_licence(value: str) -> bool:
    """Whether a rights value is a licence (Creative Commons, a rights statement, SPDX …)."""
    return (_bare(value).removeprefix("www.").startswith(_LICENCE_HOSTS)
            or licence_of(value) is not None)


def most_restrictive(*levels: str) -> str:
    """`most_restrictive("open", "restricted", "embargoed") == "restricted"`."""
    return max(levels, key=ACCESS_LEVELS.index)


def label_of(value: str) -> str | None:
    """The label for people (untranslated) of a dc:type or dc:rights value that is one of the
    choices, or None for any other value::

        >>> label_of("http://purl.org/coar/resource_type/c_18gh"), label_of("CC-BY-4.0")
        ('Technical report', 'Creative Commons Attribution 4.0 (CC BY 4.0)')
        >>> label_of("Relatório técnico") is None
        True
    """
    uri = type_choice_of(value)
    if uri is not None:
        return dict(TYPE_CHOICES)[uri]
    if _bare(value) in _MORE_TYPES:
        return _MORE_TYPES[_bare(value)]
    licence = licence_of(value)
    return licence.label if licence is not None else None
