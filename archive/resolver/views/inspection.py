"""HTTP edge of the inspection of a persistent URL, ``/inspect/<ibi>[mdf][/path][?query]``: see
inspection.py.

Its own route, off the persistent URL: a persistent URL's query is RTC-11's (``ibiurl.``
pairs) and the item's (every other pair, passed on to it), never this Archive's. The
resolution is the plain one (resolve.py `resolve`), but its outcome is shown, never followed:
no redirect, no acknowledgment, no access counted, nothing taken from or put in the answer
cache. JSON for ``?format=json`` or a client whose Accept prefers application/json, else the
page ``archive/resolver/inspection.html`` (``?format=html`` whatever the Accept); both 200
whatever the resolution found (the inspection itself succeeded), 400 for what is no
persistent URL, 503 when too many resolutions wait already.
"""
from __future__ import annotations

import math

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from ...deposit import links, selectors
from ...identifiers import ibi as ibilib
from ...metadata.accept import AcceptError, best
from ...models import Item
from ...protocol import persistent_url
from ...web.addresses import base_url, client_ips
from ...web.pairs import never_cache
from ...web.throttling import client_ip
from .. import inspection
from .. import resolve as resolver
from ..messages import reader_message
from .paths import raw_path

# The words of the JSON report (outcome, choice, state) as the page says them.
LABELS = {
    "found": gettext_lazy("found"), "deleted": pgettext_lazy("resolution outcome", "deleted"),
    "hop": gettext_lazy("hop"), "conflict": gettext_lazy("conflict"),
    "copies_only": gettext_lazy("copies only"),
    "not_found": pgettext_lazy("resolution outcome", "not found"),
    "none": gettext_lazy("nothing found"),
    "translation_missing": gettext_lazy("translation missing"),
    "bounded": gettext_lazy("stopped by this resolver's bounds"),
    "unreachable": gettext_lazy("Archives not heard"),
}


def _state_label(state: str | None) -> str | None:
    """Original, Copy, Deleted (RTC-11's words) in the reader's language; others as given."""
    return Item.State(state).label if state in Item.State.values else state


def _for_page(data: dict) -> dict:
    """The report with the labels the page shows beside its words (a copy: JSON keeps its own)."""
    page = {**data, "rounds": []}
    if data["chosen"]:
        page["chosen"] = {**data["chosen"], "state_label": _state_label(data["chosen"]["state"])}
    for found in data["rounds"]:
        page["rounds"].append({
            **found, "choice_label": LABELS.get(found["choice"], found["choice"]),
            "archives": [{**a, "state_label": _state_label(a["state"])}
                         for a in found["archives"]]})
    return page


FORMATS = ("json", "html")


def _format(query: str) -> tuple[str | None, str]:
    """(``json``, ``html`` or None, the persistent URL's own query): ``format`` is this page's
    pair, taken out as written; ValueError for another value."""
    chosen, rest = None, []
    for field in query.split("&") if query else []:
        name, _sign, value = field.partition("=")
        if name != "format":
            rest.append(field)
            continue
        if value not in FORMATS:
            raise ValueError(_("format=%(value)s: expected format=json or format=html")
                             % {"value": value})
        chosen = value
    return chosen, "&".join(rest)


def _wants_json(request: HttpRequest, chosen: str | None) -> bool:
    if chosen is not None:
        return chosen == "json"
    try:
        found = best(request.META.get("HTTP_ACCEPT", ""), ["text/html", "application/json"])
    except AcceptError:
        return False
    return found is not None and found[0] == "application/json"


def _error(request: HttpRequest, as_json: bool, message: str, status: int) -> HttpResponse:
    if as_json:
        response = JsonResponse({"error": message}, status=status)
    else:
        response = render(request, "archive/resolver/inspection.html",
                          {"error": message}, status=status)
    response["Vary"] = "Accept"
    return never_cache(response)


def inspect(request: HttpRequest, path: str) -> HttpResponse:
    """``GET|HEAD /inspect/<ibi>[mdf][/path][?query]``: what the resolution found."""
    try:
        chosen, query = _format(request.META.get("QUERY_STRING", ""))
    except ValueError as exc:
        return _error(request, False, str(exc), 400)
    as_json = _wants_json(request, chosen)
    persistent_path = raw_path(request, prefix="/inspect")
    try:
        url = persistent_url.parse(persistent_path, query)
        outcome = resolver.resolve(url, ips=client_ips(request), base=base_url(request),
                                   accept_language=request.META.get("HTTP_ACCEPT_LANGUAGE", ""),
                                   client=client_ip(request))
    except persistent_url.NoIbiError as exc:
        return _error(request, as_json, reader_message(exc), 404)
    except (persistent_url.PersistentUrlError, ibilib.IbiError) as exc:
        return _error(request, as_json, reader_message(exc), 400)
    except resolver.ClientBusy:
        retry = max(1, math.ceil(settings.IBI_RESOLVER_DEADLINE))
        response = _error(request, as_json, _("Too many of your resolutions are waiting for "
                                              "other Archives: try again in %(retry)s s.")
                          % {"retry": retry}, 429)
        response["Retry-After"] = str(retry)
        return response
    except resolver.ResolverBusy:
        retry = max(1, math.ceil(settings.IBI_RESOLVER_DEADLINE))
        response = _error(request, as_json, _("Too many resolutions are waiting for other "
                                              "Archives: try again in %(retry)s s.")
                          % {"retry": retry}, 503)
        response["Retry-After"] = str(retry)
        return response
    service = selectors.archive_service_or_none()
    here = (service.ibi if service else "", links.archive_address(base_url(request)))
    persistent = (request.build_absolute_uri("/").rstrip("/") + persistent_path
                  + (f"?{query}" if query else ""))
    data = inspection.report(url, outcome, persistent, here,
                             request.META.get("HTTP_ACCEPT_LANGUAGE", ""))
    if as_json:
        response = JsonResponse(data, json_dumps_params={"indent": 2})
    else:
        response = render(request, "archive/resolver/inspection.html", {
            "report": _for_page(data), "shown_path": data["filepath"] or "",
            "outcome_label": LABELS.get(data["outcome"], data["outcome"])})
    response["Vary"] = "Accept, Accept-Language"
    if request.method == "HEAD":
        response.content = b""
    return never_cache(response)
