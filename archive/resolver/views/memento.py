"""HTTP edges of Memento (RFC 7089): the TimeGate on persistent URLs, Mementos, the TimeMap.

The pattern, the URIs and the choices are in memento.py; this module only reads the request
and writes the headers. Called by views.py `persistent_url_view` for a request that carries
``Accept-Datetime`` (`negotiate`) and for the ``rel="timemap"`` link of every persistent URL of
an item held here (`timemap_link`); `timemap` is the route ``/timemap/link/<ibi>``, `timegate`
the route ``/timegate/<URI-R>``.

A TimeGate's answer depends on ``Accept-Datetime``: it is never put in the answer cache
(changes.py keys know nothing of that header), says ``Vary: accept-datetime``, and is not
cacheable. A Memento's answer is the plain answer (cached as ever) with its headers added per
request. The TimeGate's redirect names the Memento's persistent URL with the query as it came
(``ibiurl.requireditemstatus=Original`` still applies to the Memento, the item's own pairs
still reach it).

Memento never shadows RTC-11 (#25): a persistent URL is a TimeGate only for a chain known
whole here (deposit/selectors.py `chain_known_whole`: no edition before its first or after
its last held on another Archive, as the Copies' and migrated items' relations say).
Otherwise ``!`` with ``Accept-Datetime`` answers exactly what it answers without it: the
last edition wherever the federation holds it.
"""
from __future__ import annotations

import re
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import patch_vary_headers
from django.utils.encoding import iri_to_uri
from django.utils.translation import gettext as _

from ...deposit import selectors
from ...identifiers import ibi as ibilib
from ...models import Item
from ...protocol import persistent_url
from ...web.pairs import never_cache
from .. import memento, reading
from .. import resolve as resolver
from .paths import raw_path


def _base(request: HttpRequest) -> str:
    return f"{request.scheme}://{request.get_host()}"


def _text(message: str, status: int) -> HttpResponse:
    response = HttpResponse(message + "\n", status=status, content_type="text/plain; charset=utf-8")
    return never_cache(response)


def _chain(editions: list[Item]) -> list[memento.Edition]:
    return [memento.Edition(e.ibi, e.created, e.is_deleted) for e in editions]


def _uris(request: HttpRequest, item: Item) -> tuple[str, str, Callable]:
    """(URI-R, the TimeMap's URI, URI-M of an edition) of item's chain."""
    base = _base(request)
    family = item.edition_family or item.ibi
    # URI-R and URI-M are persistent URLs (RTC-11 §8.1: ``/<ibi>!``, ``/<ibi>``).
    return (f"{base}/{family}!", base + reverse("archive:timemap", args=[family]),
            lambda edition: f"{base}/{edition.ibi}")


def negotiate(request: HttpRequest, query: str, plain: Callable[[], HttpResponse]
              ) -> HttpResponse:
    """A persistent URL asked with ``Accept-Datetime``: the TimeGate's 302 to the Memento of
    the edition current then, or the Memento's own answer (`plain()`, the answer without
    ``Accept-Datetime``) with its Memento headers. A malformed date is a 400. Persistent URLs
    that are no TimeGate (a file, a translation, metadata, an item not held here) answer
    `plain()`: RFC 7089 has such resources ignore the header."""
    try:
        when = memento.parse_accept_datetime(request.META["HTTP_ACCEPT_DATETIME"])
    except ValueError as exc:
        return _text(_("Bad Accept-Datetime (RFC 7089 §2.1.1): %(error)s") % {"error": exc}, 400)
    try:
        url = persistent_url.parse(raw_path(request), query)
    except (persistent_url.PersistentUrlError, ibilib.IbiError):
        return plain()  # its alert page says what is wrong
    relation = url.relation()
    if url.filepath is not None or relation not in ("", ".lastedition") or (
            "GetFileList" in url.verbs):
        return plain()
    item = selectors.item_by_ibi(url.ibi)
    if item is None or item.is_archive_service:
        return plain()
    editions = selectors.edition_chain(item)
    if not selectors.chain_known_whole(editions):
        return plain()  # begun or continued elsewhere: a choice from here could be stale
    chain = _chain(editions)
    chosen = memento.choose(chain, when)
    original, timemap_uri, url_of = _uris(request, item)
    if relation == "" and chosen.ibi == item.ibi:
        # The Memento itself (a client following our redirect sends the date again).
        response = plain()
        response["Memento-Datetime"] = memento.http_date(chosen.created)
        links = memento.memento_links(original, timemap_uri)
        response["Link"] = ", ".join(
            [link for link in response.get("Link", "").split(", ")
             if link and 'rel="timemap"' not in link] + links)
    else:
        # The query stays: its ibiurl. pairs are the request's, the others the item's (§8.1).
        response = HttpResponseRedirect(url_of(chosen) + (f"?{query}" if query else ""))
        response["Link"] = ", ".join(memento.timegate_links(original, timemap_uri, chain,
                                                            chosen, url_of))
        never_cache(response)
    patch_vary_headers(response, ["accept-datetime"])
    return response


def _item_ibi(outcome: resolver.Outcome) -> str | None:
    """The IBI of the item held here whose data (or tombstone) a persistent URL found; None
    otherwise: the chains of other Archives are not known here."""
    answer = outcome.answer
    if answer is None or not answer.source.local or outcome.kind not in ("found", "deleted"):
        return None
    if outcome.kind == "found":
        if answer.word("contenttype" + outcome.hit.relation) != "Data":
            return None  # metadata, a file list: no editions of their own (as views._links)
        data = outcome.hit.relation
        return outcome.ibi if data == "" else reading.ibi_in(answer.forms(data))
    return reading.ibi_in(answer.forms()) or outcome.ibi


