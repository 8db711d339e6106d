"""Asking the other included Archives for one round of a resolution (§8.2 step 2), at the cost
of as few requests as give the answer §8.2's selection would choose.

0. What is remembered (memory.py): the answer of the Archive that gave an Original's URL
   for the same question, taken as it is while fresh, asked again of that one Archive when
   older than IBI_RESOLVER_CACHE_TTL; an IBI no other Archive held, answered "nobody" at once.
1. The home Archive first: an IBI's repository name carries the host of the subsystem that
   minted it (RTC-10), an IBIp its IP; the included Archive that answers for that host
   (fanout.py `home_of`) is asked alone. When its answer, with ours, makes the selection take
   an Original's URL (`decisive`), the round ends there: one request.
2. Otherwise every other included Archive at once, as before (fanout.py `remote_answers`),
   the home's answer counting first (it arrived first).

What a round brings is remembered for the next one: the answer the selection takes when it
is another Archive's Original's URL, or that nobody answered. With
``ibiurl.requireditemstatus=Original`` every Archive is asked, never the memory alone: the
standard's rival check needs every answer. Why the result is §8.2's: docs/conformance.md,
"Asking fewer Archives".
"""
from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..identifiers import ibi as ibilib
from ..models import RegisteredArchive
from . import memory
from .answers import Answer, state_of
from .fanout import home_archive, home_of, remote_answers, remote_archives, stop_on_original
from .languages import Preferences
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
    recalled: bool = False  # answered from memory, no Archive asked
    settled: bool = True  # False: the others are still to be asked (`ask`)
    # Until when (POSIX time, memory.py's clock) the answer taken is remembered as fresh:
    # None when none is (nothing taken, or nothing kept).
    fresh_until: float | None = None


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


def recall(question: Question, local: Sequence[Answer], deadline: float,
           reader: str = "") -> Asked | None:
    """The round answered from memory (no Archive asked, or only the one whose remembered
    answer is stale), or None: the Archives are to be asked (`ask`); not `settled` when the
    one asked again no longer gives it (`ask` goes on from there)."""
    if question.original:
        return None
    remembered, nobody = memory.recall(*_key(question))
    if remembered is None:
        return Asked(recalled=True) if nobody else None
    # The Archive is read here, whatever the cache says: an exclusion, or an inclusion at
    # another address, is seen at once by every process, even by workers that keep their
    # memory apart (no CACHE_URL).
    archive = RegisteredArchive.objects.filter(pk=remembered.archive, included=True,
                                               address=remembered.answer.source.address
                                               ).first()
    if archive is not None and remembered.fresh and decisive(question, local,
                                                             [remembered.answer]):
        return Asked([remembered.answer], recalled=True, fresh_until=remembered.fresh_until)
    if archive is not None and archive.address:
        found, silent = remote_answers([archive], question.pairs, deadline, None, reader)
        if decisive(question, local, found):
            fresh = memory.remember(*_key(question), _taken(question, local, found))
            return Asked(found, silent, [archive], fresh_until=fresh)
        memory.forget_answer(*_key(question))
        return Asked(found, silent, [archive], settled=False)
    memory.forget_answer(*_key(question))
    return None


class Others:
    """The other included Archives, read when first needed: the home alone first (one small
    query), every one only when the home does not settle it."""

    def __init__(self, service) -> None:
        self.service = service  # this Archive's archive service item, or None
        self._all: list[RegisteredArchive] | None = None

    @property
    def read(self) -> bool:
        return self._all is not None

    def all(self) -> list[RegisteredArchive]:
        if self._all is None:
            self._all = remote_archives(self.service)
        return self._all

    def home(self, ibi: ibilib.Ibi) -> RegisteredArchive | None:
        if self._all is not None:
            return home_of(ibi, self._all)
        return home_archive(ibi, self.service)


def ask(question: Question, others: Others, local: Sequence[Answer],
        deadline: float, reader: str = "", begun: Asked | None = None) -> Asked:
    """The round's answers from the other Archives, within `deadline` seconds; `local` is
    this Archive's own answer (empty or one), `reader` the client's address (fanout.py),
    `begun` what `recall` asked already."""
    end = time.monotonic() + deadline
    done = begun or Asked()
    done.settled = True
    if not question.original:
        home = others.home(question.ibi)
        if home is not None and home not in done.asked:
            found, silent = remote_answers([home], question.pairs, deadline, None, reader)
            done.answers += found
            done.silent += silent
            done.asked.append(home)
            if decisive(question, local, found):
                done.fresh_until = memory.remember(*_key(question),
                                                   _taken(question, local, found))
                return done
    rest = [a for a in others.all() if a not in done.asked]
    left = end - time.monotonic()
    if rest and left > 0:
        stop = (None if question.original else
                stop_on_original(rest, question.wanted, question.prefs, question.pairs))
        found, silent = remote_answers(rest, question.pairs, left, stop, reader)
        done.answers += found
        done.silent += silent
        done.asked += rest
    if (taken := _taken(question, local, done.answers)) is not None:
        done.fresh_until = memory.remember(*_key(question), taken)
    elif not done.answers:
        memory.remember_none(*_key(question))
    return done
