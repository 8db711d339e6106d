"""What the resolver remembers of the federation (#29, #41), in Django's cache: on Redis every
worker and app server shares it; `make run`'s per-process memory otherwise.

RTC-11 §5.1: "O resolvedor pode ou não armazenar a informação sobre a localização, na Web, dos
itens de informação. No entanto, esta informação deve estar armazenada nos respectivos
Arquivos." So the resolver keeps *where* an item is, never *what* its Archive said of it:

* A location (`remember`, `recall`): for an IBI and a verb list, which included Archive gave
  the Original's URL the last time. It is a hint of whom to ask first, never an answer: that
  Archive is asked again, with the reader's own address (§9.2 lets an Archive answer by it),
  and its answer is read as any other (federation.py). A wrong location costs one request
  more, never a wrong answer; kept IBI_RESOLVER_CACHE_TTL seconds.
* An absence (`remember_none`, `none_recalled`): every included Archive was asked and
  answered, and none holds the IBI. Answered "not found" for IBI_RESOLVER_NEGATIVE_TTL
  seconds: the one staleness the resolver adds (an Archive that comes to hold the IBI
  meanwhile is heard at the latest then). It is forgotten for every IBI at once by any
  inclusion, exclusion or switch-on (`forget_all`): a generation number, one write.
"""
from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache

PREFIX = "ibi:resolver:memory"
GENERATION = f"{PREFIX}:generation"


def now() -> float:
    """The clock of what is remembered (POSIX seconds)."""
    return time.time()


@dataclass(frozen=True)
class Location:
    """Where an item was last found: an included Archive, at the address it answered from."""

    archive: int  # RegisteredArchive id
    address: str


def _key(kind: str, *parts: str) -> str:
    digest = hashlib.sha256("\n".join(parts).encode())
    return f"{PREFIX}:{kind}:{digest.hexdigest()[:40]}"


def _location_key(ibi: str, verbs: Sequence[str]) -> str:
    return _key("where", ibi, " ".join(verbs))


def _none_key(ibi: str, verbs: Sequence[str], filepath: str | None) -> str:
    return _key("none", ibi, " ".join(verbs), filepath or "")


def recall(ibi: str, verbs: Sequence[str], filepath: str | None) -> tuple[Location | None, bool]:
    """(where the item was found last, or None; whether nobody holds it): one trip to the
    cache."""
    where, none = _location_key(ibi, verbs), _none_key(ibi, verbs, filepath)
    found = cache.get_many([where, none, GENERATION])
    nobody = found.get(none)
    absent = (nobody is not None and nobody[0] == found.get(GENERATION, 0)
              and nobody[1] > now())
    return found.get(where), absent


def remember(ibi: str, verbs: Sequence[str], location: Location) -> None:
    """Keep where the Original's URL for this IBI and verb list was found."""
    ttl = settings.IBI_RESOLVER_CACHE_TTL
    if ttl > 0:
        cache.set(_location_key(ibi, verbs), location, ttl)


def forget(ibi: str, verbs: Sequence[str]) -> None:
    """The location no longer gives the Original's URL."""
    cache.delete(_location_key(ibi, verbs))


def remember_none(ibi: str, verbs: Sequence[str], filepath: str | None) -> None:
    """Every included Archive was asked and answered, and none holds the IBI."""
    ttl = settings.IBI_RESOLVER_NEGATIVE_TTL
    if ttl <= 0:
        return
    cache.set(_none_key(ibi, verbs, filepath), (cache.get(GENERATION, 0), now() + ttl), ttl)


def forget_all() -> None:
    """An Archive was included, excluded or switched on or off: an IBI nobody held may be held
    now, whatever it is."""
    cache.set(GENERATION, time.time_ns(), None)