def timemap_link(request: HttpRequest, outcome: resolver.Outcome) -> str | None:
    """``<…/timemap/link/<ibi>>; rel="timemap"`` for a persistent URL that found the data of
    an item held here (or its tombstone); None otherwise. No query: the TimeMap of any
    edition's IBI is the chain's."""
    item_ibi = _item_ibi(outcome)
    if item_ibi is None:
        return None
    timemap = _base(request) + reverse("archive:timemap", args=[item_ibi])
    return f'<{timemap}>; rel="timemap"; type="{memento.LINK_FORMAT}"'


def chain_links(request: HttpRequest, outcome: resolver.Outcome) -> list[str]:
    """The Link headers a persistent URL's plain answer adds (RTC-11's status and Location
    stay): its TimeMap (`timemap_link`), and, when the item has editions and its chain is known
    whole here, the chain's TimeGate ``/timegate/<URI-R>``, as the landing page names it
    (issue 43): a client given the persistent URL alone finds the editions there."""
    timemap = timemap_link(request, outcome)
    if timemap is None:
        return []
    item = selectors.item_by_ibi(_item_ibi(outcome))
    if item is None or item.is_archive_service or not item.edition_family:
        return [timemap]
    editions = selectors.edition_chain(item)
    if len(editions) < 2 or not selectors.chain_known_whole(editions):
        return [timemap]
    original, _timemap, _url_of = _uris(request, item)
    timegate = _base(request) + reverse("archive:timegate", args=[original])
    return [f'<{timegate}>; rel="timegate"', timemap]


def timemap(request: HttpRequest, ibi: str) -> HttpResponse:
    """``GET /timemap/link/<ibi>``: the TimeMap of the chain of an item held here."""
    if request.method not in ("GET", "HEAD"):
        response = _text(_("Method not allowed: a TimeMap answers GET and HEAD."), 405)
        response["Allow"] = "GET, HEAD"
        return response
    try:
        ibilib.parse(ibi)
    except ValueError as exc:
        return _text(_("Not an IBI: %(error)s") % {"error": exc}, 404)
    item = selectors.item_by_ibi(ibi)
    if item is None or item.is_archive_service:
        return _text(_("No item with the IBI %(ibi)s is held here; the editions held by other "
                       "Archives are not known here.") % {"ibi": ibi}, 404)
    original, _timemap, url_of = _uris(request, item)
    self_url = _base(request) + iri_to_uri(request.path).replace("?", "%3F")
    body = memento.timemap(original, self_url, _chain(selectors.edition_chain(item)), url_of)
    response = HttpResponse(body if request.method == "GET" else b"",
                            content_type=memento.LINK_FORMAT)
    return never_cache(response)


def timegate(request: HttpRequest, uri: str) -> HttpResponse:
    """``/timegate/<URI-R>``: the TimeGate of an edition chain held here, named by its Original
    Resource's URI (or by any of its persistent URLs, or an IBI), as Memento aggregators name
    theirs (``/timegate/http://…``): for clients that are given a TimeGate base rather than
    finding one (memento_client's `timegate_uri`, which takes a URI-R that is its own TimeGate
    for one that has none). The persistent URLs stay TimeGates themselves. Without
    ``Accept-Datetime`` the date is now. A URI of another host, or of no chain held here, is
    a 404: nothing is fetched; so is a chain not known whole here (as for persistent URLs)."""
    if request.method not in ("GET", "HEAD"):
        response = _text(_("Method not allowed: a TimeGate answers GET and HEAD."), 405)
        response["Allow"] = "GET, HEAD"
        return response
    asked = request.META.get("HTTP_ACCEPT_DATETIME", "")
    try:
        when = memento.parse_accept_datetime(asked) if asked else timezone.now()
    except ValueError as exc:
        return _text(_("Bad Accept-Datetime (RFC 7089 §2.1.1): %(error)s") % {"error": exc}, 400)
    # http://host/<ibi>, or http:/host/<ibi> as a proxy that merges slashes passes it on.
    absolute = re.fullmatch(r"https?:/+([^/]*)(/.*)?", uri, re.DOTALL)
    host, path = (absolute[1], absolute[2] or "") if absolute else ("", uri)
    not_here = _text(_("No edition chain held here has this Original Resource: %(uri)s")
                     % {"uri": uri}, 404)
    if host and host.lower() != request.get_host().lower():
        return not_here
    try:
        url = persistent_url.parse("/" + path.lstrip("/"), "")
    except (persistent_url.PersistentUrlError, ibilib.IbiError):
        return not_here
    item = selectors.item_by_ibi(url.ibi)
    if (item is None or item.is_archive_service or url.filepath is not None
            or url.relation() not in ("", ".lastedition")):
        return not_here
    editions = selectors.edition_chain(item)
    if not selectors.chain_known_whole(editions):
        return not_here  # begun or continued elsewhere: a choice from here could be stale
    chain = _chain(editions)
    chosen = memento.choose(chain, when)
    original, timemap_uri, url_of = _uris(request, item)
    response = HttpResponseRedirect(url_of(chosen))
    response["Link"] = ", ".join(memento.timegate_links(original, timemap_uri, chain, chosen,
                                                        url_of))
    patch_vary_headers(response, ["accept-datetime"])
    return never_cache(response)
