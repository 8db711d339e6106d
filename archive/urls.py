from __future__ import annotations

from django.urls import path, re_path

from .harvest import oai
from .resolver import views as resolver_views
from .site import downloads, replica, views

app_name = "archive"

urlpatterns = [
    # replica.lagging: pages whose reads may lag go to the read replica when there is one
    # (archive/site/replica.py); every other route reads the primary.
    path("", replica.lagging(views.home), name="home"),
    path("search", replica.lagging(views.search), name="search"),
    path("oai", replica.lagging(oai.endpoint), name="oai"),
    # Repository names hold slashes: the suffixed pages come before the landing page.
    path("items/<path:ibi>/files", views.item_files, name="item_files"),
    path("items/<path:ibi>/metadata", views.item_metadata, name="item_metadata"),
    path("items/<path:ibi>/oai_dc.xml", views.item_oai_dc, name="item_oai_dc"),
    path("items/<path:ibi>", views.item_page, name="item"),
    path("col/<path:rest>", downloads.download, name="download"),
    # LAST, whatever is added above: /<archive service IBI>?servicesubject=… and, for the
    # resolver, persistent URLs /<ibi>[modifier][/path]. See archive/resolver/views.py.
    re_path(r"^(?P<path>.+)$", resolver_views.dispatch, name="dispatch"),
]
