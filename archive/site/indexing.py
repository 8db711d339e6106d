"""What crawlers read first: /robots.txt, and the sitemap index /sitemap.xml with its sitemaps.

- /sitemap.xml: the index; /sitemaps/pages.xml (the home page) and one
  /sitemaps/items-<k>.xml per page of IBI_SITEMAP_PAGE_SIZE ids (50 000 by default) holding
  any listed item (public, not deleted): its landing page and `updated` as lastmod.
- /robots.txt: admin and API closed to crawlers, the rest open, and where the sitemap is.
- /favicon.ico: the site's icon, where browsers and crawlers look for it without a <link>.

Paging by ranges of the primary key (harvest/selectors.py `sitemap_pages`): a page of a collection
of a million items costs one range scan of the index, never an OFFSET or a count.
"""
from __future__ import annotations

from django.conf import settings
from django.contrib.staticfiles import finders
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.urls import reverse
from django.views.decorators.http import require_safe

from ..harvest import selectors as harvest
from ..harvest import sitemap
from ..web.addresses import base_url

XML = "application/xml; charset=utf-8"


def _absolute(request: HttpRequest, path: str) -> str:
    return base_url(request) + path


@require_safe
def sitemap_index(request: HttpRequest) -> HttpResponse:
    size = settings.IBI_SITEMAP_PAGE_SIZE
    pages = [(_absolute(request, reverse("archive:sitemap_pages")), None)]
    pages += [(_absolute(request, reverse("archive:sitemap_items", args=[page])), lastmod)
              for page, lastmod in harvest.sitemap_pages(size)]
    return HttpResponse(sitemap.sitemap_index(pages), content_type=XML)


@require_safe
def sitemap_pages(request: HttpRequest) -> HttpResponse:
    return HttpResponse(sitemap.urlset([(_absolute(request, reverse("archive:home")), None)]),
                        content_type=XML)


@require_safe
def sitemap_items(request: HttpRequest, page: int) -> HttpResponse:
    rows = list(harvest.sitemap_page(page, settings.IBI_SITEMAP_PAGE_SIZE))
    if not rows:  # a sitemap lists at least one URL: the index names no empty page
        raise Http404("no listed item on this sitemap page")
    return HttpResponse(sitemap.urlset(
        (_absolute(request, reverse("archive:item", args=[ibi])), updated)
        for ibi, updated in rows), content_type=XML)


@require_safe
def robots_txt(request: HttpRequest) -> HttpResponse:
    # Crawlers only read; the admin and the REST API (whose writes need a token anyway) are
    # no pages for a search engine. Everything else, persistent URLs included, is open.
    lines = ["User-agent: *", "Disallow: /admin/", "Disallow: /api/", "Allow: /", "",
             f"Sitemap: {_absolute(request, reverse('archive:sitemap'))}", ""]
    return HttpResponse("\n".join(lines), content_type="text/plain; charset=utf-8")


@require_safe
def favicon(request: HttpRequest) -> FileResponse:
    response = FileResponse(open(finders.find("archive/favicon.ico"), "rb"),  # noqa: SIM115
                            content_type="image/vnd.microsoft.icon")
    response["Cache-Control"] = "public, max-age=604800"
    return response
