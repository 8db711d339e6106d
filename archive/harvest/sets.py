"""The OAI-PMH sets of this repository, as setSpecs. Pure: no database, no request.

- `type:<kind>`: items by resource type, the COAR concept their first recognised dc:type
  names (`type:technical_report`, `type:journal_article`, …; see metadata/vocabularies.py);
  an item with no recognised dc:type is `type:text`, as its records say.
- `language:<tag>`: items by language, the BCP 47 tag of the item (`language:pt-BR`).
- `openaire`: what OpenAIRE should harvest: the literature (a `type:` of OpenAIRE's
  "literature") that this Archive holds as Original, tombstones of its Originals included,
  so that OpenAIRE learns of withdrawals. Copies are left out: their Original's Archive
  publishes them, and OpenAIRE would count them twice.
- `type` and `language`: the parents of the hierarchy (every item; every item with a language).
- `col_<slug>` and `com_<slug>`: a collection's items (owned and mapped) and a community's (of
  every collection under it), as DSpace names them, so that a harvester configured for DSpace
  keeps working. Flat, as DSpace's are: the tree is the communities', not the setSpecs'.

A setSpec admits letters, digits and `-_.!~*'()` (OAI-PMH.xsd's setSpecType, `:` separating
the levels): spaces in a value become `_`, and any other character `~` and its UTF-8 bytes in
hex, so that every setSpec is valid and names one value::

    >>> encode("technical report"), encode("a_b~ç")
    ('technical_report', 'a~5Fb~7E~C3~A7')
    >>> parse("type:technical_report").value.coar_label, parse("language:PT-br").value
    ('technical report', 'pt-BR')
    >>> parse("nonsense") is None, specs(parse("type:text").value, "en", original=True)
    (True, ['type:text', 'language:en', 'openaire'])
    >>> parse("col_teses-ppgee"), parse("com_"), collection_spec("teses-ppgee")
    (OaiSet(family='col', value='teses-ppgee'), None, 'col_teses-ppgee')
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache

from ..metadata.vocabularies import Kind, all_kinds, is_language

OPENAIRE = "openaire"
TYPE = "type"
LANGUAGE = "language"
COLLECTION = "col"
COMMUNITY = "com"
_TREE = re.compile(r"(col|com)_([a-z0-9_-]+)")  # DSpace's prefixes and our slugs
SET_SPEC = re.compile(r"([A-Za-z0-9\-_\.!~\*'\(\)])+(:[A-Za-z0-9\-_\.!~\*'\(\)]+)*")
_PLAIN = re.compile(r"[A-Za-z0-9\-\.!\*'\(\)]")  # kept as they are (not _ and ~: escapes)


def encode(value: str) -> str:
    """One level of a setSpec naming `value` (see the module's docstring)."""
    out = []
    for char in value:
        if char == " ":
            out.append("_")
        elif _PLAIN.fullmatch(char):
            out.append(char)
        else:
            out.append("".join(f"~{byte:02X}" for byte in char.encode()))
    return "".join(out)


def canonical_language(tag: str) -> str:
    """pt-br → pt-BR (BCP 47's conventional case: language lower, script title, region upper)."""
    parts = tag.split("-")
    out = [parts[0].lower()]
    for part in parts[1:]:
        if len(part) == 4 and part.isalpha():
            out.append(part.title())
        elif len(part) == 2 and part.isalpha() or len(part) == 3 and part.isdigit():
            out.append(part.upper())
        else:
            out.append(part.lower())
    return "-".join(out)


@cache  # a harvest page asks it a thousand times of a few kinds and languages
def type_spec(kind: Kind) -> str:
    return f"{TYPE}:{encode(kind.coar_label)}"


@lru_cache(maxsize=512)
def language_spec(tag: str) -> str:
    return f"{LANGUAGE}:{encode(canonical_language(tag))}"


_KINDS_BY_SPEC = {type_spec(k): k for k in all_kinds()}


@dataclass(frozen=True)
class OaiSet:
    """What a setSpec selects: family "type" (value a Kind or None for all), "language"
    (value a canonical tag or "" for every item with a language), "openaire", "col" or
    "com" (value a slug)."""

    family: str
    value: Kind | str | None = None


def collection_spec(slug: str) -> str:
    return f"{COLLECTION}_{slug}"


def community_spec(slug: str) -> str:
    return f"{COMMUNITY}_{slug}"


def valid(spec: str) -> bool:
    """Whether a setSpec is well formed (OAI-PMH.xsd's setSpecType)."""
    return bool(SET_SPEC.fullmatch(spec))


def parse(spec: str) -> OaiSet | None:
    """The set a setSpec names, or None when this repository has no such set."""
    if spec == OPENAIRE:
        return OaiSet(OPENAIRE)
    if spec == TYPE:
        return OaiSet(TYPE)
    if spec == LANGUAGE:
        return OaiSet(LANGUAGE, "")
    if spec in _KINDS_BY_SPEC:
        return OaiSet(TYPE, _KINDS_BY_SPEC[spec])
    tree = _TREE.fullmatch(spec)
    if tree:  # whether that slug is there is the database's to say (harvest/selectors.py)
        return OaiSet(tree.group(1), tree.group(2))
    family, _, tag = spec.partition(":")
    if family == LANGUAGE and is_language(tag):
        return OaiSet(LANGUAGE, canonical_language(tag))
    return None


def specs(kind: Kind, language: str, *, original: bool) -> list[str]:
    """The setSpecs of an item: its kind, its language (if any), and `openaire` if it is
    literature held here as Original (`original`: Original, or the tombstone of one)."""
    found = [type_spec(kind)]
    if language and is_language(language):
        found.append(language_spec(language))
    if original and kind.is_literature:
        found.append(OPENAIRE)
    return found
