"""Reading one Archive's answer to a urlRequest (archive_service/answers.py writes this
Archive's own): who gave it (`Source`), its pairs (`Answer`), the URL it has for the steps
wanted (`find_url`, the reader's best language first) and, lacking it, the IBI to ask about
next (`find_hop`). Pure.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..identifiers import ibi as ibilib
from ..protocol.pairs import Value
from .languages import Preferences, preference
from .relations import Step, match, relation_of, steps


@dataclass(frozen=True)
class Source:
    """Who answered: this Archive (archive None) or a registered one."""

    address: str  # host[:port] its URLs must point at
    service_ibi: str
    archive: int | None = None  # RegisteredArchive id
    hosts: tuple[str, ...] = ()  # other spellings of its host: its archiveip, the IP reached

    @property
    def local(self) -> bool:
        return self.archive is None


@dataclass(frozen=True)
class Answer:
    source: Source
    pairs: dict[str, Value]
    # The format (bibtex …) this Archive's oai_dc answer stands in for, when it was asked
    # GetMetadata(oai_dc) instead (formats.py): its URL is an oai_dc record to render from.
    stand_in: str = ""

    def word(self, name: str) -> str | None:
        value = self.pairs.get(name)
        return value if isinstance(value, str) else None

    @property
    def deleted(self) -> bool:
        return self.word("state") == "Deleted"

    def forms(self, relation: str = "") -> list[str]:
        value = self.pairs.get("ibi" + relation)
        return [value] if isinstance(value, str) else list(value or [])


def ibi_in(forms: Sequence[str]) -> str | None:
    """The first valid IBI of a forms-of-IBI value (Table 9.4: ``rep X ibip Y``)."""
    for word in forms[1::2] if len(forms) % 2 == 0 else forms:
        try:
            return ibilib.canonical(word)
        except ValueError:
            continue
    return None


def ibis_in(forms: Sequence[str]) -> set[ibilib.Ibi]:
    """Every valid IBI of a forms-of-IBI value."""
    found = set()
    for word in forms:
        try:
            found.add(ibilib.parse(word))
        except ValueError:
            continue
    return found


@dataclass(frozen=True)
class Hit:
    relation: str
    url: str
    key: tuple = ()


def find_url(answer: Answer, wanted: Sequence[Step], prefs: Preferences) -> Hit | None:
    """The ``url<relation>`` pair the wanted steps ask for, the browser's best language first;
    for a bare ``+`` in no language the browser accepts, the item in its original language."""
    best: Hit | None = None
    for name, value in answer.pairs.items():
        if not is_url(name) or not isinstance(value, str):
            continue
        given = steps(name[3:])
        chosen = None if given is None else match(wanted, given)
        key = None if chosen is None else preference(chosen, prefs)
        if key is not None and (best is None or (key, name[3:]) < (best.key, best.relation)):
            best = Hit(name[3:], value, key)
    if best is None and ("translation", None) in wanted:
        return original_language(answer, wanted)
    return best


def _names_itself(answer: Answer, given: Sequence[Step], position: int) -> bool:
    """Whether the step at `position` of a relation is a translation that names the item it
    translates: ``ibi.translation(en)`` = ``ibi`` in Example 9.2 (the item is in English), or
    a bare ``.translation`` (the item in its original language, Example 8.3)."""
    kind, argument = given[position]
    if kind != "translation":
        return False
    if argument is None:
        return True
    before = ibis_in(answer.forms(relation_of(given[:position])))
    return bool(before & ibis_in(answer.forms(relation_of(given[:position + 1]))))


def original_language(answer: Answer, wanted: Sequence[Step]) -> Hit | None:
    """Example 8.3: a bare ``+`` the reader's languages cannot satisfy returns the item in its
    original language. The ``url`` pair of the relation without that step, or of a
    translation that names the item itself (Example 9.3 has only ``url.translation(en)`` and
    ``url.translation(pt)``, and ``ibi.translation(en)`` is the item), the shortest first."""
    plain = tuple(step for step in wanted if step != ("translation", None))
    found = []
    for name, value in answer.pairs.items():
        given = steps(name[3:]) if is_url(name) and isinstance(value, str) else None
        if given is None:
            continue
        kept = tuple(step for position, step in enumerate(given)
                     if not _names_itself(answer, given, position))
        if kept == plain:
            found.append((len(given), name[3:], value))
    if not found:
        return None
    _, relation, url = min(found)
    return Hit(relation, url, ((float("inf"), 0),))


def find_hop(answer: Answer, wanted: Sequence[Step], prefs: Preferences
             ) -> tuple[str, tuple[Step, ...]] | None:
    """(IBI, remaining steps) to ask next when the answer lacks the URL (§8.2, §10.2): the
    IBI of the longest part of the way it names, else ``ibi.nextedition`` for ``!``."""
    for length in range(len(wanted), 0, -1):
        best = None
        for name in answer.pairs:
            given = steps(name[3:]) if name.startswith("ibi.") else None
            chosen = None if given is None else match(wanted[:length], given)
            key = None if chosen is None else preference(chosen, prefs)
            if key is not None and (best is None or (key, name) < best[:2]):
                best = (key, name, ibi_in(answer.forms(name[3:])))
        if best and best[2]:
            return best[2], tuple(wanted[length:])
    following = ibi_in(answer.forms(".nextedition"))
    if wanted and wanted[0][0] == "lastedition" and following:
        return following, tuple(wanted)
    return None


def state_of(answer: Answer, relation: str) -> str | None:
    return answer.word("state" + relation)


def is_url(name: str) -> bool:
    return name == "url" or name.startswith("url.")
