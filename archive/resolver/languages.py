"""``+`` without a language (§9.2, Example 9.3): the reader's Accept-Language picks among the
``url…translation(xx)`` pairs of an answer. Pure.

No acceptable language → the item in its original language (Example 8.3): the bare
``.translation`` pair, which our archive service gives, or else the pair without the
translation, or a ``translation(xx)`` that names the item itself, as Example 9.2's
``ibi.translation(en)`` does (reading.py `original_language`). The header is read by
metadata/accept.py (werkzeug's parser: q-values, q=0 kept as "not this").
"""
from __future__ import annotations

from ..metadata.accept import languages as _ranges

Preferences = list[tuple[str, float]]


def preferences(header: str) -> Preferences:
    """The browser's language ranges, best first (q=0 kept: "not this")."""
    return _ranges(header or "")


def _rank(tag: str, prefs: Preferences) -> tuple[int, int] | None:
    """Where a language tag of an answer stands in the browser's list (lower is better).

    RFC 4647: a range matches its tag exactly, or a longer tag (``pt`` → ``pt-BR``); a range
    with a region falls back to its language (``pt-br`` → ``pt``). q=0 excludes.
    """
    tag = tag.lower()
    primary = tag.split("-")[0]
    if any(q == 0 and rng in (tag, primary) for rng, q in prefs):
        return None
    for position, (rng, q) in enumerate(prefs):
        if q == 0:
            continue
        if rng == tag:
            return position, 0
        if rng == primary:
            return position, 1
        if rng.split("-")[0] == tag:
            return position, 2
        if rng == "*":
            return position, 3
    return None


def _bare_rank(prefs: Preferences) -> tuple[int, int]:
    # The original language comes after every language the browser names, but before the
    # languages only "*" accepts.
    star = next((i for i, (rng, q) in enumerate(prefs) if rng == "*" and q > 0), len(prefs))
    return star, 0


def preference(chosen: tuple[str, ...], prefs: Preferences) -> tuple | None:
    ranks = []
    for tag in chosen:
        rank = _bare_rank(prefs) if tag == "" else _rank(tag, prefs)
        if rank is None:
            return None
        ranks.append(rank)
    return tuple(ranks)
