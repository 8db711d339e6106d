"""Pair-list answers over HTTP: what both services send (RTC-11 §6.2, text/plain).

`render_pairs` writes any pair-list answer (text/plain, or JSON when the client prefers it) for
the archive service and the resolver service; `never_cache` stamps it uncacheable cheaply.
"""
from __future__ import annotations

import functools
import time

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.http import http_date

from ..metadata.accept import AcceptError, best
from .pairs import Pair, dumps

PAIR_LIST_TYPE = "text/plain; charset=us-ascii"


def render_pairs(request: HttpRequest, pairs: list[Pair], status: int = 200) -> HttpResponse:
    """A pair list as the standard's text/plain (default), or as a JSON object of the same
    pairs for a client whose Accept prefers application/json. Never cached: answers carry
    fresh urlkeys."""
    if _prefers_json(request.META.get("HTTP_ACCEPT", "*/*")):
        response = JsonResponse(dict(pairs), status=status)
    else:
        response = HttpResponse(dumps(pairs), content_type=PAIR_LIST_TYPE, status=status)
    response["Vary"] = "Accept"
    never_cache(response)
    return response


@functools.lru_cache(maxsize=256)  # clients send a few Accept headers, again and again
def _prefers_json(header: str) -> bool:
    """Whether the Accept header ranks JSON above text/plain (metadata/accept.py's reading; a
    tie goes to text/plain, the standard's)."""
    try:
        found = best(header, ["text/plain", "application/json"])
    except AcceptError:
        return False
    return found is not None and found[0] == "application/json"


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
