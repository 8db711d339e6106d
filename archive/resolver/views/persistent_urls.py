"""Persistent URLs (RTC-11 §8): ``GET|HEAD /<ibi>[mdf][/path][?query]``.

Thin: protocol/persistent_url.py reads the URL, resolver/resolve.py resolves it, this module
turns the outcome into a 302 with Link headers, or an alert page (§8.2 step 7): 404 not found,
404 translation missing, 409 suspect Archives, 410 tombstone, 503 a chain this resolver's
bounds stopped, 503 when nobody answered with anything and some Archive could not be asked or
heard; 400 for what is no persistent URL, or what no archive service would answer. HEAD is
answered like GET; both are acknowledged to the Archive that gave the URL (§8.2 step 5), while
only a GET counts in this Archive's own statistics (COUNTER's rules).
"""
from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from django.conf import settings
from django.db import transaction
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.utils import timezone
from django.utils.cache import add_never_cache_headers, patch_vary_headers
from django.utils.dateparse import parse_date
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.vary import vary_on_headers

from ...db import changes
from ...deposit import selectors
from ...identifiers import ibi as ibilib
from ...metadata import cite, signposting
from ...metadata import selectors as metadata
from ...models import LANGUAGE_TAG, Item
from ...protocol import persistent_url
from ...protocol.pairs import unquote_word
from ...web.addresses import base_url, client_ips
from ...web.pairs import never_cache
from ...web.throttling import client_ip
from .. import acknowledgments, reading, relations, tasks
from .. import resolve as resolver
from ..messages import reader_message
from . import memento as memento_views
from . import negotiation
from .paths import raw_path

logger = logging.getLogger(__name__)

METHODS = ("GET", "HEAD")


# -- Persistent URLs --------------------------------------------------------------------------

def _alert(request: HttpRequest, template: str, context: dict, status: int) -> HttpResponse:
    context.setdefault("resolver_hint", _resolver_hint(request))
    response = render(request, template, context, status=status)
    add_never_cache_headers(response)
    return response


def _resolver_hint(request: HttpRequest) -> str | None:
    """The resolver our persistent URLs name, when it is another one: worth a try."""
    other = (settings.IBI_RESOLVER_URL or "").rstrip("/")
    return other if other and other != request.build_absolute_uri("/").rstrip("/") else None


# The archive service's view, for a persistent URL that resolves to this very path (the archive
# service's own IBI): given by the route (archive/urls.py), as edges never import each other.
ServiceView = Callable[[HttpRequest, str], HttpResponse]


def persistent_url_view(request: HttpRequest, path: str, *,
                        archive_service: ServiceView) -> HttpResponse:
    """``GET|HEAD /<ibi>[mdf][/path][?query]`` (§8.1) → 302 to the URL, or an alert page.

    A URL found here without asking any other Archive is kept in the answer cache
    (db/changes.py) until an item changes, its headers written; a GET still counts its
    access every time. What the cache does not hold takes the whole way (`_view`)."""
    if request.method in METHODS and "HTTP_ACCEPT_DATETIME" not in request.META:
        try:
            key = _key(request, request.META.get("QUERY_STRING", ""), negotiation.wanted(request))
        except negotiation.AcceptError:
            key = None  # answered by _view
        if key is not None and (redirect := changes.get(key, changes.token())) is not None:
            if (response := redirect.respond(request)) is not None:
                return response
    return _view(request, path, archive_service=archive_service)


def _key(request: HttpRequest, query: str, wanted) -> tuple:
    """The answer cache's key of a resolution: what the redirect depends on. The host as the
    request gave it (what get_host returns when it is allowed), not validated again on each
    request: CommonMiddleware did, and a redirect is only kept after get_host did."""
    meta = request.META
    host = (meta.get("HTTP_X_FORWARDED_HOST") if settings.USE_X_FORWARDED_HOST else None,
            meta.get("HTTP_HOST"), meta.get("SERVER_NAME"), meta.get("SERVER_PORT"))
    # The path as the request line gave it when the server says (gunicorn's RAW_URI, uWSGI's
    # and mod_wsgi's REQUEST_URI: what views/paths.py reads): path_info alone cannot tell /a%F3
    # (a Latin-1 byte) from /a%25F3.
    path = meta.get("RAW_URI") or meta.get("REQUEST_URI") or request.path_info
    return ("resolve", path, query, request.scheme, host,
            meta.get("HTTP_ACCEPT_LANGUAGE", ""), wanted)


@vary_on_headers("Accept")  # content negotiation (negotiation.py)
def _view(request: HttpRequest, path: str, *, archive_service: ServiceView) -> HttpResponse:
    if request.method not in METHODS:
        response = HttpResponse(status=405)
        response["Allow"] = ", ".join(METHODS)
        return response
    query = request.META.get("QUERY_STRING", "")
    # Accept-Datetime (memento.py) comes before the answer cache: its keys know no dates.
    if "HTTP_ACCEPT_DATETIME" in request.META:
        return memento_views.memento_headers(
            request, query, lambda: _resolved(request, path, query, archive_service))
    return _resolved(request, path, query, archive_service)


