"""Pair-list answers over HTTP: what both services send (RTC-11 §6.2, text/plain); the
pair lists themselves are archive/protocol/pairs.py's, this is the HTTP around them (shared by
the archive service's and the resolver's views and the error policy, errors.py).

`render_pairs` writes any pair-list answer of the archive service and the resolver service:
text/plain always, whatever the client's Accept ("toda resposta … deve ser gerada com o
Content-Type assumindo o valor text/plain"; a client library preferring JSON, as axios does by
default, gets the standard's answer). `never_cache` stamps it uncacheable cheaply.
"""
from __future__ import annotations

import time

from django.http import HttpResponse
from django.utils.http import http_date

from ..protocol.pairs import Pair, dumps

PAIR_LIST_TYPE = "text/plain; charset=us-ascii"


def render_pairs(pairs: list[Pair], status: int = 200) -> HttpResponse:
    """A pair list, text/plain. Never cached: answers carry fresh urlkeys."""
    return render_pair_text(dumps(pairs), status)


def render_pair_text(text: str, status: int = 200) -> HttpResponse:
    """A pair list written already (pairs.dumps), as `render_pairs` sends it."""
    return never_cache(HttpResponse(text, content_type=PAIR_LIST_TYPE, status=status))


NEVER_CACHE = "max-age=0, no-cache, no-store, must-revalidate, private"
_expires = (0, "")  # (second, its HTTP date): the Expires of every answer within that second


def never_cache(response: HttpResponse) -> HttpResponse:
    """What django.utils.cache.add_never_cache_headers writes, without re-reading the headers:
    these answers are on the hot path of every resolution."""
    global _expires
    second = int(time.time())
    if _expires[0] != second:
        _expires = (second, http_date(second))
    response["Expires"] = _expires[1]
    response["Cache-Control"] = NEVER_CACHE
    return response
