"""DSpace's old links, answered 301 to the item's landing page or file here, so that every
citation by Handle or DSpace URL keeps working after a migration (archive/dspace/):

    /handle/<prefix>/<suffix>[/…]                   → the landing page
    /bitstream/handle/<prefix>/<suffix>/<file>[?sequence=n]   → the file (xmlui)
    /bitstream/<prefix>/<suffix>/<n>/<file>         → the file (jspui, DSpace's OAI links)
    /items/<uuid>[/full], /entities/<type>/<uuid>   → the landing page (DSpace 7)
    /bitstreams/<uuid>[/download]                   → the file (DSpace 7)
    /oai/request, /server/oai/request[?…]           → /oai, the query kept (301; 308 for a
                                                      POST, whose form goes along)

The same under /xmlui/ or /jspui/. A file that is not here by that name (renamed, or the
bitstream of another bundle) or that is not open to all leads to the item's page; a deleted
item's links lead to its tombstone. What names nothing here is a 404 page with a search box.
"""
from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from ..access import policy
from ..deposit import links
from ..dspace import handles, selectors
from ..models import Item
from ..web.addresses import base_url


def _not_found(request: HttpRequest, asked: str) -> HttpResponse:
    return render(request, "archive/site/old_link_not_found.html", {"asked": asked},
                  status=404)


def _landing(item: Item) -> HttpResponse:
    return HttpResponsePermanentRedirect(reverse("archive:item", args=[item.ibi]))


def _file(request: HttpRequest, item: Item, name: str) -> HttpResponse:
    """The file, when it is open to all (access/policy.py): a closed file's address is not
    given out here, its name being part of it; the landing page says how to ask for it."""
    row = item.files.filter(name=name).only("restricted").first() if name else None
    if row is None or item.is_deleted or not policy.is_open(item.access_rights, row.restricted):
        return _landing(item)
    return HttpResponsePermanentRedirect(links.file_url(item.ibi, name, base_url(request)))


def _handle(prefix: str, suffix: str) -> str | None:
    return handles.handle_of(f"{prefix}/{suffix}")


def handle(request: HttpRequest, rest: str) -> HttpResponse:
    """/handle/<prefix>/<suffix> and anything after it (DSpace's ?mode=full, /statistics …)."""
    prefix, _slash, tail = rest.partition("/")
    found = _handle(prefix, tail.partition("/")[0])
    item = selectors.item_by_handle(found) if found else None
    return _landing(item) if item else _not_found(request, f"hdl:{rest}")


def bitstream_by_handle(request: HttpRequest, prefix: str, suffix: str,
                        name: str) -> HttpResponse:
    found = _handle(prefix, suffix)
    item = selectors.item_by_handle(found) if found else None
    if item is None:
        return _not_found(request, f"{prefix}/{suffix}")
    kept = selectors.file_named(item, name)
    sequence = request.GET.get("sequence", "")
    if not kept and sequence.isdigit():
        kept = selectors.file_by_sequence(found, sequence)
    return _file(request, item, kept)


def bitstream_by_sequence(request: HttpRequest, prefix: str, suffix: str, sequence: str,
                          name: str) -> HttpResponse:
    found = _handle(prefix, suffix)
    item = selectors.item_by_handle(found) if found else None
    if item is None:
        return _not_found(request, f"{prefix}/{suffix}")
    kept = selectors.file_named(item, name) or selectors.file_by_sequence(found, sequence)
    return _file(request, item, kept)


def dspace_item(request: HttpRequest, uuid, entity_type: str = "") -> HttpResponse:
    item = selectors.item_by_uuid(str(uuid))
    return _landing(item) if item else _not_found(request, str(uuid))


def bitstream(request: HttpRequest, uuid) -> HttpResponse:
    found = selectors.file_by_bitstream(str(uuid))
    if found is None:
        return _not_found(request, str(uuid))
    item, name = found
    return _file(request, item, name)


@csrf_exempt  # harvesters POST form-encoded requests without a session, as to /oai
@require_http_methods(["GET", "HEAD", "POST"])
def oai(request: HttpRequest) -> HttpResponse:
    """DSpace's OAI-PMH base URLs (DSpace 6's /oai/request, DSpace 7's /server/oai/request):
    a harvester configured with the old base URL is sent to this repository's, its request
    unchanged (the query string, or a POST's method and body with 308)."""
    query = request.META.get("QUERY_STRING", "")
    answer = HttpResponsePermanentRedirect(reverse("archive:oai") + (f"?{query}" if query
                                                                      else ""))
    if request.method == "POST":
        answer.status_code = 308
    return answer
