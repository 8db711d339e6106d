"""Communities and collections as the API reads and writes them (/api/communities/,
/api/collections/): by slug, their parents by slug; the tree's services check every write."""
from __future__ import annotations

from collections.abc import Mapping

from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

from ...models import Collection, Community, SubmissionProfile
from ...web.addresses import base_url

# The fields whose JSON value is a string (a slug, a name, a choice, a community by slug).
_TEXT = (serializers.CharField, serializers.ChoiceField, serializers.RelatedField)


class _Node(serializers.ModelSerializer):
    logo = serializers.SerializerMethodField(help_text="the logo's URL; null when none")
    page = serializers.SerializerMethodField(help_text="its page on the site")

    def to_internal_value(self, data):
        """JSON's types as the schema states them: a number is no slug or name (DRF would
        read 5 as "5")."""
        if isinstance(data, Mapping):
            wrong = {name: ["Not a valid string."] for name, value in data.items()
                     if isinstance(self.fields.get(name), _TEXT) and value is not None
                     and not isinstance(value, str)}
            if wrong:
                raise serializers.ValidationError(wrong)
        return super().to_internal_value(data)

    def get_logo(self, node) -> str | None:
        return base_url(self.context.get("request")) + node.logo.url if node.logo else None

    def _page(self, route: str, node) -> str:
        return base_url(self.context.get("request")) + reverse(route, args=[node.slug])


class _ParentSlug(serializers.SlugRelatedField):
    """A slug, or null: an empty string names no community (the schema says a slug is at
    least one character), it is refused, not read as null."""

    def run_validation(self, data=serializers.empty):
        if data == "":
            raise serializers.ValidationError(_("A slug, or null at the top."))
        return super().run_validation(data)


class _ProfileSlug(serializers.SlugRelatedField):
    """A profile's slug, or null for the default one; an empty string is refused, not read
    as null (as _ParentSlug)."""

    def run_validation(self, data=serializers.empty):
        if data == "":
            raise serializers.ValidationError(_("A profile's slug, or null for the default "
                                                "profile."))
        return super().run_validation(data)


class CommunitySerializer(_Node):
    """A community: its slug (its path /communities/<slug> and OAI-PMH set com_<slug>),
    names, short description, the community above it (null at the top)."""

    parent = _ParentSlug(
        slug_field="slug", queryset=Community.objects.all(), required=False, allow_null=True,
        help_text="slug of the community above; null at the top")

    class Meta:
        model = Community
        fields = ["slug", "name_pt_br", "name_en", "description", "parent", "logo", "page"]

    def get_page(self, node: Community) -> str:
        return self._page("archive:community", node)


class CollectionSerializer(_Node):
    """A collection: its slug (its path /collections/<slug> and OAI-PMH set col_<slug>),
    names, short description, community, the access a deposit here gets when it names
    none, and its submission profile."""

    community = serializers.SlugRelatedField(slug_field="slug",
                                             queryset=Community.objects.all(),
                                             help_text="slug of its community")
    profile = _ProfileSlug(
        slug_field="slug", queryset=SubmissionProfile.objects.all(), required=False,
        allow_null=True,
        help_text="slug of its submission profile (the fields its items have, "
                  "/api/collections/<slug>/profile); null: the default one, padrao")

    class Meta:
        model = Collection
        fields = ["slug", "name_pt_br", "name_en", "description", "community",
                  "default_access_rights", "default_embargo_days", "profile", "handle", "logo",
                  "page"]

    def get_page(self, node: Collection) -> str:
        return self._page("archive:collection", node)
