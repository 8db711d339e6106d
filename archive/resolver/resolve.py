"""The resolver of the resolution standard (RTC-11 §8.2): a persistent URL → one URL, or why not.

`resolve` runs the resolution process of Figure 8.1 for a parsed persistent URL:

1. An IBI held here is answered by this Archive's own archive service, in process
   (fanout.py `local_answer`, the code that answers other resolvers): no network hop.
   That answer settles it when it satisfies the request for sure (`settles`): an Original's
   answer does; a Copy's does for the item itself, but not for a relation (``!``, ``+``,
   ``:``) it cannot reach or vouch for. With the Original required nothing settles it here:
   every included Archive is asked, and a rival claim makes both suspects (§8.2 step 3). A
   Copy's relations are its Original's as of the last copy, and the Archive holding the
   Original knows better.
2. Otherwise the included Archives are asked (federation.py): the Archive that answers for the
   host that minted the IBI first, alone, and when its answer does not settle the round every
   other one at once (archive/protocol/client.py), each within IBI_RESOLVER_TIMEOUT, the whole
   resolution within IBI_RESOLVER_DEADLINE.
3. Selection (`choose`): with ``ibiurl.requireditemstatus=Original`` exactly one Archive
   claiming the Original is taken and two or more are suspects (an alert); otherwise the first
   answer with the wanted URL is taken (the local one first, then by arrival), and for a
   relation the first whose URL is an Original's, when one is (selection.py `choose`). An answer
   without that URL but naming a related IBI on the way (``ibi.translation(pt)``,
   ``ibi.lastedition`` …, or ``ibi.nextedition`` for ``!``) means asking again with that IBI and
   the rest of the verbs, as long as the chain advances (§8.2: "o processo se repetirá até
   que…"): never twice the same question. What stops a chain that still advances is a bound
   of this resolver, IBI_RESOLVER_DEADLINE or MAX_HOPS rounds, and the outcome says so
   (``bounded``: the view answers 503), never "not found".
   Every round (the question, the Archives asked, their answers, the choice) is kept in
   ``Outcome.rounds``, for inspection (``/inspect/…``, inspection.py) to show.
4. `acknowledge` says which Table 8.11 the chosen Archive is owed, for the view to send after
   the commit (a Celery task, resolver/tasks.py) or, for an answer of our own, counts the
   access here, without HTTP, off the reader's request (archive/usage/counter.py).

The parts: relations.py (Table 9.5 as steps), languages.py (``+`` and Accept-Language),
reading.py (one answer read), selection.py (the choice), safety.py (URLs on their own Archive),
fanout.py (asking), acknowledgments.py (Table 8.11).
"""
from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from django.conf import settings
from django.utils.translation import gettext_noop

from ..archive_service import requests
from ..deposit import selectors
from ..identifiers import ibi as ibilib
from ..models import RegisteredArchive
from ..protocol.client import query_string
from ..protocol.persistent_url import PersistentUrl, PersistentUrlError
from . import federation, health
from .fanout import ClientBusy, ResolverBusy, local_answer
from .languages import preferences
from .reading import Answer, Hit, ibis_in
from .relations import Step, match, steps, verbs_of
from .selection import Choice, choose, settles

__all__ = ["ClientBusy", "Outcome", "ResolverBusy", "Round", "resolve"]

MAX_HOPS = 1000  # rounds of one resolution: a safety bound, far beyond any edition chain
# The status of each outcome (the others, not found and translation missing, are 404).
STATUS = {"found": 302, "deleted": 410, "conflict": 409, "bounded": 503, "unreachable": 503}


@dataclass(frozen=True)
class Round:
    """One question of the resolution and what it met, kept for inspection (``/inspect/…``): the
    IBI and steps asked, the other Archives asked ((id, archive service IBI, address); this
    Archive is always asked first, in process), the non-empty answers, those silent, the
    choice."""

    ibi: str
    wanted: tuple[Step, ...]
    asked: tuple[tuple[int, str, str], ...]
    answers: tuple[Answer, ...]
    silent: tuple[str, ...]
    choice: Choice


