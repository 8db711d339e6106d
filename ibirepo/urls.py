from __future__ import annotations

from django.contrib import admin
from django.urls import include, path, re_path

from archive.api.views import archive as archive_api
from archive.urls import dispatch

urlpatterns = [
    # A shortcut for the busiest URLs: a path whose first segment is a dotted name (the
    # subdomain of a repository name, /sid.inpe.br/mtc-m19/2013/…) is none of the routes below,
    # so persistent URLs and archive-service requests in that form do not try them first. The
    # same view as archive.urls' last route, which takes everything else (IBIp forms too).
    re_path(r"^(?P<path>[^./][^/]*\.[^/]*/.+)$", dispatch, name="repository-name"),
    path("admin/", admin.site.urls),
    # The language switcher's form posts here (django.views.i18n.set_language).
    path("i18n/", include("django.conf.urls.i18n")),
    path("api/archive", archive_api.archive_info, name="api-archive"),
    path("api/", include("archive.api.urls")),
    # Last: archive.urls ends with the catch-all /<ibi>… of the archive service and resolver.
    path("", include("archive.urls")),
]
