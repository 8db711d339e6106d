"""Selection (§8.2, Figure 8.1 step 3) among the answers of one round. Pure.

With ``ibiurl.requireditemstatus=Original`` exactly one Archive claiming the Original is taken
and two or more are suspects (an alert); otherwise the first answer with the wanted URL is taken
(the local one first, then by arrival), and for a relation the first whose URL is an Original's,
when one is. An answer without that URL but naming a related IBI on the way
(``ibi.translation(pt)``, ``ibi.lastedition`` …, or ``ibi.nextedition`` for ``!``) is a hop:
ask again with that IBI and the rest of the verbs.

Decisions where the standard leaves room:

* Without the Original required, an answer with the URL wins over the first non-empty answer
  that would need another round: same result, one round less. A reply whose URL's state is
  Original ends the round at once: no other answer can be better.
* A tombstone (``state Deleted``) counts as the Original's word: with the Original required it
  is a claim like any other (two claims → suspects).
* The word on a relation of an answer no Copy gave (the next edition it names, a translation
  held elsewhere) goes before a Copy's URL or hop for it (#25, 2).
* A relation that reaches only a Copy's URL (``!`` at the Archive a new edition migrated away
  from, which keeps a Copy of it) is asked once more by the IBI the answer names for it
  (``ibi.lastedition``, ``ibi.translation(pt)``), the Original first: the same information
  item, from the Archive that holds its Original when one answers, the Copy otherwise (#25).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..identifiers import ibi as ibilib
from .languages import Preferences
from .reading import Answer, Hit, find_hop, find_url, ibi_in, ibis_in, state_of
from .relations import Step


@dataclass
class Choice:
    kind: str  # found | deleted | hop | conflict | copies_only | none
    answer: Answer | None = None
    hit: Hit | None = None
    hop: tuple[str, tuple[Step, ...]] | None = None
    suspects: list[Answer] = field(default_factory=list)
    to_original: bool = False  # a hop from a Copy's URL to where the Original may be


def _copy_hop(answer: Answer, hit: Hit) -> tuple[str, tuple[Step, ...]] | None:
    """For a relation whose only URL is a Copy's: the IBI of the item it reached, when the
    answer names it and it is another item, to be asked again of every Archive."""
    if state_of(answer, hit.relation) != "Copy" or not hit.relation:
        return None
    target = ibi_in(answer.forms(hit.relation))
    if target is None or ibilib.parse(target) in ibis_in(answer.forms()):
        return None
    return target, ()


def _a_copys(answer: Answer) -> bool:
    """Whether a Copy gave the answer: a state it gives, for any relation, is Copy (a verb
    list may leave out the item's own state)."""
    return any(name.split(".", 1)[0] == "state" and answer.word(name) == "Copy"
               for name in answer.pairs)


def _not_copies_first(answers: Sequence[Answer]) -> list[Answer]:
    """The answers in their order, those that are no Copy's first (an Original's, or one that
    does not say: Example 10.2's answer for ``!`` names only ``ibi.nextedition``)."""
    return sorted(answers, key=_a_copys)


def _originals_hop(answers: Sequence[Answer], wanted: Sequence[Step], prefs: Preferences
                   ) -> Choice | None:
    """The way on that an answer no Copy gave names (``ibi.nextedition`` for ``!``,
    ``ibi.translation(pt)`` …): it goes before a Copy's URL for the relation, which is its
    Original's as of the last copy (a Copy of a first edition, copied before the second came,
    names itself its last edition)."""
    for answer in answers:
        if (not answer.deleted and not _a_copys(answer)
                and (hop := find_hop(answer, wanted, prefs))
                and ibilib.parse(hop[0]) not in ibis_in(answer.forms())):  # not back to itself
            return Choice("hop", answer, hop=hop)
    return None


def choose(answers: Sequence[Answer], wanted: Sequence[Step], prefs: Preferences, *,
           original: bool, to_original: bool = False) -> Choice:
    """§8.2 on the non-empty answers of one round, in the order they count (local first).

    For a relation an Original's URL goes before a Copy's: a Copy's relations are those of
    its Original when it was copied (a later edition, a new translation are not in them). A
    relation that reaches only a Copy's URL names the item it reached (``ibi.lastedition``,
    ``ibi.translation(pt)``): that IBI is asked again of every Archive, the Original first
    (`to_original`), which a migration may have taken elsewhere; a Copy's URL is the answer
    still when no Original answers then."""
    hits = [(a, find_url(a, wanted, prefs)) for a in answers if not a.deleted]
    with_url = [(a, hit) for a, hit in hits if hit is not None]
    if wanted or to_original:
        with_url.sort(key=lambda found: state_of(found[0], found[1].relation) != "Original")
    tombstones = [a for a in answers if a.deleted]
    if original:
        claims = [(a, hit) for a, hit in with_url if state_of(a, hit.relation) == "Original"]
        claims += [(a, None) for a in tombstones]
        if len(claims) > 1:
            return Choice("conflict", suspects=[a for a, _ in claims])
        if claims:
            answer, hit = claims[0]
            return Choice("found", answer, hit) if hit else Choice("deleted", answer)
    elif with_url:
        answer, hit = with_url[0]
        if wanted and state_of(answer, hit.relation) != "Original" and (
                word := _originals_hop(answers, wanted, prefs)):
            return word
        if wanted and (hop := _copy_hop(answer, hit)):
            return Choice("hop", answer, hop=hop, to_original=True)
        return Choice("found", answer, hit)
    elif tombstones:
        return Choice("deleted", tombstones[0])
    for answer in _not_copies_first(answers):
        if not answer.deleted and (hop := find_hop(answer, wanted, prefs)):
            return Choice("hop", answer, hop=hop)
    if with_url:  # only copies, and the Original was required
        return Choice("copies_only", with_url[0][0], suspects=[a for a, _ in with_url])
    return Choice("none", answers[0] if answers else None)


def settles(choice: Choice, held: str | None, wanted: Sequence[Step], *,
            original: bool, to_original: bool = False) -> bool:
    """Whether our own answer, about an item held here in state `held`, ends the round
    without asking the other Archives (§8.2: the first answer that satisfies the request).

    With the Original required nothing settles it here: §8.2 step 3 analyses every answer
    ("analisará todas as respostas"), and a second Archive claiming the Original makes both
    suspects, even when one of them is this Archive.

    Otherwise a URL whose state is Original settles it. A Copy's URL settles only a request
    for the item itself (a file, its file list): what the Copy holds is what its Original
    held; not when that item was reached through a relation (`to_original`: its Original is
    looked for). Otherwise an Original's word (a hop it names, no such translation, a tombstone)
    settles it: the relations of an Original are held where it is. A Copy's does not, except
    a tombstone (deleted at its source) and a hop to another IBI its Original relates to,
    which is asked of every Archive in turn.
    """
    if original:
        return False
    if choice.kind == "found":
        if state_of(choice.answer, choice.hit.relation) == "Original":
            return True
        return not wanted and not to_original
    if choice.to_original:
        return False  # where the Original of the item reached is held, others may know
    if choice.kind == "copies_only":
        return False
    if held != "Copy" or choice.kind == "deleted":
        return True
    return choice.kind == "hop" and ibilib.parse(choice.hop[0]) not in ibis_in(
        choice.answer.forms())
