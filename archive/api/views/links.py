"""/api/items/<ibi>/links: an item's secret links (archive/access/), for librarians.

POST makes one (``{"expires": "YYYY-MM-DD", "note": …}`` → 201 ``{"id", "url", "expires"}``:
the URL, with its token, is given this once and never again: only a hash of it is kept, so
a retried POST makes a second link, which DELETE revokes; an Idempotency-Key is not taken
here). GET lists them without their secret; DELETE …/links/<id> revokes one (204), after which
it answers 403 saying it was revoked.
"""
from __future__ import annotations

from django.http import Http404
from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers, status
from rest_framework.permissions import DjangoModelPermissions
from rest_framework.response import Response

from ...access import selectors as access
from ...access import services
from ...deposit import links, selectors
from ...models import AccessLink, Item
from ...web.addresses import base_url
from ..schema import IBI_PARAMETER, errors, strict_data
from ..serializers.inputs import LinkSerializer


class LinkPermissions(DjangoModelPermissions):
    """Librarians, by the secret links' own permissions (the Librarians group holds them):
    seeing an item's links needs archive.view_accesslink, making one add_accesslink, revoking
    one change_accesslink. The view permission on items is not enough: the account another
    Archive copies with holds it (`createpeer`), and reads files and records only."""

    perms_map = {**DjangoModelPermissions.perms_map,
                 "GET": ["%(app_label)s.view_%(model_name)s"],
                 "HEAD": ["%(app_label)s.view_%(model_name)s"],
                 "DELETE": ["%(app_label)s.change_%(model_name)s"]}


class LinkRecordSerializer(serializers.ModelSerializer):
    """A secret link as listed: never its token."""

    state = serializers.SerializerMethodField(help_text="active, expired or revoked")

    class Meta:
        model = AccessLink
        fields = ["id", "expires", "note", "created", "revoked_at", "state"]

    def get_state(self, link: AccessLink) -> str:
        if link.revoked_at is not None:
            return "revoked"
        return "expired" if link.expires <= timezone.localdate() else "active"


class MadeLinkSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.URLField(help_text="the item's landing page with the token: given once")
    expires = serializers.DateField()


class _ItemLinks(generics.GenericAPIView):
    permission_classes = [LinkPermissions]
    queryset = AccessLink.objects.none()  # for the model permissions: the links' own
    pagination_class = None

    def item(self) -> Item:
        item = selectors.item_by_ibi(self.kwargs["ibi"], selectors.public_items())
        if item is None:
            raise Http404
        return item


@extend_schema(parameters=[IBI_PARAMETER])
class ItemLinks(_ItemLinks):
    """The item's secret links (GET), or a new one (POST)."""

    serializer_class = LinkSerializer

    @extend_schema(responses={200: LinkRecordSerializer(many=True),
                              **errors(401, 403, 404)})
    def get(self, request, ibi: str) -> Response:
        return Response(LinkRecordSerializer(access.links_of(self.item()), many=True).data)

    @extend_schema(request=LinkSerializer,
                   responses={201: MadeLinkSerializer, **errors(400, 401, 403, 404, 409)})
    def post(self, request, ibi: str) -> Response:
        item = self.item()
        given = strict_data(LinkSerializer, request.data)
        link, token = services.create_link(item=item, by=request.user, expires=given["expires"],
                                           note=given.get("note", ""))
        return Response({"id": link.pk, "expires": link.expires.isoformat(),
                         "url": links.secret_link_url(item.ibi, token, base_url(request))},
                        status=status.HTTP_201_CREATED)


@extend_schema(parameters=[IBI_PARAMETER])
class ItemLink(_ItemLinks):
    """One secret link: DELETE revokes it."""

    serializer_class = LinkRecordSerializer

    @extend_schema(request=None, responses={204: None, **errors(401, 403, 404)})
    def delete(self, request, ibi: str, pk: int) -> Response:
        link = access.links_of(self.item()).filter(pk=pk).first()
        if link is None:
            raise Http404
        services.revoke_link(link=link)
        return Response(status=status.HTTP_204_NO_CONTENT)
