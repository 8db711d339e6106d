"""LOCKSS manifest pages for Rede Cariniana (archive/preservation/lockss.py says what they
list): /lockss/, the Archival Units (a collection and a year each), and
/lockss/<collection>/<year>/, one unit's manifest. Plain pages without the site's navigation,
so that a crawler starting at a manifest finds only what the unit holds."""
from __future__ import annotations

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_safe

from ..communities import selectors as tree
from ..preservation import lockss
from ..web.addresses import base_url


def _licence(request: HttpRequest) -> str:
    """What the pages' rel="license" link names: IBI_LOCKSS_LICENSE_URL, else the index's
    own statement of the permission."""
    return settings.IBI_LOCKSS_LICENSE_URL or (
        base_url(request) + reverse("archive:lockss") + "#permission")


@require_safe
def index(request: HttpRequest) -> HttpResponse:
    units = [(collection, [(year, reverse("archive:lockss_manifest",
                                          args=[collection.slug, year])) for year in years])
             for collection, years in lockss.units()]
    return render(request, "archive/site/lockss_index.html", {
        "permission": lockss.PERMISSION, "licence": _licence(request), "units": units})


@require_safe
def manifest(request: HttpRequest, slug: str, year: int) -> HttpResponse:
    collection = tree.collection_by_slug(slug)
    if not lockss.is_unit(collection, year):
        raise Http404("no open item of this collection was deposited in this year")
    return render(request, "archive/site/lockss_manifest.html", {
        "permission": lockss.PERMISSION, "licence": _licence(request),
        "collection": collection, "year": year,
        "entries": lockss.manifest(collection, year, base_url(request))})
