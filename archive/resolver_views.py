"""HTTP edges of the resolver: persistent URLs at the site root and the resolver service.

Thin: archive/persistent_url.py reads the URL, archive/resolver.py resolves it, this module
turns the outcome into a 302 with Link headers, or an alert page (§8.2 step 7): 404 not found,
404 translation missing, 409 suspect Archives, 410 tombstone; 400 for what is no persistent
URL. HEAD is answered like GET but sends no acknowledgment: a link checker is not a reader.
"""
from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.utils.cache import add_never_cache_headers, patch_vary_headers
from django.utils.encoding import escape_uri_path

from . import ibi as ibilib
from . import persistent_url, resolver, resolver_service, selectors
from .citation import Citation, apa, bibtex
from .models import Item
from .pairs import unquote_word
from .root_views import render_pairs

METHODS = ("GET", "HEAD")


def resolver_service_view(request: HttpRequest) -> HttpResponse:
    """``/J8LNKB5R7W/3FUQHC5?servicesubject=inclusionRequest|exclusionRequest`` (§7.2)."""
    from .archive_service import error_pairs

    if request.method != "GET":
        response = render_pairs(request, error_pairs(
            f"method {request.method} not allowed: the resolver service answers GET"), 405)
        response["Allow"] = "GET"
        return response
    try:
        pairs = resolver_service.answer(request.META.get("QUERY_STRING", ""))
    except resolver_service.Refused as exc:
        return render_pairs(request, error_pairs(str(exc)), exc.status)
    return render_pairs(request, pairs)


def is_resolver_service(path: str) -> bool:
    return path.upper() == resolver_service.SERVICE_IBI


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


def persistent_url_view(request: HttpRequest, path: str) -> HttpResponse:
    """``GET|HEAD /<ibi>[mdf][/path][?query]`` (§8.1) → 302 to the URL, or an alert page."""
    if request.method not in METHODS:
        response = HttpResponse(status=405)
        response["Allow"] = ", ".join(METHODS)
        return response
    query = request.META.get("QUERY_STRING", "")
    try:
        url = persistent_url.parse(escape_uri_path(request.path_info), query)
        ibilib.parse(url.ibi)
    except persistent_url.NoIbiError:
        return _head(request, _alert(request, "archive/resolver_not_found.html",
                                     {"path": unquote_word(request.path_info)}, 404))
    except ValueError as exc:  # PersistentUrlError included
        return _head(request, _alert(request, "archive/resolver_bad_url.html",
                                     {"message": str(exc)}, 400))
    ips = resolver.client_ips(request)
    outcome = resolver.resolve(url, ips=ips, request=request,
                               accept_language=request.META.get("HTTP_ACCEPT_LANGUAGE", ""))
    response = _answer(request, url, outcome)
    if any(k == "translation" and not arg for k, arg in resolver.steps(url.relation()) or ()):
        patch_vary_headers(response, ["Accept-Language"])
    if outcome.kind == "found" and request.method == "GET":
        resolver.acknowledge(outcome, ips, request.build_absolute_uri(), url.relation())
    return _head(request, response)