def _resolved(request: HttpRequest, path: str, query: str, archive_service: ServiceView
              ) -> HttpResponse:
    """The persistent URL resolved: the answer of a plain GET or HEAD."""
    try:
        wanted = negotiation.wanted(request)
    except negotiation.AcceptError as exc:
        return _head(request, negotiation.bad_accept(exc))
    key = _key(request, query, wanted)
    current = changes.token()
    redirect = changes.get(key, current)
    if redirect is not None and (response := redirect.respond(request)) is not None:
        return response
    ips = client_ips(request)
    try:
        url, outcome, rendered = _negotiated(request, persistent_url.parse(raw_path(request),
                                                                           query), wanted, ips)
        url_pairs = persistent_url.item_query(query)
    except persistent_url.NoIbiError:
        return _head(request, _alert(request, "archive/resolver/not_found.html",
                                     {"path": unquote_word(request.path_info)}, 404))
    except (persistent_url.PersistentUrlError, ibilib.IbiError) as exc:  # e.g. month 13
        return _head(request, _alert(request, "archive/resolver/bad_url.html",
                                     {"message": reader_message(exc)}, 400))
    except resolver.ResolverBusy as busy:  # ClientBusy: this reader's own; a 429
        retry = max(1, math.ceil(settings.IBI_RESOLVER_DEADLINE))
        yours = isinstance(busy, resolver.ClientBusy)
        response = _alert(request, "archive/resolver/busy.html",
                          {"retry": retry, "yours": yours}, 429 if yours else 503)
        response["Retry-After"] = str(retry)
        return _head(request, response)
    if (outcome.kind == "found" and outcome.answer.source.local
            and unquote(urlsplit(outcome.url).path) == request.path):
        # Our own archive service: its URL is this very path. A web service, not a page:
        # let it say what it wants (servicesubject) instead of redirecting to itself forever.
        return archive_service(request, path)
    vary_language = any(k == "translation" and not arg
                        for k, arg in relations.steps(url.relation()) or ())
    chain = memento_views.chain_links(request, outcome)  # original, TimeGate, TimeMap: additions
    if outcome.kind == "found" and outcome.answer.source.local and not outcome.asked_others:
        links = [*_links(request, outcome), *chain]
        redirect = _LocalRedirect(persistent_url.carried(outcome.url, url_pairs),
                                  ", ".join(links), vary_language,
                                  acknowledgments.counted_item(outcome), url.relation())
        request.get_host()  # DisallowedHost for a host ALLOWED_HOSTS does not name: never kept
        changes.put(key, current, redirect)
        return redirect.respond(request)
    response = (rendered or negotiation.tombstone(request, url, outcome, wanted)
                or _answer(request, url, outcome, url_pairs))
    if chain:
        response["Link"] = ", ".join([*filter(None, [response.get("Link")]), *chain])
    if vary_language:
        patch_vary_headers(response, ["Accept-Language"])
    if outcome.kind == "found" and response.status_code < 500:  # §8.2 step 5: every one
        owed = acknowledgments.acknowledge(outcome, ips, request.build_absolute_uri(),
                                           url.relation(), request.META.get("HTTP_USER_AGENT", ""),
                                           count=request.method == "GET")
        if owed is not None:
            transaction.on_commit(lambda: _send_acknowledgment(*owed))
    return _head(request, response)


def _negotiated(request: HttpRequest, parsed: persistent_url.PersistentUrl,
                wanted, ips: list[str]
                ) -> tuple[persistent_url.PersistentUrl, resolver.Outcome, HttpResponse | None]:
    """The URL resolved, with the metadata format Accept asks for (negotiation.py): (the URL
    resolved, its outcome, the format rendered here from an Archive's oai_dc record or None).
    When Accept's format cannot be had, not even from an oai_dc record, the URL resolves as
    it would without Accept: never a 404 for an item that exists (#25, 6)."""
    def resolved(url: persistent_url.PersistentUrl) -> resolver.Outcome:
        return resolver.resolve(url, ips=ips, base=base_url(request),
                                accept_language=request.META.get("HTTP_ACCEPT_LANGUAGE", ""),
                                client=client_ip(request))

    url = negotiation.applied(parsed, wanted)
    outcome = resolved(url)
    rendered = None
    if outcome.kind == "found" and outcome.answer.stand_in:
        rendered = negotiation.rendered(request, url, outcome, wanted)
        if rendered is None and url is parsed:  # a modifier typed in the URL, no record
            rendered = HttpResponse(_("The oai_dc record the Archive gave for this item cannot "
                                      "be read: try again later.\n"), status=502,
                                    content_type="text/plain; charset=utf-8")
            add_never_cache_headers(rendered)
    if url is not parsed and (outcome.status == 404 or (outcome.kind == "found"
                                                         and rendered is None
                                                         and outcome.answer.stand_in)):
        return parsed, resolved(parsed), None
    return url, outcome, rendered


