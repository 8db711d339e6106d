"""A file's thumbnail, at /items/<IBI>/thumbnails/<file name>: its first page (a PDF's) or
the image itself, small (archive/fulltext/services.py makes it, or kept DSpace's).

Shown to whom the access policy lets see it (archive/fulltext/selectors.py asks
archive/access/policy.py): for a file the reader may not read — embargoed, restricted,
metadata-only — the answer is the same 404 as for a file without a thumbnail, so that it
tells nothing about the file. A closed file's thumbnail shown to a librarian or a secret
link's holder is kept by no cache.
"""
from __future__ import annotations

from django.core.files.storage import default_storage
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.urls import reverse
from django.views.decorators.http import require_safe

from ..access import policy
from ..deposit.selectors import item_by_ibi
from ..fulltext import selectors
from ..models import ItemFile
from ..web import readers


def url(item, name: str) -> str:
    return reverse("archive:item_thumbnail", args=[item.ibi, name])


def for_lists(items: list) -> list:
    """The items of a public list (search results, a collection's page), each with
    `thumbnail_url`: its thumbnail's, or "" (none, or closed: the access policy's word)."""
    names = selectors.public_thumbnails(items)
    for item in items:
        item.thumbnail_url = url(item, names[item.pk]) if item.pk in names else ""
    return items


TYPES = {"webp": "image/webp", "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png",
         "gif": "image/gif"}


@require_safe
def thumbnail(request: HttpRequest, ibi: str, name: str) -> HttpResponse:
    item = item_by_ibi(ibi)
    found = ItemFile.objects.filter(item=item, name=name).first() if item else None
    if found is None:
        raise Http404("no thumbnail")  # as for a closed file's: nothing told of its name
    opened = policy.is_open(item.access_rights, found.restricted)
    reader = policy.PUBLIC if opened else readers.reading(request, item).reader
    key = selectors.readable_thumbnail(reader, item, found)
    if not key:
        raise Http404("no thumbnail")
    try:
        stream = default_storage.open(key, "rb")
    except FileNotFoundError:
        raise Http404("no thumbnail") from None
    response = FileResponse(stream, content_type=TYPES.get(key.rsplit(".", 1)[-1].lower(),
                                                           "application/octet-stream"))
    response["X-Content-Type-Options"] = "nosniff"
    response["Cache-Control"] = "public, max-age=3600" if opened else "private, no-store"
    return response
