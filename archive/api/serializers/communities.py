"""Communities and collections as the API reads and writes them (/api/communities/,
/api/collections/): by slug, their parents by slug; the tree's services check every write."""
from __future__ import annotations

from django.urls import reverse
from rest_framework import serializers

from ...models import Collection, Community
from ...web.addresses import base_url


class _Node(serializers.ModelSerializer):
    logo = serializers.SerializerMethodField(help_text="the logo's URL; null when none")
    page = serializers.SerializerMethodField(help_text="its page on the site")

    def get_logo(self, node) -> str | None:
        return base_url(self.context.get("request")) + node.logo.url if node.logo else None

    def _page(self, route: str, node) -> str:
        return base_url(self.context.get("request")) + reverse(route, args=[node.slug])


class CommunitySerializer(_Node):
    """A community: its slug (its path /communities/<slug> and OAI-PMH set com_<slug>),
    names, short description, the community above it (null at the top)."""

    parent = serializers.SlugRelatedField(
        slug_field="slug", queryset=Community.objects.all(), required=False, allow_null=True,
        help_text="slug of the community above; null at the top")

    class Meta:
        model = Community
        fields = ["slug", "name_pt_br", "name_en", "description", "parent", "logo", "page"]

    def get_page(self, node: Community) -> str:
        return self._page("archive:community", node)


class CollectionSerializer(_Node):
    """A collection: its slug (its path /collections/<slug> and OAI-PMH set col_<slug>),
    names, short description, community, and the access a deposit here gets when it names
    none."""

    community = serializers.SlugRelatedField(slug_field="slug",
                                             queryset=Community.objects.all(),
                                             help_text="slug of its community")

    class Meta:
        model = Collection
        fields = ["slug", "name_pt_br", "name_en", "description", "community",
                  "default_access_rights", "default_embargo_days", "logo", "page"]

    def get_page(self, node: Collection) -> str:
        return self._page("archive:collection", node)
