"""Asking the other included Archives for one round of a resolution (§8.2 step 2), at the cost
of as few requests as give the answer §8.2's selection would choose.

1. The home Archive first: an IBI's repository name carries the host of the subsystem that
   minted it (RTC-10), an IBIp its IP; the included Archive that answers for that host
   (fanout.py `home_of`) is asked alone. When its answer, with ours, makes the selection take
   an Original's URL (`decisive`), the round ends there: one request.
2. Then where the item was found last (memory.py), when that is another Archive: asked alone,
   with the reader's own address, as the home is. Its answer is read as any other; a location
   never outranks the home, which is asked before it.
3. Otherwise every other included Archive at once (fanout.py `remote_answers`), the answers
   already in counting first (they arrived first).

What the round found is remembered for the next one: where the Original's URL came from, or,
when every included Archive was asked and answered, that nobody holds the IBI. With
``ibiurl.requireditemstatus=Original`` every Archive is asked, those left alone by a breaker
too, and nothing remembered is used: the standard's rival check needs every answer. Why the
result is §8.2's: docs/conformance.md, "What the resolver remembers".
"""
from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..identifiers import ibi as ibilib
from ..models import RegisteredArchive
from . import memory
from .fanout import (
    home_archive,
    home_of,
    included_others,
    remote_answers,
    remote_archives,
    stop_on_original,
)
from .languages import Preferences
from .reading import Answer, state_of
from .relations import Step
from .selection import choose


@dataclass(frozen=True)
class Question:
    """One round's question: the IBI, what is wanted of it, and how the selection reads the
    answers."""

    ibi: ibilib.Ibi
    pairs: dict[str, str]  # the urlRequest of Table 8.9
    wanted: tuple[Step, ...]
    prefs: Preferences
    original: bool  # ibiurl.requireditemstatus=Original
    to_original: bool = False


@dataclass
class Asked:
    """What the round brought: the non-empty answers in the order they count, the Archives
    that gave none, the Archives asked."""

    answers: list[Answer] = field(default_factory=list)
    silent: list[str] = field(default_factory=list)
    asked: list[RegisteredArchive] = field(default_factory=list)

    @property
    def unheard(self) -> list[int]:
        """The ids of the Archives asked that gave no usable answer."""
        return [a.pk for a in self.asked if a.archive_service_ibi in self.silent]


def _key(question: Question) -> tuple[str, tuple[str, ...], str | None]:
    pairs = question.pairs
    return (pairs["parsedibiurl.ibi"], tuple(pairs.get("parsedibiurl.verblist", "").split()),
            pairs.get("parsedibiurl.filepath"))


def decisive(question: Question, local: Sequence[Answer], found: Sequence[Answer]) -> bool:
    """Whether these answers make §8.2's selection take another Archive's Original URL: no
    later answer could change it (what `stop_on_original` ends a fan-out on)."""
    return not question.original and _taken(question, local, found) is not None


def _taken(question: Question, local: Sequence[Answer], found: Sequence[Answer]
           ) -> Answer | None:
    """The other Archive's answer the selection takes, when its URL is an Original's."""
    if not found:
        return None
    choice = choose([*local, *found], question.wanted, question.prefs,
                    original=question.original, to_original=question.to_original)
    if (choice.kind == "found" and not choice.answer.source.local
            and state_of(choice.answer, choice.hit.relation) == "Original"):
        return choice.answer
    return None


def _is(archive: RegisteredArchive | None, location: memory.Location) -> bool:
    return (archive is not None and archive.pk == location.archive
            and archive.address == location.address)


def _remember(question: Question, taken: Answer, known: memory.Location | None) -> None:
    """Keep where the Original's URL came from, unless that is what was known already."""
    found = memory.Location(taken.source.archive, taken.source.address)
    if found != known:
        ibi, verbs, _filepath = _key(question)
        memory.remember(ibi, verbs, found)


class Others:
    """The other included Archives, read when first needed: the home alone first (one small
    query), every one only when the home does not settle it."""

    def __init__(self, service) -> None:
        self.service = service  # this Archive's archive service item, or None
        self._all: list[RegisteredArchive] | None = None

    def all(self) -> list[RegisteredArchive]:
        if self._all is None:
            self._all = remote_archives(self.service)
        return self._all

    def home(self, ibi: ibilib.Ibi) -> RegisteredArchive | None:
        if self._all is not None:
            return home_of(ibi, self._all)
        return home_archive(ibi, self.service)

    def at(self, location: memory.Location) -> RegisteredArchive | None:
        """The Archive remembered, while it is included at the address it answered from. The
        row is read here, whatever the cache says: an exclusion, or an inclusion at another
        address, is seen at once by every process, even by workers that keep their memory
        apart (no CACHE_URL)."""
        if self._all is not None:
            return next((a for a in self._all if _is(a, location)), None)
        found = included_others(RegisteredArchive.objects.filter(
            pk=location.archive, address=location.address), self.service)
        return found[0] if found else None


def ask(question: Question, others: Others, local: Sequence[Answer],
        deadline: float, reader: str = "") -> Asked:
    """The round's answers from the other Archives, within `deadline` seconds; `local` is
    this Archive's own answer (empty or one), `reader` the client's address (fanout.py)."""
    end = time.monotonic() + deadline
    done = Asked()
    ibi, verbs, filepath = _key(question)
    if not question.original:
        location, nobody = memory.recall(ibi, verbs, filepath)
        if nobody:  # remembered: no Archive asked
            return done
        first = [home] if (home := others.home(question.ibi)) is not None else []
        if (location is not None and not _is(home, location)
                and (remembered := others.at(location)) is not None):
            first.append(remembered)
        for archive in first:
            left = end - time.monotonic()
            if left <= 0:
                break
            found, silent = remote_answers([archive], question.pairs, left, None, reader)
            done.answers += found
            done.silent += silent
            done.asked.append(archive)
            if (taken := _taken(question, local, done.answers)) is not None:
                _remember(question, taken, location)
                return done
        if location is not None:
            memory.forget(ibi, verbs)  # it no longer gives the Original's URL
    rest = [a for a in others.all() if a not in done.asked]
    left = end - time.monotonic()
    if rest and left > 0:
        stop = (None if question.original else
                stop_on_original(rest, question.wanted, question.prefs, question.pairs))
        found, silent = remote_answers(rest, question.pairs, left, stop, reader,
                                       probe_all=question.original)
        done.answers += found
        done.silent += silent
        done.asked += rest
    if (taken := _taken(question, local, done.answers)) is not None:
        _remember(question, taken, None)
    elif not done.answers and not done.silent and left > 0:
        memory.remember_none(ibi, verbs, filepath)  # every one asked, and every one answered
    return done
