"""The catch-all route ``/<path>``: every URL no other route took lands in `dispatch`.

`dispatch(request, path)` sends
1. ``/<archive service IBI>?servicesubject=…`` (the IBI in either form, any case, legacy ``@``
   port) to the archive service (RTC-11 §6.1, §9);
2. ``/J8LNKB5R7W/3FUQHC5`` to the resolver service (§7.2, archive/resolver_service.py);
3. everything else to the resolver: persistent URLs ``/<ibi>[mdf][/path]`` (§8,
   archive/resolver_views.py).

`render_pairs` writes any pair-list answer (text/plain, or JSON when the client prefers it) for
both services.
"""
from __future__ import annotations

import functools
import time

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.http import http_date

from . import archive_service as service
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
def _prefers_json(accept: str) -> bool:
    """Django's content negotiation (HttpRequest.get_preferred_type) for this Accept header."""
    probe = HttpRequest()
    probe.META["HTTP_ACCEPT"] = accept
    return probe.get_preferred_type(["text/plain", "application/json"]) == "application/json"


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


def archive_service(request: HttpRequest, path: str) -> HttpResponse:
    """The archive service at /<path>: GET only (§6.1); bad requests get 400 and
    ``error {…}``. NotTheService when path is not its IBI."""
    if request.method != "GET":
        service.check_path(path)
        response = render_pairs(request, service.error_pairs(
            f"method {request.method} not allowed: the archive service answers GET"), 405)
        response["Allow"] = "GET"
        return response
    try:
        pairs = service.answer(request.META.get("QUERY_STRING", ""), request, path=path)
    except service.ProtocolError as exc:
        return render_pairs(request, service.error_pairs(str(exc)), 400)
    return render_pairs(request, pairs)


def dispatch(request: HttpRequest, path: str) -> HttpResponse:
    from . import resolver_views

    if resolver_views.is_resolver_service(path):
        return resolver_views.resolver_service_view(request)
    # A lenient look at the query is enough to route; the service reads it strictly, and
    # checks the path in the query it needs anyway.
    if request.META.get("QUERY_STRING") and "servicesubject" in request.GET:
        try:
            return archive_service(request, path)
        except service.NotTheService:
            pass
    return resolver_views.persistent_url_view(request, path)