@dataclass
class Outcome:
    kind: str  # found | deleted | conflict | copies_only | not_found | translation_missing
    #            | bounded (a bound of this resolver stopped a chain that still advanced)
    #            | unreachable (nobody answered with anything, and some Archive was not heard)
    ibi: str  # the IBI asked about last
    answer: Answer | None = None
    hit: Hit | None = None
    suspects: list[Answer] = field(default_factory=list)
    silent: list[str] = field(default_factory=list)  # Archives that did not answer in time
    wanted: tuple[Step, ...] = ()
    hops: int = 0
    asked_others: bool = False  # whether any other Archive was asked (else: our records only)
    rounds: list[Round] = field(default_factory=list)  # every question asked, in order
    bound: str = ""  # for bounded: "deadline", "timeout" (an Archive's) or "hops"
    answered: int = 0  # for unreachable: how many other Archives answered (with nothing)
    retry_after: int = 0  # for unreachable: seconds until it is worth asking again

    @property
    def url(self) -> str:
        return self.hit.url if self.hit else ""

    @property
    def status(self) -> int:
        """The HTTP status the persistent URL answers with this outcome (§8.2 step 7: the URL
        or an alert): what views/persistent_urls.py answers and inspection.py reports. A
        format this resolver renders from an Archive's oai_dc record (formats.py) is a 200."""
        if self.kind == "found" and self.answer.stand_in:
            return 200
        return STATUS.get(self.kind, 404)

    @property
    def others_asked(self) -> int:
        """How many other Archives were actually asked, in any round."""
        return len({pk for found in self.rounds for pk, _ibi, _address in found.asked})

    @property
    def missing_language(self) -> str | None:
        """The language asked for explicitly, when the item exists but not in it."""
        if self.kind != "translation_missing":
            return None
        return next((arg for kind, arg in self.wanted if kind == "translation" and arg), None)


def _translation_missing(answer: Answer | None, wanted: Sequence[Step]) -> bool:
    """Whether the item exists but not in a language asked for explicitly: the answer names
    no IBI for the way up to that translation (our archive service names every one it has)."""
    if answer is None:
        return False
    for position, (kind, argument) in enumerate(wanted):
        if kind == "translation" and argument:
            prefix = wanted[:position + 1]
            if not any(name.startswith("ibi.") and (given := steps(name[3:])) is not None
                       and match(prefix, given) is not None for name in answer.pairs):
                return True
    return False


def _outcome(choice: Choice, ibi_text: str, wanted: tuple[Step, ...], hops: int,
             silent: list[str], asked_others: bool, rounds: list[Round]) -> Outcome:
    kind = {"found": "found", "deleted": "deleted", "conflict": "conflict",
            "copies_only": "copies_only"}.get(choice.kind, "not_found")
    if kind == "not_found" and _translation_missing(choice.answer, wanted):
        kind = "translation_missing"
    return Outcome(kind, ibi_text, choice.answer, choice.hit, choice.suspects, silent, wanted,
                   hops, asked_others, rounds)


def _url_request(ips: Sequence[str], ibi_text: str, filepath: str | None,
                 verbs: Sequence[str]) -> dict[str, str]:
    """The urlRequest of Table 8.9 for one round."""
    pairs = {"servicesubject": "urlRequest", "clientinformation.ipaddress": " ".join(ips),
             "parsedibiurl.ibi": ibi_text}
    if filepath:
        pairs["parsedibiurl.filepath"] = filepath
    if verbs:
        pairs["parsedibiurl.verblist"] = " ".join(verbs)
    return pairs


def _check_request(pairs: dict[str, str]) -> None:
    """What the archive service refuses (its limits on Table 8.9's fields, the 1 024-character
    file path …) is refused to the reader here, before any Archive is asked: a reader's
    malformed request never reaches them, nor counts against them (#41)."""
    limit = requests.LIMITS["parsedibiurl.filepath"]
    if len(pairs.get("parsedibiurl.filepath", "")) > limit:
        raise PersistentUrlError(gettext_noop("The file path is longer than %(limit)s "
                                              "characters: no archive service answers it."),
                                 limit=str(limit))
    try:
        requests.read_request(query_string(pairs))
    except requests.ProtocolError as exc:
        raise PersistentUrlError(gettext_noop("No archive service would answer this request: "
                                              "%(detail)s"), detail=str(exc)) from None


def _minted_later(ibi: ibilib.Ibi) -> bool:
    """Whether the IBI's date is later than this resolver's clock, beyond
    IBI_RESOLVER_FUTURE_SKEW: RTC-10 never hands out a future date, so no Archive holds it
    yet, and none is asked (a repository name written in a local time ahead of UTC, or a
    clock ahead of ours, stays within the margin)."""
    return ibi.date > Decimal(time.time()) + Decimal(settings.IBI_RESOLVER_FUTURE_SKEW)


