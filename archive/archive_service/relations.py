"""The relations of Table 9.5 this Archive answers, and what they lead to for one item.

`ALL_PATTERNS` are the relation patterns MontarListaDeURL (Algorithm 2) lists, `pattern_of` the
one a verb list asks for (FiltrarListaDeURL, Example 9.3), and `expand` walks a pattern from the
item asked about to the information items it reaches (`Node`: an item's data or its metadata in
a format), loading editions and translation families once each (`Related`). Decisions where the
standard leaves room: answers.py's docstring.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

from ..deposit import selectors
from ..metadata.formats import FORMATS
from ..models import Item

_TAG = re.compile(r"[a-z]{2}(?:-[A-Z]{2})?")  # Table 9.5: idioma ["-" país]

LAST, TRANSLATION, METADATA = "lastedition", "translation", "metadata"
EVERY_LANGUAGE = "*"  # a translation step of a bare GetTranslation: bare and every language
Step = tuple[str, str | None]


_FIRST = [(), ((LAST, None),), ((TRANSLATION, EVERY_LANGUAGE),),
          ((LAST, None), (TRANSLATION, EVERY_LANGUAGE)),
          ((TRANSLATION, EVERY_LANGUAGE), (LAST, None))]
# The metadata step: the metadata page, or a record in one of FORMATS (oai_dc, bibtex, …).
_SECOND = [()] + [pattern for argument in ("", *FORMATS)
                  for pattern in (((METADATA, argument),),
                                  ((METADATA, argument), (TRANSLATION, EVERY_LANGUAGE)))]
# ([u [t]] | [t [u]]) [m [t]]: every relation pattern this Archive answers.
ALL_PATTERNS: list[tuple[Step, ...]] = [a + b for a in _FIRST for b in _SECOND]


def pattern_of(verbs: Iterable[str]) -> tuple[Step, ...]:
    """The relation pattern of a verb list: ``GetLastEdition GetMetadata(oai_dc)`` →
    ``.lastedition.metadata(oai_dc)``; GetFileList changes URLs, not the relation."""
    steps: list[Step] = []
    for verb in verbs:
        name, _, argument = verb.partition("(")
        argument = argument.rstrip(")")
        if name == "GetLastEdition":
            steps.append((LAST, None))
        elif name == "GetTranslation":
            steps.append((TRANSLATION, argument or EVERY_LANGUAGE))
        elif name == "GetMetadata":
            steps.append((METADATA, argument))
    return tuple(steps)


def relation_templates() -> list[str]:
    """Every relation answered, with xx / xx-YY standing for the languages on file."""
    names = set()
    for pattern in ALL_PATTERNS:
        texts = [""]
        for position, (kind, argument) in enumerate(pattern):
            if kind == LAST:
                endings = [".lastedition"]
            elif kind == METADATA:
                endings = [f".metadata({argument})" if argument else ".metadata"]
            elif any(k == METADATA for k, _ in pattern[:position]):
                endings = [".translation"]
            else:
                endings = [".translation", ".translation(xx)", ".translation(xx-YY)"]
            texts = [t + e for t in texts for e in endings]
        names.update(texts)
    return sorted(names)


# -- What the relations of one item lead to ----------------------------------------------------

@dataclass(frozen=True)
class Node:
    """An information item: an item's data (metadata None) or its metadata in a format."""

    item: Item
    metadata: str | None = None


def ibi_forms(rep: str, ibip: str) -> list[str]:
    return ["rep", rep] + (["ibip", ibip] if ibip else [])


def _tags(language: str) -> tuple[list[str], list[str]]:
    """Relation tags of a BCP 47 tag: exact ones, and the plain language as a weaker alias."""
    exact = [language] if _TAG.fullmatch(language) else []
    primary = language.split("-")[0]
    alias = [primary] if primary != language and re.fullmatch("[a-z]{2}", primary) else []
    return exact, alias


def _held_elsewhere(ibi: str, language: str = "") -> Item:
    """An item a Copy's Original relates to and this Archive does not hold: named, unsaved."""
    return Item(ibi=ibi, ibip="", language=language)


