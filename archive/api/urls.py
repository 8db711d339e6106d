"""/api/…: items by IBI, communities and collections by slug, resumable uploads, the OpenAPI
schema and its documentation page (served offline)."""
from __future__ import annotations

from csp.decorators import csp_update
from django.urls import path, register_converter
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from .views import communities, copies, events, items, links, review, uploads


class ItemIbiConverter:
    """An IBI in a path, slashes and all. Anything is accepted here, so that the view answers
    a JSON 404 for an unknown or malformed IBI instead of the site's HTML one."""

    regex = r"[\s\S]+"  # any character, a newline too (`.` would leave it to the HTML 404)

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return str(value)


register_converter(ItemIbiConverter, "item_ibi")


class AnyIdConverter(ItemIbiConverter):
    """A submission's or a task's id in a path: anything up to the next slash is taken, so
    that the view answers a JSON 404 for what is no id (-1, a word) instead of the site's
    HTML one (the schema says integer: settings PATH_CONVERTER_OVERRIDES)."""

    regex = r"[^/]+"


register_converter(AnyIdConverter, "any_id")

app_name = "api"

urlpatterns = [
    path("items/", items.ItemList.as_view(), name="items"),
    path("items/<item_ibi:ibi>/files", items.ItemFiles.as_view(), name="item-files"),
    path("items/<item_ibi:ibi>/statistics", copies.ItemStatistics.as_view(),
         name="item-statistics"),
    path("items/<item_ibi:ibi>/handover", copies.ItemHandOver.as_view(),
         name="item-handover"),
    path("items/<item_ibi:ibi>/events", events.ItemEvents.as_view(), name="item-events"),
    path("items/<item_ibi:ibi>/copies", copies.ItemCopies.as_view(), name="item-copies"),
    path("items/<item_ibi:ibi>/links", links.ItemLinks.as_view(), name="item-links"),
    path("items/<item_ibi:ibi>/links/<int:pk>", links.ItemLink.as_view(), name="item-link"),
    path("items/<item_ibi:ibi>", items.ItemDetail.as_view(), name="item"),
    path("communities/", communities.CommunityList.as_view(), name="communities"),
    path("communities/<str:slug>", communities.CommunityDetail.as_view(), name="community"),
    path("collections/", communities.CollectionList.as_view(), name="collections"),
    path("collections/<str:slug>", communities.CollectionDetail.as_view(), name="collection"),
    path("collections/<str:slug>/profile", communities.CollectionProfile.as_view(),
         name="collection-profile"),
    path("uploads/", uploads.UploadList.as_view(), name="uploads"),
    path("uploads/<str:id>", uploads.UploadDetail.as_view(), name="upload"),
    # Review (issue 35): a submitter's submissions, a reviewer's tasks.
    path("submissions/", review.SubmissionList.as_view(), name="submissions"),
    path("submissions/<any_id:pk>", review.SubmissionDetail.as_view(), name="submission"),
    *(path(f"submissions/<any_id:pk>/{action}",
           review.SubmissionTransition.as_view(transition=action), name=f"submission-{action}")
      for action in ("submit", "withdraw")),
    path("tasks/", review.TaskList.as_view(), name="tasks"),
    *(path(f"tasks/<any_id:pk>/{action}", review.TaskTransition.as_view(transition=action),
           name=f"task-{action}")
      for action in ("claim", "unclaim", "approve", "return", "release", "reassign")),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view: Swagger UI's start-up script is a file of its own, not inline (the CSP);
    # Swagger UI sets style attributes as it draws, which this page's policy allows (styles
    # only: scripts stay 'self').
    path("docs/", csp_update({"style-src": ["'unsafe-inline'"]})(
        SpectacularSwaggerSplitView.as_view(url_name="api:schema")), name="docs"),
]