@dataclass(frozen=True)
class _LocalRedirect:
    """A URL found here: what the redirect says, and whose access a GET counts (None: the
    answer had nothing to count, see acknowledgments.acknowledgment_pairs)."""

    url: str
    link: str
    vary_language: bool
    counted_item: int | None
    relation: str

    def respond(self, request: HttpRequest) -> HttpResponse:
        response = _kept_redirect(self.url, self.link, self.vary_language)
        if request.method == "GET" and self.counted_item is not None:
            acknowledgments.count_local_access(
                self.counted_item, client_ips(request), self.relation,
                request.META.get("HTTP_USER_AGENT", ""))
        return _head(request, response)


def _kept_redirect(url: str, link: str, vary_language: bool) -> HttpResponse:
    """A kept redirect's answer: its Link header, never cached, and the Vary that
    vary_on_headers("Accept") makes of it on _view's way, written once, here."""
    response = HttpResponseRedirect(url)
    if link:
        response["Link"] = link
    never_cache(response)
    response["Vary"] = "Accept-Language, Accept" if vary_language else "Accept"
    return response


def _head(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    if request.method == "HEAD":
        response.content = b""
    return response


def _base(request: HttpRequest) -> str:
    return f"{request.scheme}://{request.get_host()}"


def _answer(request: HttpRequest, url: persistent_url.PersistentUrl,
            outcome: resolver.Outcome, url_pairs: str) -> HttpResponse:
    if outcome.kind == "found":  # the item's own pairs go with it (§8.1)
        response = HttpResponseRedirect(persistent_url.carried(outcome.url, url_pairs))
        if links := _links(request, outcome):
            response["Link"] = ", ".join(links)
        add_never_cache_headers(response)
        return response
    context = {"outcome": outcome, "asked": url, "ibi": outcome.ibi, "base": _base(request),
               "silent": outcome.silent}
    if outcome.kind == "deleted":
        response = _alert(request, "archive/resolver/tombstone.html",
                          {**context, **_tombstone(request, outcome)}, outcome.status)
        if outcome.answer.source.local and (links := _signposting(request, outcome.ibi)):
            response["Link"] = ", ".join(links)
        return response
    if outcome.kind == "conflict":
        return _alert(request, "archive/resolver/conflict.html",
                      {**context, "suspects": _suspects(outcome.suspects)}, outcome.status)
    if outcome.kind == "translation_missing":
        return _alert(request, "archive/resolver/translation_missing.html",
                      {**context, "language": outcome.missing_language}, outcome.status)
    if outcome.kind == "bounded":
        retry = max(1, math.ceil(settings.IBI_RESOLVER_DEADLINE))
        response = _alert(request, "archive/resolver/bounded.html",
                          {**context, "bound": outcome.bound, "hops": outcome.hops,
                           "deadline": settings.IBI_RESOLVER_DEADLINE,
                           "timeout": settings.IBI_RESOLVER_TIMEOUT, "retry": retry},
                          outcome.status)
        response["Retry-After"] = str(retry)
        return response
    if outcome.kind == "unreachable":
        response = _alert(request, "archive/resolver/unreachable.html",
                          {**context, "answered": outcome.answered,
                           "unheard": len(outcome.silent), "retry": outcome.retry_after},
                          outcome.status)
        response["Retry-After"] = str(outcome.retry_after)
        return response
    if outcome.kind == "copies_only":
        context["copies"] = _suspects(outcome.suspects)
    return _alert(request, "archive/resolver/not_found.html", context, outcome.status)


def _suspects(answers: list[reading.Answer]) -> list[dict]:
    """Who answered what, for the alert pages."""
    found = []
    for answer in answers:
        words = sorted((k, v) for k, v in answer.pairs.items() if isinstance(v, str))
        state = next((v for k, v in words if k.startswith("state")), "")
        found.append({"address": answer.source.address, "service_ibi": answer.source.service_ibi,
                      "local": answer.source.local, "state": state,
                      # RTC-11's Original, Copy, Deleted as the reader's language says them
                      "state_label": Item.State(state).label if state in Item.State.values
                      else state,
                      "url": next((v for k, v in words if k == "url" or k.startswith("url.")),
                                  "")})
    return found


# -- Link headers -----------------------------------------------------------------------------

def _data_relation(relation: str) -> str:
    """The part of a relation before its metadata step: whose data the metadata describe."""
    return relation.split(".metadata")[0]


def _links(request: HttpRequest, outcome: resolver.Outcome) -> list[str]:
    """RFC 8288 links of the redirect, all to persistent URLs of this resolver: describedby
    (oai_dc), latest-version / predecessor-version, alternate with hreflang per language."""
    answer, hit = outcome.answer, outcome.hit
    data = _data_relation(hit.relation)
    item_ibi = outcome.ibi if data == "" else reading.ibi_in(answer.forms(data))
    if item_ibi is None:
        return []
    if answer.word("contenttype" + hit.relation) != "Data":
        return []  # metadata: no editions or translations of their own (our Archive's view)
    base = _base(request)
    links = [f'<{base}/{item_ibi}:(oai_dc)>; rel="describedby"; type="application/xml"']
    # ibi.nextedition is about the IBI asked: it tells on the item itself only (which a
    # translation relation may lead back to, e.g. "+" in the original's language).
    itself = data == "" or bool(reading.ibis_in(answer.forms(data))
                                & reading.ibis_in(answer.forms()))
    if itself and ".lastedition" not in hit.relation and "ibi.nextedition" in answer.pairs:
        links.append(f'<{base}/{item_ibi}!>; rel="latest-version"')
    previous, languages = (selectors.previous_and_languages(item_ibi) if answer.source.local
                           else (None, {}))
    if previous:
        links.append(f'<{base}/{previous}>; rel="predecessor-version"')
    named: dict[str, str] = {}  # languages an Archive named for a bare "+", by item
    for name in answer.pairs:
        given = relations.steps(name[3:]) if name.startswith("ibi.") else None
        if given and len(given) == 1 and given[0][0] == "translation" and given[0][1]:
            member = reading.ibi_in(answer.forms(name[3:])) or given[0][1]
            # "pt" may stand for a "pt-BR" member (Table 9.5 aliases): name it once, exactly.
            if len(given[0][1]) > len(named.get(member, "")):
                named[member] = given[0][1]
    languages.update(dict.fromkeys(named.values(), True))
    for language in sorted(languages):
        if not LANGUAGE_TAG.fullmatch(language):  # another Archive's words: no header text
            logger.warning("resolver: %r is no language tag; no alternate link", language)
            continue
        links.append(f'<{base}/{item_ibi}+({language})>; rel="alternate"; hreflang="{language}"')
    if answer.source.local:
        links += _signposting(request, item_ibi)
    return links


def _signposting(request: HttpRequest, item_ibi: str) -> list[str]:
    """FAIR Signposting of an item held here, or of its file (metadata/signposting.py)."""
    asked = persistent_url.parse(raw_path(request),
                                 request.META.get("QUERY_STRING", ""))
    found = metadata.persistent_url_links(item_ibi, base_url(request),
                                          (asked.filepath or "").lstrip("/"))
    return [value for link in found if (value := signposting.to_header([link]))]


# -- Tombstones -------------------------------------------------------------------------------

def _tombstone(request: HttpRequest, outcome: resolver.Outcome) -> dict:
    """Citation, date of deletion and newer edition of a deleted item: from our own records
    when it was ours, else from what its Archive said (IBI, timestamp, ibi.nextedition)."""
    answer = outcome.answer
    base = _base(request)
    forms = answer.forms()
    rep = reading.ibi_in(forms) or outcome.ibi
    context = {"forms": dict(zip(forms[0::2], forms[1::2], strict=False)),
               "deleted_at": answer.word("timestamp"),
               "deleted_date": parse_date((answer.word("timestamp") or "")[:10]),
               "archive": answer.source,
               "persistent_url": f"{base}/{rep}", "newer": None, "title": None}
    item = selectors.item_by_ibi(rep) if answer.source.local else None
    if item is not None:
        editions = selectors.editions(item)
        newer = editions["next"] or editions["latest"]
        context.update(title=item.title, newer={"ibi": newer.ibi, "title": newer.title,
                                                "url": f"{base}/{newer.ibi}"} if newer else None)
    else:
        following = reading.ibi_in(answer.forms(".nextedition"))
        if following:
            context["newer"] = {"ibi": following, "title": "", "url": f"{base}/{following}"}
    # The citation of the tombstone's Record (negotiation.py), in the reader's language's
    # default style: a resolver's page offers no choice of style.
    record = negotiation.tombstone_record(request, outcome)
    context["citation"] = cite.block(cite.with_creators(record, item) if item else record, None,
                                     get_language() or "en", today=timezone.localdate())
    return context


def _send_acknowledgment(archive_id: int, pairs: dict[str, str]) -> None:
    """Table 8.11 owed to the chosen Archive: kept in the database, sent by a worker, never
    waiting for the broker (resolver/tasks.py, outbox.py)."""
    tasks.acknowledge(archive_id, pairs)
