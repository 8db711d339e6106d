"""The app's routes, and `dispatch`, the catch-all that takes every URL no other route took.

The routes are the only place that imports every edge; the edges never import one another.
"""
from __future__ import annotations

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponse
from django.urls import path, re_path

from .api.views import counter
from .archive_service import views as archive_service
from .archive_service.answers import NotTheService
from .db import replica
from .harvest import oai
from .identifiers import ibi as ibilib
from .protocol import persistent_url
from .resolver import views as resolver
from .resolver.views.paths import raw_path
from .site import (
    access,
    accounts,
    communities,
    downloads,
    indexing,
    legacy,
    linksets,
    lockss,
    metadata_formats,
    orcid,
    review,
    saml,
    submit,
    thumbnails,
    usage,
    views,
)


def dispatch(request: HttpRequest, path: str) -> HttpResponse:
    """``/<path>`` that no other route took:

    1. ``/J8LNKB5R7W/3FUQHC5`` is the resolver service (RTC-11 §7.2, resolver/service.py);
    2. ``/<archive service IBI>?servicesubject=…`` (the IBI in either form, any case, legacy
       ``@`` port) is the archive service (§6.1, §9; archive_service/views.py);
    3. everything else goes to the resolver: persistent URLs ``/<ibi>[mdf][/path]`` (§8).
    """
    if resolver.is_resolver_service(path):
        return resolver.resolver_service_view(request)
    # A lenient look at the query is enough to route; the service reads it strictly, and
    # checks the path in the query it needs anyway.
    if _names_a_service_subject(request):
        try:
            return archive_service.archive_service(request, path)
        except NotTheService:
            pass
    return resolver.persistent_url_view(request, path,
                                        archive_service=archive_service.archive_service)


