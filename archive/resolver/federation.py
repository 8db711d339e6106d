"""Asking the other included Archives for one round of a resolution (§8.2 step 2), at the cost
of as few requests as give the answer §8.2's selection would choose.

1. The home Archive first: an IBI's repository name carries the host of the subsystem that
   minted it (RTC-10), an IBIp its IP; the included Archive that answers for that host
   (fanout.py `home_of`) is asked alone. When its answer, with ours, makes the selection take
   an Original's URL (`decisive`), the round ends there: one request.
2. Otherwise every other included Archive at once, as before (fanout.py `remote_answers`),
   the home's answer counting first (it arrived first).

With ``ibiurl.requireditemstatus=Original`` every Archive is asked: the standard's rival check
needs every answer. Why the result is §8.2's: docs/conformance.md, "Asking fewer Archives".
"""
from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..identifiers import ibi as ibilib
from ..models import RegisteredArchive
from .answers import Answer, state_of
from .fanout import home_of, remote_answers, stop_on_original
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


def decisive(question: Question, local: Sequence[Answer], found: Sequence[Answer]) -> bool:
    """Whether these answers make §8.2's selection take another Archive's Original URL: no
    later answer could change it (what `stop_on_original` ends a fan-out on)."""
    if question.original or not found:
        return False
    choice = choose([*local, *found], question.wanted, question.prefs, original=False,
                    to_original=question.to_original)
    return (choice.kind == "found" and not choice.answer.source.local
            and state_of(choice.answer, choice.hit.relation) == "Original")


def ask(question: Question, archives: Sequence[RegisteredArchive], local: Sequence[Answer],
        deadline: float, reader: str = "") -> Asked:
    """The round's answers from the other Archives, within `deadline` seconds; `local` is
    this Archive's own answer (empty or one), `reader` the client's address (fanout.py)."""
    end = time.monotonic() + deadline
    done = Asked()
    if not question.original:
        home = home_of(question.ibi, archives)
        if home is not None:
            found, silent = remote_answers([home], question.pairs, deadline, None, reader)
            done.answers += found
            done.silent += silent
            done.asked.append(home)
            if decisive(question, local, found):
                return done
    rest = [a for a in archives if a not in done.asked]
    left = end - time.monotonic()
    if rest and left > 0:
        stop = (None if question.original else
                stop_on_original(rest, question.wanted, question.prefs, question.pairs))
        found, silent = remote_answers(rest, question.pairs, left, stop, reader)
        done.answers += found
        done.silent += silent
        done.asked += rest
    return done