def resolve(url: PersistentUrl, *, ips: Sequence[str], accept_language: str = "",
            base: str | None = None, client: str = "") -> Outcome:
    """The resolution process (§8.2) for one persistent URL; see the module docstring.
    `client`: the reader's address, whose waiting resolutions are limited (fanout.py)."""
    prefs = preferences(accept_language)
    original = url.required_item_status == "Original"
    wanted = steps(url.relation()) or ()
    extra = ("GetFileList",) if "GetFileList" in url.verbs else ()
    filepath = url.filepath
    asked = ibilib.parse(url.ibi)  # ValueError for an IBI of the right shape but no date
    ibi_text = asked.text
    _check_request(_url_request(ips, ibi_text, filepath, verbs_of(wanted) + extra))
    archives: federation.Others | None = None
    end = time.monotonic() + settings.IBI_RESOLVER_DEADLINE
    seen: set[tuple] = set()
    silent: list[str] = []
    rounds: list[Round] = []
    to_original = False  # the item asked was reached from a Copy's URL: its Original first
    unheard: list[int] = []  # the other Archives asked that gave no usable answer
    for hops in range(MAX_HOPS):
        seen.add((asked, wanted, filepath))
        verbs = verbs_of(wanted) + extra
        local, held = local_answer(ibi_text, verbs, filepath, base)
        answers = [local] if local else []
        choice = choose(answers, wanted, prefs, original=original,
                        to_original=to_original) if local else None
        others: list[RegisteredArchive] = []
        quiet: list[str] = []
        if choice is None or not settles(choice, held, wanted, original=original,
                                         to_original=to_original):
            left = end - time.monotonic()
            pairs = _url_request(ips, ibi_text, filepath, verbs)
            question = federation.Question(asked, pairs, wanted, prefs, original, to_original)
            if archives is None:
                archives = federation.Others(selectors.archive_service_or_none())
            if left <= 0 and hops and archives.all():  # the chain goes on, time is over
                return Outcome("bounded", ibi_text, wanted=wanted, silent=silent,
                               hops=hops, asked_others=True, rounds=rounds, bound="deadline")
            if left > 0 and not _minted_later(asked):
                done = federation.ask(question, archives, answers, left, client)
                others, quiet = done.asked, done.silent
                answers += done.answers
                silent += [name for name in quiet if name not in silent]
                unheard += [pk for pk in done.unheard if pk not in unheard]
            choice = choose(answers, wanted, prefs, original=original, to_original=to_original)
        rounds.append(Round(ibi_text, wanted, tuple((a.pk, a.archive_service_ibi, a.address)
                                                    for a in others),
                            tuple(answers), tuple(quiet), choice))
        if choice.kind == "none" and hops and quiet:
            # The chain went on, and an Archive was cut short by this resolver's time for one
            # Archive, or for the whole resolution: that says nothing of the item.
            bound = "deadline" if time.monotonic() >= end else "timeout"
            return Outcome("bounded", ibi_text, wanted=wanted, silent=silent, hops=hops,
                           asked_others=True, rounds=rounds, bound=bound)
        if choice.kind == "none" and not answers and quiet:
            # Nobody answered with anything, and some Archive could not be asked or heard:
            # that says nothing of the item either (#41). When it is asked again: its
            # breaker's probe, else once the silent ones had time to come back.
            probe = health.next_probe(unheard)
            retry = probe if probe is not None else settings.IBI_RESOLVER_DEADLINE
            return Outcome("unreachable", ibi_text, wanted=wanted, silent=silent, hops=hops,
                           asked_others=True, rounds=rounds,
                           answered=len({pk for r in rounds for pk, _i, _a in r.asked}
                                        - set(unheard)),
                           retry_after=max(1, math.ceil(retry)))
        if choice.kind != "hop":
            return _outcome(choice, ibi_text, wanted, hops, silent,
                            archives is not None, rounds)
        next_ibi, next_wanted = choice.hop  # next_ibi: valid, canonical (ibi_in)
        # A hop asks for one item directly: the file path and the file list still apply. The
        # same IBI again (an item that is its own last edition or translation) or a question
        # asked before would bring nothing new.
        question = (ibilib.parse(next_ibi), next_wanted, filepath)
        itself = ibis_in(choice.answer.forms()) | {asked}
        if question in seen or question[0] in itself:
            return _outcome(Choice("none", choice.answer), ibi_text, wanted, hops, silent,
                            archives is not None, rounds)
        asked, ibi_text, wanted = question[0], question[0].text, next_wanted
        to_original = choice.to_original
    return Outcome("bounded", ibi_text, wanted=wanted, silent=silent, hops=MAX_HOPS,
                   asked_others=archives is not None, rounds=rounds, bound="hops")
