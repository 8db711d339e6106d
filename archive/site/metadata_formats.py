"""``/items/<repository name>/metadata/<name>``: an item's record in each format of
archive/metadata/formats.py, the URLs the archive service gives as ``url.metadata(<name>)``.

Thin: archive/metadata builds every format from the item's Record (oai_dc: metadata/oai_dc.py,
the same record as ``/items/<repository name>/oai_dc.xml``). A tombstone answers 410 with its
citation in the format asked (its Record has no creators, description or files). The CSL-JSON
URL also renders that CSL-JSON as a citation for ``Accept: text/x-bibliography; style=…;
locale=…``: the persistent URL's content negotiation redirects here, and a client that follows
the redirect sends its Accept header again (curl -L, httpx, requests all do).

With ``?download`` (the landing page's BibTeX, RIS and CSL-JSON links) the answer is an
attachment named after the repository name, ``sid.inpe.br-mtc-m19-2013-09.04.12.27.57.bib``,
so a browser saves it for the reader's reference manager instead of showing it.
"""
from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseNotFound
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.utils.translation import gettext as _

from ..deposit import selectors
from ..metadata import accept
from ..metadata.formats import FORMATS
from ..metadata.selectors import record_of
from ..models import Item
from ..web.addresses import base_url
from ..web.formats import bad_request, render
from .downloads import disposition
from .views import count_investigation

_TEXT = "text/plain; charset=utf-8"


def _wanted(request: HttpRequest, name: str) -> accept.Wanted:
    """The format named in the URL; for csljson, what the Accept header asks as a persistent
    URL reads it: a citation, or CSL-JSON by its own media type, one item object as doi.org
    answers (otherwise, ``?download`` and ``:(csljson)`` included, CSL-JSON's list)."""
    if name == "csljson":
        asked = accept.accept(request.META.get("HTTP_ACCEPT", ""))
        if asked is not None and asked.metadata == "csljson":
            return asked
    return accept.Wanted(name)


def item_metadata_format(request: HttpRequest, ibi: str, name: str) -> HttpResponse:
    if name not in FORMATS:
        return HttpResponseNotFound(
            _("No metadata format %(name)s: the formats are %(formats)s.\n")
            % {"name": name, "formats": ", ".join(FORMATS)}, content_type=_TEXT)
    item = selectors.item_by_ibi(ibi, selectors.with_details())
    if item is None:
        return HttpResponseNotFound(_("No item has this IBI.\n"), content_type=_TEXT)
    if ibi != item.ibi:
        return redirect(reverse("archive:item_metadata_format", args=[item.ibi, name]),
                        permanent=True)
    try:
        wanted = _wanted(request, name)
    except accept.AcceptError as exc:
        response = bad_request(exc)
    else:
        response = render(record_of(item, base_url(request)), wanted, item=item,
                          status=410 if item.is_deleted else 200)
    if name == "csljson":
        patch_vary_headers(response, ["Accept"])
    if response.status_code == 200:
        count_investigation(request, item, f"metadata/{name}")
    if "download" in request.GET and response.status_code == 200:
        response["Content-Disposition"] = disposition(download_name(item, name), attachment=True)
    return response


def download_name(item: Item, name: str) -> str:
    """The file name of a downloaded record: its repository name, "/" as "-", and the
    format's extension (a citation rendered for Accept is text)."""
    return f"{item.ibi.replace('/', '-')}.{FORMATS[name].extension}"
