"""/api/communities/ and /api/collections/: read by all, written by librarians (the model
permissions of the Librarians group), through the tree's services (archive/communities/), whose
refusals (a slug taken, a cycle, a collection with items deleted) are 400s naming the field."""
from __future__ import annotations

from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import generics, status
from rest_framework.parsers import JSONParser
from rest_framework.permissions import AllowAny, DjangoModelPermissionsOrAnonReadOnly
from rest_framework.response import Response

from ...communities import services
from ...models import Collection, Community
from ...profiles import selectors as profiles
from ..idempotency import IdempotentWrites
from ..schema import IDEMPOTENCY_KEY, errors
from ..serializers.communities import CollectionSerializer, CommunitySerializer
from ..serializers.profiles import ProfileSerializer


def _listed(serializer):
    return extend_schema_view(post=extend_schema(
        parameters=[IDEMPOTENCY_KEY], responses={201: serializer, **errors(400, 401, 403, 409)}))


def _one(serializer):
    changed = extend_schema(responses={200: serializer, **errors(400, 401, 403, 404)})
    return extend_schema_view(
        get=extend_schema(responses={200: serializer, **errors(404)}), put=changed,
        patch=changed, delete=extend_schema(responses={204: None, **errors(400, 401, 403, 404)}))


class _Written:
    """Writes through the services, which check first (nothing saved when refused). JSON
    only: a form would read an empty parent as null and an empty body as no change."""

    parser_classes = [JSONParser]

    saving = None  # the service that checks and saves
    deleting = None  # the service that checks and deletes

    def perform_create(self, serializer) -> None:
        model = serializer.Meta.model
        serializer.instance = type(self).saving(model(**serializer.validated_data),
                                                getattr(self, "on_saved", None))

    def perform_update(self, serializer) -> None:
        for name, value in serializer.validated_data.items():
            setattr(serializer.instance, name, value)
        type(self).saving(serializer.instance)

    def perform_destroy(self, instance) -> None:
        type(self).deleting(instance)


def _community_save(community: Community, on_saved=None) -> Community:
    return services.community_save(community=community, on_saved=on_saved)


def _collection_save(collection: Collection, on_saved=None) -> Collection:
    return services.collection_save(collection=collection, on_saved=on_saved)


class _IdempotentCreate(IdempotentWrites):
    """A POST with an Idempotency-Key (api/idempotency.py): sent again, the community or
    collection it made is answered again (201, Idempotent-Replayed: true), never made twice;
    the key is linked to it in the save's own transaction."""

    success_status = {"POST": status.HTTP_201_CREATED}

    def location(self, written) -> str:
        name = "api:community" if isinstance(written, Community) else "api:collection"
        return self.request.build_absolute_uri(reverse(name, args=[written.slug]))

    def record(self, written, status_code: int = status.HTTP_200_OK) -> Response:
        """What was written, as it is now (a replay's answer)."""
        self.answered = written
        data = self.get_serializer(type(written).objects.get(pk=written.pk)).data
        return Response(data, status=status_code, headers={"Location": self.location(written)})


def _community_delete(community: Community) -> None:
    services.community_delete(community=community)


def _collection_delete(collection: Collection) -> None:
    services.collection_delete(collection=collection)


@_listed(CommunitySerializer)
class CommunityList(_IdempotentCreate, _Written, generics.ListCreateAPIView):
    """GET: every community, by slug (the tree: each names its parent). POST: a new one."""

    queryset = Community.objects.select_related("parent").order_by("slug")
    serializer_class = CommunitySerializer
    permission_classes = [DjangoModelPermissionsOrAnonReadOnly]
    pagination_class = None  # a repository has tens of communities, not thousands
    saving, deleting = staticmethod(_community_save), staticmethod(_community_delete)


@_one(CommunitySerializer)
class CommunityDetail(_Written, generics.RetrieveUpdateDestroyAPIView):
    """One community: read, change (move it under another), delete it when empty."""

    queryset = Community.objects.select_related("parent")
    serializer_class = CommunitySerializer
    permission_classes = [DjangoModelPermissionsOrAnonReadOnly]
    lookup_field = "slug"
    saving, deleting = staticmethod(_community_save), staticmethod(_community_delete)


@_listed(CollectionSerializer)
class CollectionList(_IdempotentCreate, _Written, generics.ListCreateAPIView):
    """GET: every collection, by slug. POST: a new one."""

    queryset = Collection.objects.select_related("community", "profile").order_by("slug")
    serializer_class = CollectionSerializer
    permission_classes = [DjangoModelPermissionsOrAnonReadOnly]
    pagination_class = None  # thousands at most: one list, read in one query
    saving, deleting = staticmethod(_collection_save), staticmethod(_collection_delete)


@_one(CollectionSerializer)
class CollectionDetail(_Written, generics.RetrieveUpdateDestroyAPIView):
    """One collection: read, change, delete it when it owns no item."""

    queryset = Collection.objects.select_related("community", "profile")
    serializer_class = CollectionSerializer
    permission_classes = [DjangoModelPermissionsOrAnonReadOnly]
    lookup_field = "slug"
    saving, deleting = staticmethod(_collection_save), staticmethod(_collection_delete)


class CollectionProfile(generics.GenericAPIView):
    """GET: the submission profile a collection's items are checked against (its own, else
    the default one): its fields in order, required or repeatable, how each is entered, and
    a controlled list's terms. Read by all; changed by librarians in the admin."""

    queryset = Collection.objects.select_related("profile")
    serializer_class = ProfileSerializer
    permission_classes = [AllowAny]
    pagination_class = None

    @extend_schema(responses={200: ProfileSerializer,
                              **errors(404, e404="no collection has this slug")})
    def get(self, request, slug: str) -> Response:
        collection = get_object_or_404(self.get_queryset(), slug=slug)
        profile = profiles.profile_of(collection)
        return Response(ProfileSerializer({
            "slug": profile.slug if profile else "", "name": profile.name if profile else "",
            "collection": collection.slug, "fields": profiles.entries_of(profile)}).data)
