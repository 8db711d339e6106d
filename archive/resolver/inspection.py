"""Inspection without redirect (Handle's ``?noredirect``, ARK's ``?info``): what a resolution found.

``GET /inspect/<ibi>[mdf][/path][?query]`` runs the very resolution ``/<ibi>[mdf][/path]
[?query]`` runs (resolve.py, with its guards: the deny-list, deadlines, ``safe_url``) and
shows its rounds instead of redirecting: which Archives were asked, which answered, with what
state, timestamp and URL, and which answer was chosen, and why. Nothing found is ever followed
or fetched, and no access is counted: an inspection is no reading. It has a route of its own:
a persistent URL's query belongs to RTC-11 (``ibiurl.`` pairs) and to the item (every other
pair, passed on to it by the redirect), never to this Archive.

`report` is the JSON answer (``Accept: application/json`` or ``?format=json``); the HTML page
shows the same. Its keys:

- ``persistent_url``: the persistent URL inspected;
- ``ibi``, ``modifier``, ``verbs``, ``filepath``, ``required_item_status``: what the
  persistent-URL parser read (RTC-11 Table 8.6);
- ``outcome``: ``found``, ``deleted``, ``conflict``, ``copies_only``, ``not_found``, ``bounded``,
  ``unreachable`` or ``translation_missing``; ``status``: the HTTP status the persistent URL
  itself answers with that outcome (the same `Outcome.status` its view answers: 302, 404,
  409, 410 or 503);
  ``url``: where the request is redirected (null unless it is, 302); ``reason``: why, in
  words, from what was asked (an Original "the only one claiming it" only when some other
  Archive was asked);
- ``chosen``: the answer that decided (an *answer*, below), or null;
- ``silent``: the archive service IBIs of the Archives that gave no answer in time;
- ``rounds``: each question asked, in order (a relation may lead to another IBI): ``ibi``,
  ``relation`` (Table 9.5, ``""`` for the item itself), ``choice`` (``found``, ``deleted``,
  ``hop``, ``conflict``, ``copies_only``, ``none``), ``next_ibi`` (for a hop), ``reason``,
  and ``archives``: every Archive asked, this one first, each an *answer*.

An *answer*: ``archive`` (its archive service IBI), ``address``, ``local`` (this Archive),
``answered`` (it gave a non-empty answer), ``silent`` (no answer in time), ``state``
(Original, Copy or Deleted), ``timestamp``, ``url`` (the URL it gave for what was asked, or
null) and ``chosen``.
"""
from __future__ import annotations

from collections.abc import Sequence

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from ..protocol.persistent_url import PersistentUrl
from . import languages, reading, relations
from . import resolve as resolver


def _hit(answer: reading.Answer, wanted, prefs) -> reading.Hit | None:
    return None if answer.deleted else reading.find_url(answer, wanted, prefs)


def _answer(answer: reading.Answer | None, wanted, prefs, *, source=None, chosen=False,
            silent=False) -> dict:
    """One Archive's part in a round, as the JSON report shows it."""
    if answer is None:
        return {"archive": source[1], "address": source[2], "local": source[0] is None,
                "answered": False, "silent": silent, "state": None,
                "timestamp": None, "url": None, "chosen": False}
    hit = _hit(answer, wanted, prefs)
    relation = hit.relation if hit else ""
    return {"archive": answer.source.service_ibi, "address": answer.source.address,
            "local": answer.source.local, "answered": True, "silent": False,
            "state": answer.word("state" + relation) or answer.word("state"),
            "timestamp": answer.word("timestamp" + relation) or answer.word("timestamp"),
            "url": hit.url if hit else None, "chosen": chosen}


def _original_reason(asked: int, silent: int) -> str:
    """Why the Original required was found, saying how many rivals could have claimed it."""
    if not asked:
        return _("this Archive holds the Original, and no other Archive is included at this "
                 "resolver to claim it")
    if silent:
        return ngettext(
            "the only Archive claiming the Original among those that answered "
            "(%(asked)d other asked, %(silent)d of them silent)",
            "the only Archive claiming the Original among those that answered "
            "(%(asked)d others asked, %(silent)d of them silent)", asked) % {
                "asked": asked, "silent": silent}
    return ngettext("the only Archive claiming the Original (%(asked)d other asked)",
                    "the only Archive claiming the Original (%(asked)d others asked)",
                    asked) % {"asked": asked}


