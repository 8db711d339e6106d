"""HTTP edges of Memento (RFC 7089): Mementos, the TimeGate, the TimeMap.

The pattern, the URIs and the choices are in memento.py; this module only reads the request
and writes the headers. Called by views.py `persistent_url_view` for a request that carries
``Accept-Datetime`` (`memento_headers`) and for the links of every persistent URL of an item
held here (`chain_links`); `timemap` is the route ``/timemap/link/<ibi>``, `timegate` the
route ``/timegate/<URI-R>``.

A persistent URL is never a TimeGate (Pattern 2.2): asked with ``Accept-Datetime`` it answers
exactly what RTC-11 says it answers without it (#25: Memento never shadows RTC-11), and an
edition's own persistent URL (a Memento) adds its ``Memento-Datetime``. That answer alone
depends on the header: it says ``Vary: accept-datetime`` and is not put in the answer cache
(changes.py keys know nothing of that header). The TimeGate's answer is never cached either.
The TimeGate's redirect names the Memento's persistent URL.
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

from ...deposit import links, selectors
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


def _uris(request: HttpRequest, item: Item) -> tuple[str, str, str, Callable]:
    """(URI-R, the TimeGate's URI, the TimeMap's URI, URI-M of an edition) of item's chain."""
    base = _base(request)
    # URI-R and URI-M are persistent URLs (RTC-11 §8.1: ``/<ibi>!``, ``/<ibi>``).
    return (*links.memento_uris(item.edition_family or item.ibi, base),
            lambda edition: f"{base}/{edition.ibi}")


def memento_headers(request: HttpRequest, query: str, plain: Callable[[], HttpResponse]
                    ) -> HttpResponse:
    """A persistent URL asked with ``Accept-Datetime``: its plain answer (`plain()`, RTC-11's,
    as without the header), with ``Memento-Datetime`` when it is an edition's own persistent
    URL (a Memento) of a chain held here whole. A malformed date is a 400."""
    try:
        memento.parse_accept_datetime(request.META["HTTP_ACCEPT_DATETIME"])
    except ValueError as exc:
        return _text(_("Bad Accept-Datetime (RFC 7089 §2.1.1): %(error)s") % {"error": exc}, 400)
    response = plain()
    try:
        url = persistent_url.parse(raw_path(request), query)
    except (persistent_url.PersistentUrlError, ibilib.IbiError):
        return response  # its alert page says what is wrong
    if url.filepath is None and url.relation() == "" and "GetFileList" not in url.verbs:
        item = selectors.item_by_ibi(url.ibi)
        if (item is not None and not item.is_archive_service
                and selectors.chain_known_whole(selectors.edition_chain(item))):
            response["Memento-Datetime"] = memento.http_date(item.created)
            # Only a Memento's answer varies with the header; the others (its original
            # ``!`` above all: memento_client takes a varying URI-R for its own TimeGate) do not.
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
    """The Link headers a persistent URL's answer adds (RTC-11's status and Location stay):
    its TimeMap (`timemap_link`), and, when the item has editions and its chain is known whole
    here, the chain's original and TimeGate too (issue 43): a client given the persistent URL
    alone finds the editions there."""
    timemap = timemap_link(request, outcome)
    if timemap is None:
        return []
    item = selectors.item_by_ibi(_item_ibi(outcome))
    if item is None or selectors.memento_chain(item) is None:
        return [timemap]
    return memento.chain_links(*links.memento_uris(item.edition_family, _base(request)))


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
    original, timegate_uri, _timemap, url_of = _uris(request, item)
    self_url = _base(request) + iri_to_uri(request.path).replace("?", "%3F")
    body = memento.timemap(original, timegate_uri, self_url,
                           _chain(selectors.edition_chain(item)), url_of)
    response = HttpResponse(body if request.method == "GET" else b"",
                            content_type=memento.LINK_FORMAT)
    return never_cache(response)


def timegate(request: HttpRequest, uri: str) -> HttpResponse:
    """``/timegate/<URI-R>``: the TimeGate of an edition chain held here, named by its Original
    Resource's URI (or by any of its persistent URLs, or an IBI), as Memento aggregators name
    theirs (``/timegate/http://…``): the one the chain's answers link (`chain_links`), and
    the one a client given a TimeGate base finds (memento_client's `timegate_uri`). Without
    ``Accept-Datetime`` the date is now. A URI of another host, or of no chain held here, is
    a 404: nothing is fetched; so is a chain not known whole here (as for persistent URLs)."""
    if request.method not in ("GET", "HEAD"):
        response = _text(_("Method not allowed: a TimeGate answers GET and HEAD."), 405)
        response["Allow"] = "GET, HEAD"
        return response
    asked = request.META.get("HTTP_ACCEPT_DATETIME")
    try:
        when = memento.parse_accept_datetime(asked) if asked is not None else timezone.now()
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
    original, _timegate, timemap_uri, url_of = _uris(request, item)
    response = HttpResponseRedirect(url_of(chosen))
    response["Link"] = ", ".join(memento.timegate_links(original, timemap_uri, chain, chosen,
                                                        url_of))
    patch_vary_headers(response, ["accept-datetime"])
    return never_cache(response)