def _head(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    if request.method == "HEAD":
        response.content = b""
    return response


def _base(request: HttpRequest) -> str:
    return request.build_absolute_uri("/").rstrip("/")


def _answer(request: HttpRequest, url: persistent_url.PersistentUrl,
            outcome: resolver.Outcome) -> HttpResponse:
    if outcome.kind == "found":
        response = HttpResponseRedirect(outcome.url)
        if links := _links(request, outcome):
            response["Link"] = ", ".join(links)
        add_never_cache_headers(response)
        return response
    context = {"outcome": outcome, "asked": url, "ibi": outcome.ibi, "base": _base(request),
               "silent": outcome.silent}
    if outcome.kind == "deleted":
        return _alert(request, "archive/resolver_tombstone.html",
                      {**context, **_tombstone(request, outcome)}, 410)
    if outcome.kind == "conflict":
        return _alert(request, "archive/resolver_conflict.html",
                      {**context, "suspects": _suspects(outcome.suspects)}, 409)
    if outcome.kind == "translation_missing":
        return _alert(request, "archive/resolver_translation_missing.html",
                      {**context, "language": outcome.missing_language}, 404)
    if outcome.kind == "copies_only":
        context["copies"] = _suspects(outcome.suspects)
    return _alert(request, "archive/resolver_not_found.html", context, 404)


def _suspects(answers: list[resolver.Answer]) -> list[dict]:
    """Who answered what, for the alert pages."""
    found = []
    for answer in answers:
        words = sorted((k, v) for k, v in answer.pairs.items() if isinstance(v, str))
        found.append({"address": answer.source.address, "service_ibi": answer.source.service_ibi,
                      "local": answer.source.local,
                      "state": next((v for k, v in words if k.startswith("state")), ""),
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
    item_ibi = resolver.ibi_in(answer.forms(data)) or (outcome.ibi if data == "" else None)
    if item_ibi is None:
        return []
    if answer.word("contenttype" + hit.relation) != "Data":
        return []  # metadata: no editions or translations of their own (our Archive's view)
    base = _base(request)
    links = [f'<{base}/{item_ibi}:(oai_dc)>; rel="describedby"; type="application/xml"']
    # ibi.nextedition is about the IBI asked: it tells on the item itself only (which a
    # translation relation may lead back to, e.g. "+" in the original's language).
    itself = data == "" or bool(resolver.ibis_in(answer.forms(data))
                                & resolver.ibis_in(answer.forms()))
    if itself and ".lastedition" not in hit.relation and "ibi.nextedition" in answer.pairs:
        links.append(f'<{base}/{item_ibi}!>; rel="latest-version"')
    previous, languages = _local_relations(item_ibi) if answer.source.local else (None, {})
    if previous:
        links.append(f'<{base}/{previous}>; rel="predecessor-version"')
    for name in answer.pairs:  # languages an Archive named for a bare "+"
        given = resolver.steps(name[3:]) if name.startswith("ibi.") else None
        if given and len(given) == 1 and given[0][0] == "translation" and given[0][1]:
            languages[given[0][1]] = True
    for language in sorted(languages):
        links.append(f'<{base}/{item_ibi}+({language})>; rel="alternate"; hreflang="{language}"')
    return links


def _local_relations(item_ibi: str) -> tuple[str | None, dict[str, bool]]:
    """The previous edition's IBI and the languages of the translation family of an item held
    here (two small queries); languages as Table 9.5 tags."""
    item = selectors.item_by_ibi(item_ibi, Item.objects.select_related("previous_edition")
                                 .only("id", "translation_of_id", "language",
                                       "previous_edition__ibi").order_by())
    if item is None:
        return None, {}
    previous = item.previous_edition.ibi if item.previous_edition else None
    root = item.translation_of_id or item.pk
    tags = (Item.objects.filter(translation_of_id=root) | Item.objects.filter(pk=root)).exclude(
        language="").exclude(state=Item.State.DELETED).values_list("language", flat=True)
    languages = {tag: True for tag in tags if len(tag) <= 5}  # xx or xx-YY, as Table 9.5
    return previous, languages


# -- Tombstones -------------------------------------------------------------------------------

def _year(item: Item) -> str:
    for value in item.dc("date"):
        if value[:4].isdigit():
            return value[:4]
    return str(item.created.year)


def _tombstone(request: HttpRequest, outcome: resolver.Outcome) -> dict:
    """Citation, date of deletion and newer edition of a deleted item: from our own records
    when it was ours, else from what its Archive said (IBI, timestamp, ibi.nextedition)."""
    answer = outcome.answer
    base = _base(request)
    forms = answer.forms()
    rep = resolver.ibi_in(forms) or outcome.ibi
    context = {"forms": dict(zip(forms[0::2], forms[1::2], strict=False)),
               "deleted_at": answer.word("timestamp"), "archive": answer.source,
               "persistent_url": f"{base}/{rep}", "newer": None, "title": None}
    item = selectors.item_by_ibi(rep) if answer.source.local else None
    if item is not None:
        editions = selectors.editions(item)
        newer = editions["next"] or editions["latest"]
        publishers = item.dc("publisher")
        citation = Citation(title=item.title, url=context["persistent_url"],
                            authors=item.dc("creator"), year=_year(item),
                            publisher=publishers[0] if publishers else answer.source.address,
                            identifier=item.ibi)
        context.update(title=item.title, newer={"ibi": newer.ibi, "title": newer.title,
                                                "url": f"{base}/{newer.ibi}"} if newer else None)
    else:
        following = resolver.ibi_in(answer.forms(".nextedition"))
        if following:
            context["newer"] = {"ibi": following, "title": "", "url": f"{base}/{following}"}
        citation = Citation(title=rep, url=context["persistent_url"],
                            publisher=answer.source.address, identifier=rep)
    context["citation"] = {"apa": apa(citation), "bibtex": bibtex(citation)}
    return context
