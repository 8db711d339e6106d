from __future__ import annotations

from django.urls import path, re_path

from .db import replica
from .harvest import oai
from .resolver import memento_views
from .resolver import views as resolver_views
from .site import downloads, indexing, linksets, metadata_formats, views

app_name = "archive"

urlpatterns = [
    # replica.lagging: pages whose reads may lag go to the read replica when there is one
    # (archive/db/replica.py); every other route reads the primary.
    path("", replica.lagging(views.home), name="home"),
    path("search", replica.lagging(views.search), name="search"),
    path("oai", replica.lagging(oai.endpoint), name="oai"),
    path("robots.txt", indexing.robots_txt, name="robots"),
    path("sitemap.xml", replica.lagging(indexing.sitemap_index), name="sitemap"),
    path("sitemaps/pages.xml", indexing.sitemap_pages, name="sitemap_pages"),
    path("sitemaps/items-<int:page>.xml", replica.lagging(indexing.sitemap_items),
         name="sitemap_items"),
    # Repository names hold slashes: the suffixed pages come before the landing page.
    path("items/<path:ibi>/files", views.item_files, name="item_files"),
    path("items/<path:ibi>/metadata", views.item_metadata, name="item_metadata"),
    path("items/<path:ibi>/metadata/<str:name>", metadata_formats.item_metadata_format,
         name="item_metadata_format"),
    path("items/<path:ibi>/oai_dc.xml", views.item_oai_dc, name="item_oai_dc"),
    path("items/<path:ibi>/linkset", linksets.linkset, name="item_linkset"),
    path("items/<path:ibi>/linkset.json", linksets.linkset_json, name="item_linkset_json"),
    path("items/<path:ibi>", views.item_page, name="item"),
    path("col/<path:rest>", downloads.download, name="download"),
    # Memento (RFC 7089 §5): the TimeMap of an edition chain, at the path aggregators use.
    path("timemap/link/<path:ibi>", memento_views.timemap, name="timemap"),
    # LAST, whatever is added above: /<archive service IBI>?servicesubject=… and, for the
    # resolver, persistent URLs /<ibi>[modifier][/path]. See archive/resolver/views.py.
    re_path(r"^(?P<path>.+)$", resolver_views.dispatch, name="dispatch"),
]
