"""What the resolver remembers of other Archives' answers (#29), in Django's cache: on Redis
every worker and app server shares it; `make run`'s per-process memory otherwise.

* An answer (`remember`, `recall`): for a question (IBI, verb list, file path), the answer of
  the Archive that gave an Original's URL for it, trusted IBI_RESOLVER_CACHE_TTL seconds. An
  older one is kept a while longer, to be asked again of that one Archive before use
  (federation.py), never used as it is.
* An IBI nobody else holds (`remember_none`, `none_recalled`): no other Archive gave a
  non-empty answer to the question; for IBI_RESOLVER_NEGATIVE_TTL seconds.
* Generations (`forget_archive`): an Archive's inclusion or exclusion gives it a new
  generation, and every Archive's inclusion a new one to the federation. An answer is taken
  only under the generation of its Archive it was kept with, a "nobody holds it" only under the
  federation's: so clearing them costs one write, not a search of the cache.
"""
from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache

from .answers import Answer

PREFIX = "ibi:resolver:memory"
KEPT_STALE = 24  # an answer older than its TTL stays this many TTLs, to be asked again


def now() -> float:
    """The clock of what is remembered (POSIX seconds)."""
    return time.time()


@dataclass(frozen=True)
class Recalled:
    """An answer remembered: it, until when it is fresh (POSIX time), the Archive that gave
    it."""

    answer: Answer
    fresh_until: float

    @property
    def fresh(self) -> bool:
        return now() < self.fresh_until

    @property
    def archive(self) -> int:
        return self.answer.source.archive


def _question_key(kind: str, ibi: str, verbs: Sequence[str], filepath: str | None) -> str:
    digest = hashlib.sha256("\n".join([ibi, " ".join(verbs), filepath or ""]).encode())
    return f"{PREFIX}:{kind}:{digest.hexdigest()[:40]}"


def _archive_generation_key(archive: int) -> str:
    return f"{PREFIX}:generation:{archive}"


FEDERATION_GENERATION = f"{PREFIX}:generation"


def recall(ibi: str, verbs: Sequence[str], filepath: str | None) -> tuple[Recalled | None, bool]:
    """(the answer remembered for the question or None, whether nobody else holds it): one
    trip to the cache, a second one for the generation of the Archive that answered."""
    answer_key = _question_key("answer", ibi, verbs, filepath)
    none_key = _question_key("none", ibi, verbs, filepath)
    found = cache.get_many([answer_key, none_key, FEDERATION_GENERATION])
    nobody = found.get(none_key)
    none = (nobody is not None and nobody[0] == found.get(FEDERATION_GENERATION, 0)
            and nobody[1] > now())
    kept = found.get(answer_key)
    if kept is None:
        return None, none
    generation, at, answer = kept
    if cache.get(_archive_generation_key(answer.source.archive), 0) != generation:
        return None, none
    return Recalled(answer, at + settings.IBI_RESOLVER_CACHE_TTL), none


def remember(ibi: str, verbs: Sequence[str], filepath: str | None, answer: Answer
             ) -> float | None:
    """Keep another Archive's answer that gave an Original's URL for the question; until when
    it is fresh (POSIX time), or None when nothing is kept."""
    ttl = settings.IBI_RESOLVER_CACHE_TTL
    if ttl <= 0 or answer.source.archive is None:
        return None
    generation = cache.get(_archive_generation_key(answer.source.archive), 0)
    at = now()
    cache.set(_question_key("answer", ibi, verbs, filepath), (generation, at, answer),
              ttl * KEPT_STALE)
    return at + ttl


def forget_answer(ibi: str, verbs: Sequence[str], filepath: str | None) -> None:
    """The remembered answer proved wrong (asked again, its Archive said otherwise)."""
    cache.delete(_question_key("answer", ibi, verbs, filepath))


def remember_none(ibi: str, verbs: Sequence[str], filepath: str | None) -> None:
    """No other Archive gave a non-empty answer to the question."""
    ttl = settings.IBI_RESOLVER_NEGATIVE_TTL
    if ttl <= 0:
        return
    cache.set(_question_key("none", ibi, verbs, filepath),
              (cache.get(FEDERATION_GENERATION, 0), now() + ttl), ttl)


def forget_archive(archive: int) -> None:
    """An Archive was included or excluded: what it answered is asked again, and what nobody
    held may now be held by it."""
    generation = time.time_ns()
    cache.set_many({_archive_generation_key(archive): generation,
                    FEDERATION_GENERATION: generation}, None)