def _reason(kind: str, answer: reading.Answer | None, hit: reading.Hit | None, *,
            original: bool, asked_others: bool, next_ibi: str | None = None,
            language: str | None = None, asked: int = 0, silent: int = 0) -> str:
    if kind == "found":
        state = reading.state_of(answer, hit.relation) if answer and hit else None
        if answer is not None and answer.stand_in:
            return _("its Archive announced no format but oai_dc: this resolver renders "
                     "%(format)s from the oai_dc record it gave") % {"format": answer.stand_in}
        if original:
            return _original_reason(asked, silent)
        if answer is not None and answer.source.local and not asked_others:
            return _("this Archive holds the item and its own answer settles the request: "
                     "no other Archive was asked")
        if state == "Original":
            return _("the first answer with the URL asked for from the Archive holding the "
                     "Original")
        return _("the first answer with the URL asked for; no Original gave one")
    if kind == "deleted":
        return _("the item was deleted: its Archive answers with a tombstone")
    if kind == "hop":
        return _("the answer names %(ibi)s for the rest of the way: that IBI is asked next") % {
            "ibi": next_ibi}
    if kind == "conflict":
        return _("more than one Archive claims the Original: they are suspects")
    if kind == "copies_only":
        return _("only copies answered, and the Original is required")
    if kind == "translation_missing":
        return _("the item exists, but not in the language %(language)s") % {
            "language": language or ""}
    if kind == "bounded":
        return _("the chain of answers still went on when this resolver stopped following it "
                 "(its time or its number of rounds): nothing says the item does not exist")
    if kind == "unreachable":
        return _("no Archive answered with anything, and some could not be asked or gave no "
                 "usable answer in time: nothing says the item does not exist")
    return _("no Archive answered with what was asked for")


def _round(found: resolver.Round, prefs, here: tuple[str, str], *, original: bool,
           asked_others: bool) -> dict:
    choice = found.choice
    chosen = choice.answer if choice.kind in ("found", "deleted", "hop") else None
    by_archive = {answer.source.archive: answer for answer in found.answers}
    local = by_archive.get(None)
    archives = [_answer(local, found.wanted, prefs, source=None if local else (None, *here),
                        chosen=local is not None and local is chosen)]
    for pk, service_ibi, address in found.asked:
        answer = by_archive.get(pk)
        entry = _answer(answer, found.wanted, prefs, source=(pk, service_ibi, address),
                        chosen=answer is not None and answer is chosen,
                        silent=service_ibi in found.silent)
        archives.append(entry)
    next_ibi = choice.hop[0] if choice.hop else None
    return {"ibi": found.ibi, "relation": _relation(found.wanted), "choice": choice.kind,
            "next_ibi": next_ibi,
            "reason": _reason(choice.kind if choice.kind != "none" else "not_found",
                              choice.answer, choice.hit, original=original,
                              asked_others=asked_others, next_ibi=next_ibi,
                              asked=len(found.asked), silent=len(found.silent)),
            "archives": archives}


def _relation(wanted: Sequence[relations.Step]) -> str:
    return "".join(f".{kind}" + (f"({argument})" if argument else "")
                   for kind, argument in wanted)


def report(url: PersistentUrl, outcome: resolver.Outcome, persistent: str,
           here: tuple[str, str], accept_language: str = "") -> dict:
    """The JSON report of one resolution (keys in the module docstring); `here` is this
    Archive's (archive service IBI, address), for a round where it had nothing to say."""
    prefs = languages.preferences(accept_language)
    original = url.required_item_status == "Original"
    chosen = None
    if outcome.answer is not None and outcome.kind in ("found", "deleted"):
        chosen = _answer(outcome.answer, outcome.wanted, prefs, chosen=True)
    return {
        "persistent_url": persistent, "ibi": url.ibi, "modifier": url.modifier,
        "verbs": list(url.verbs), "filepath": url.filepath,
        "required_item_status": url.required_item_status,
        "outcome": outcome.kind, "status": outcome.status,
        "url": outcome.url if outcome.status == 302 else None,
        "reason": _reason(outcome.kind, outcome.answer, outcome.hit, original=original,
                          asked_others=outcome.asked_others,
                          language=outcome.missing_language, asked=outcome.others_asked,
                          silent=len(outcome.silent)),
        "chosen": chosen, "silent": list(outcome.silent),
        "rounds": [_round(r, prefs, here, original=original, asked_others=outcome.asked_others)
                   for r in outcome.rounds],
    }
