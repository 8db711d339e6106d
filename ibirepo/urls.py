from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

from archive import archive_api

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/archive", archive_api.archive_info, name="api-archive"),
    path("api/", include("archive.api_urls")),
    # Last: archive.urls ends with the catch-all /<ibi>… of the archive service and resolver.
    path("", include("archive.urls")),
]