class PersistentUrlsBeforeRoutes:
    """Middleware: every valid IBI resolves (issue #41, 7). A repository name's first path
    segment is its subdomain, which may be one label: the Archive at ``x.items`` mints
    ``items/x/2013/09.04.12.27.57``, whose persistent URL a route of the site also takes
    (``items/<ibi>``). So a GET or HEAD that a route took, whose path is a persistent URL of
    a valid IBI, is resolved first (`dispatch`); the route answers only when the resolution
    finds nothing (404). No route's own URL is such a path: the IBI a route names comes after
    its word, and a repository name has its year third."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(self, request: HttpRequest, view, args, kwargs) -> HttpResponse | None:
        if view is dispatch or request.method not in ("GET", "HEAD") \
                or not _a_valid_ibi(raw_path(request)):
            return None
        response = dispatch(request, request.path_info[1:])
        return None if response.status_code == 404 else response


def _a_valid_ibi(path: str) -> bool:
    """Whether the path is a persistent URL of an IBI RTC-10 could have minted."""
    try:
        ibilib.parse(persistent_url.parse(path).ibi)
    except ValueError:  # PersistentUrlError and IbiError alike
        return False
    return True


def _names_a_service_subject(request: HttpRequest) -> bool:
    """Whether the query has a ``servicesubject`` parameter, as ``"servicesubject" in
    request.GET`` says, mostly without building request.GET: a name without ``%`` or ``+``
    is its own decoding. Any other case (an escaped name, more fields than Django accepts)
    is left to request.GET."""
    query = request.META.get("QUERY_STRING", "")
    if not query or "servicesubject" not in query and "%" not in query:
        return False
    limit = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS  # None: no limit
    if limit is not None and query.count("&") >= limit:
        return "servicesubject" in request.GET  # refused there (TooManyFieldsSent)
    plain = True
    for field in query.split("&"):
        name = field.partition("=")[0]
        if name == "servicesubject":
            return True
        plain = plain and "%" not in name and "+" not in name
    return not plain and "servicesubject" in request.GET


app_name = "archive"

urlpatterns = [
    # replica.lagging: pages whose reads may lag go to the read replica when there is one
    # (archive/db/replica.py); every other route reads the primary.
    path("", replica.lagging(views.home), name="home"),
    path("search", replica.lagging(views.search), name="search"),
    # The tree (issue 34): stable paths by slug, as DSpace's handles of communities and
    # collections are; a collection's page is the browse of its items.
    path("communities/<slug:slug>", replica.lagging(communities.community_page),
         name="community"),
    path("collections/<slug:slug>", replica.lagging(communities.collection_page),
         name="collection"),
    path("collections/<slug:slug>/atom.xml",
         replica.lagging(communities.CollectionAtomFeed()), name="collection_atom"),
    path("collections/<slug:slug>/rss.xml", replica.lagging(communities.CollectionFeed()),
         name="collection_rss"),
    path("oai", replica.lagging(oai.endpoint), name="oai"),
    path("usage/", replica.lagging(usage.summary), name="usage"),
    # The COUNTER API, Release 5.1 (api/views/counter.py).
    path("r51/status", counter.status, name="counter_status"),
    path("r51/members", counter.members, name="counter_members"),
    path("r51/reports", counter.report_list, name="counter_reports"),
    path("r51/reports/<str:report_id>", counter.report, name="counter_report"),
    # The submitter's pages (issue 35): their submissions, and one submission's form.
    path("submit/", submit.submissions, name="submissions"),
    path("submit/<int:pk>/", submit.submission, name="submission"),
    # LOCKSS manifests for Rede Cariniana (site/lockss.py): the Archival Units, and each one's.
    path("lockss/", replica.lagging(lockss.index), name="lockss"),
    path("lockss/<slug:slug>/<int:year>/", replica.lagging(lockss.manifest),
         name="lockss_manifest"),
    path("robots.txt", indexing.robots_txt, name="robots"),
    path("favicon.ico", indexing.favicon, name="favicon"),
    path("sitemap.xml", replica.lagging(indexing.sitemap_index), name="sitemap"),
    path("sitemaps/pages.xml", indexing.sitemap_pages, name="sitemap_pages"),
    path("sitemaps/items-<int:page>.xml", replica.lagging(indexing.sitemap_items),
         name="sitemap_items"),
    # DSpace's old links (site/legacy.py): 301 to the item that came from there. A UUID is
    # never a repository name (which holds slashes), so /items/<uuid> comes first.
    re_path(r"^(?:(?:xmlui|jspui)/)?handle/(?P<rest>.+)$", legacy.handle, name="old_handle"),
    re_path(r"^(?:(?:xmlui|jspui)/)?bitstream/handle/(?P<prefix>[^/]+)/(?P<suffix>[^/]+)/"
            r"(?P<name>.+)$", legacy.bitstream_by_handle, name="old_bitstream_handle"),
    re_path(r"^(?:(?:xmlui|jspui)/)?bitstream/(?P<prefix>[^/]+)/(?P<suffix>[^/]+)/"
            r"(?P<sequence>[0-9]+)/(?P<name>.+)$", legacy.bitstream_by_sequence,
            name="old_bitstream_sequence"),
    re_path(r"^(?:server/)?oai/request$", legacy.oai, name="old_oai"),
    path("items/<uuid:uuid>", legacy.dspace_item, name="old_item"),
    path("items/<uuid:uuid>/full", legacy.dspace_item, name="old_item_full"),
    path("entities/<str:entity_type>/<uuid:uuid>", legacy.dspace_item, name="old_entity"),
    path("bitstreams/<uuid:uuid>", legacy.bitstream, name="old_bitstream"),
    path("bitstreams/<uuid:uuid>/download", legacy.bitstream, name="old_bitstream_download"),
    # Repository names hold slashes: the suffixed pages come before the landing page.
    path("items/<path:ibi>/files", views.item_files, name="item_files"),
    path("items/<path:ibi>/metadata", views.item_metadata, name="item_metadata"),
    path("items/<path:ibi>/metadata/<str:name>", metadata_formats.item_metadata_format,
         name="item_metadata_format"),
    path("items/<path:ibi>/oai_dc.xml", views.item_oai_dc, name="item_oai_dc"),
    path("items/<path:ibi>/linkset", linksets.linkset, name="item_linkset"),
    path("items/<path:ibi>/linkset.json", linksets.linkset_json, name="item_linkset_json"),
    # The reviewer's queue and a task's page (issue 35, 7): an account's, never cached.
    path("review/", review.queue, name="review_queue"),
    path("review/<int:pk>/", review.task_page, name="review_task"),
    # A reader asks for a copy of a closed item's files (archive/access/).
    path("items/<path:ibi>/request", access.item_request, name="item_request"),
    path("items/<path:ibi>/thumbnails/<str:name>", thumbnails.thumbnail,
         name="item_thumbnail"),
    path("items/<path:ibi>", views.item_page, name="item"),
    path("col/<path:rest>", downloads.download, name="download"),
    # Memento (RFC 7089 §5): the TimeMap of an edition chain, at the path aggregators use.
    path("timemap/link/<path:ibi>", resolver.timemap, name="timemap"),
    path("timegate/<path:uri>", resolver.timegate, name="timegate"),
    # What a persistent URL resolves to, shown instead of followed (Handle's ?noredirect, ARK's
    # ?info): a route of its own, so that a persistent URL's query stays RTC-11's and the item's.
    path("inspect/<path:path>", resolver.inspect, name="inspect"),
    # Accounts of people who are not staff (site/accounts.py; HTTPS, as the admin).
    path("accounts/", accounts.account, name="account"),
    path("accounts/ways-in/<int:identity_id>/remove/", accounts.unlink,
         name="account_unlink"),
    path("accounts/data/", accounts.personal_data, name="account_data"),
    path("accounts/erasure/", accounts.erasure, name="account_erasure"),
    path("accounts/signup/", accounts.signup, name="signup"),
    path("accounts/verify/", accounts.verify_sent, name="account_verify_sent"),
    path("accounts/verify/<str:token>/", accounts.verify, name="account_verify"),
    path("accounts/login/", accounts.LoginView.as_view(), name="login"),
    path("accounts/orcid/login/", orcid.login, name="orcid_login"),
    path("accounts/orcid/callback/", orcid.callback, name="orcid_callback"),
    path("accounts/orcid/connect/<str:token>/", orcid.connect, name="orcid_connect"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/password/reset/", accounts.PasswordResetView.as_view(),
         name="password_reset"),
    path("accounts/password/reset/sent/", accounts.PasswordResetSentView.as_view(),
         name="password_reset_sent"),
    path("accounts/password/reset/<uidb64>/<token>/",
         accounts.PasswordResetConfirmView.as_view(), name="password_reset_confirm"),
    path("accounts/password/reset/done/", accounts.PasswordResetDoneView.as_view(),
         name="password_reset_done"),
    path("accounts/password/change/", accounts.PasswordChangeView.as_view(),
         name="password_change"),
    # LAST, whatever is added above: /<archive service IBI>?servicesubject=… and, for the
    # resolver, persistent URLs /<ibi>[modifier][/path]. See `dispatch`.
    # Institutional login: a SAML 2.0 service provider in the CAFe federation (site/saml.py).
    path("saml/", saml.discovery, name="saml_discovery"),
    path("saml/metadata/", saml.metadata, name="saml_metadata"),
    path("saml/login/", saml.login, name="saml_login"),
    path("saml/acs/", saml.acs, name="saml_acs"),
    path("saml/logout/", saml.logout, name="saml_logout"),
    path("saml/sls/", saml.sls, name="saml_sls"),
    re_path(r"^(?P<path>.+)$", dispatch, name="dispatch"),
]