def _known_last(newest: Item) -> Item | None:
    """The newest edition held here, unless a later one is held elsewhere (a Copy's Original
    has one, or a migrated Original's next edition stayed where it was)."""
    if newest.origin_relations.get(".nextedition"):
        return None
    return newest


def next_edition_forms(item: Item) -> list[str] | None:
    """``ibi.nextedition``: the next edition held here, else the one held elsewhere that its
    relations name (Item.origin_relations)."""
    if item.next_ibi:
        return ibi_forms(item.next_ibi, item.next_ibip)
    following = item.origin_relations.get(".nextedition")
    return ibi_forms(following, "") if following else None


class Related:
    """The item asked about and what its relations reach, loaded lazily: one query per kind
    of relation used (last edition, translation families, their last editions), so at most
    three queries however many items, editions or translations are on file. A last edition
    not known here is None (`_known_last`)."""

    def __init__(self, item: Item):
        self.item = item  # from selectors.item_with_next_edition

    @cached_property
    def last(self) -> Item | None:
        if not self.item.next_ibi:
            return _known_last(self.item)
        newest = selectors.newest_editions([self.item])
        return _known_last(newest.get(self.item.edition_family, self.item))

    @cached_property
    def _members(self) -> list[Item]:
        # Translations are reached from the item and from its last edition (Table 9.5).
        return selectors.translation_families(filter(None, [self.item, self.last]))

    @cached_property
    def _members_last(self) -> dict[str, Item]:
        return selectors.newest_editions(self.family(self.item))

    def family(self, item: Item) -> list[Item]:
        root = item.translation_of_id or item.pk
        found = [m for m in self._members if m.pk == root or m.translation_of_id == root]
        return found or [item]

    def last_of(self, item: Item) -> Item | None:
        if item.pk is None:  # held elsewhere: its editions are not known here
            return None
        if item.pk == self.item.pk or (self.last is not None and item.pk == self.last.pk):
            return self.last
        return _known_last(self._members_last.get(item.edition_family, item))

    def languages(self, item: Item) -> dict[str, Item]:
        """Tag → member of item's family; item itself first, then live items, then originals,
        then the members held elsewhere that the family's members remember (a Copy's
        Original's, a migrated Original's former Archive's)."""
        members = sorted(self.family(item), key=lambda m: (
            m.pk != item.pk, m.is_deleted, m.translation_of_id is not None, m.pk))
        members += [_held_elsewhere(ibi, relation[len(".translation("):-1])
                    for member in members if not member.is_deleted
                    for relation, ibi in sorted(member.origin_relations.items())
                    if relation.startswith(".translation(")]
        found: dict[str, Item] = {}
        for which in (0, 1):  # exact tags before aliases
            for member in members:
                for tag in _tags(member.language)[which]:
                    found.setdefault(tag, member)
        return dict(sorted(found.items()))


def expand(related: Related, pattern: Sequence[Step]) -> list[tuple[str, Node]]:
    """(relation, information item) for a relation pattern; nothing where a language lacks."""
    found = [("", Node(related.item))]
    for kind, argument in pattern:
        step: list[tuple[str, Node]] = []
        for relation, node in found:
            if kind == LAST:
                last = related.last_of(node.item)
                if last is not None:
                    step.append((relation + ".lastedition", Node(last)))
            elif kind == METADATA:
                text = f".metadata({argument})" if argument else ".metadata"
                step.append((relation + text, Node(node.item, argument)))
            elif node.metadata is not None:  # metadata pages have no language of their own
                if argument == EVERY_LANGUAGE:
                    step.append((relation + ".translation", node))
            else:
                choices = related.languages(node.item)
                if argument == EVERY_LANGUAGE:
                    step.append((relation + ".translation", node))
                    step += [(f"{relation}.translation({tag})", Node(member))
                             for tag, member in choices.items()]
                elif argument in choices:
                    step.append((f"{relation}.translation({argument})", Node(choices[argument])))
        found = step
    return found
