"""/api/items/<ibi>/statistics (access counts), /api/items/<ibi>/handover (migration) and
/api/items/<ibi>/copies (another Archive telling of its Copy).

Thin views over archive.usage.selectors and archive.preservation.copies; see the latter for
the hand-over protocol between two Archives.
"""
from __future__ import annotations

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny
from rest_framework.response import Response

from ...db import replica
from ...deposit import selectors
from ...models import Item
from ...preservation import copies, migration
from ...usage import counter as access_counter
from ...usage import selectors as stats
from ..permissions import CopyNoticePermissions, HandOverPermissions
from ..schema import IBI_PARAMETER, IDEMPOTENCY_KEY, errors, strict_data
from ..serializers.events import EventSerializer
from ..serializers.inputs import CopyNoticeSerializer, HandOverSerializer
from ..serializers.items import ItemSerializer, TombstoneSerializer
from ..serializers.statistics import StatisticsSerializer
from .items import _OneItem


@extend_schema(parameters=[IBI_PARAMETER])
class ItemStatistics(_OneItem):
    """Accesses of the item: downloads here and acknowledgments from resolvers, for the item,
    its edition family and its translation family, counted by COUNTER R5's rules (robots and
    double clicks left out): Total_Item_Requests, and Unique_Item_Requests under "unique"."""

    permission_classes = [AllowAny]
    serializer_class = StatisticsSerializer

    @extend_schema(responses={
        200: StatisticsSerializer,
        410: OpenApiResponse(TombstoneSerializer, description="deleted: its tombstone"),
        **errors(404)})
    def get(self, request, ibi: str) -> Response:
        item = self.get_object()
        if item.is_deleted:  # the tombstone policy: nothing but the tombstone
            return Response(TombstoneSerializer(item, context=self.get_serializer_context()).data,
                            status=status.HTTP_410_GONE)
        access_counter.flush()  # what this process counted is written first
        with replica.lagging_reads():  # counts may lag: from the read replica if there is one
            return Response(stats.item_statistics(item))


@extend_schema(parameters=[IBI_PARAMETER])
class ItemHandOver(_OneItem):
    """Migration, at the Original's Archive: once the target holds a complete, current Copy,
    this Archive's record becomes a Copy of the target's (archive.preservation.copies explains
    the order).
    Idempotent for the same target."""

    permission_classes = [HandOverPermissions]
    serializer_class = ItemSerializer
    success_status = {"POST": status.HTTP_200_OK}

    def get_serializer_class(self):
        return HandOverSerializer if self.request.method == "POST" else ItemSerializer

    @extend_schema(request=HandOverSerializer, parameters=[IDEMPOTENCY_KEY],
                   responses={200: ItemSerializer, **errors(303, 400, 401, 403, 404, 409, 502)})
    def post(self, request, ibi: str) -> Response:
        item = self.get_object()
        form = HandOverSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        return self.record(migration.hand_over(item=item, target=form.validated_data["target"],
                                               on_saved=self.on_saved))


@extend_schema(parameters=[IBI_PARAMETER])
class ItemCopies(generics.GenericAPIView):
    """Another Archive tells, through the account it copies with (`manage.py createpeer`),
    that it made or refreshed a Copy of this Original: a replication event of the item is
    recorded, that Archive (by its archive service IBI) its agent; the event is answered.
    Each notice is an event: a refresh is told again. Not for Copies or tombstones (409)."""

    permission_classes = [CopyNoticePermissions]
    serializer_class = CopyNoticeSerializer
    queryset = Item.objects.none()  # the permission's model

    @extend_schema(request=CopyNoticeSerializer,
                   responses={201: EventSerializer, **errors(400, 401, 403, 404, 409)})
    def post(self, request, ibi: str) -> Response:
        item = selectors.item_by_ibi(ibi, selectors.public_items())
        if item is None:
            raise NotFound(_("no item of this repository has the IBI %(ibi)r") % {"ibi": ibi})
        given = strict_data(CopyNoticeSerializer, request.data)
        event = copies.copied_elsewhere(item, archive=given["archive"],
                                        refreshed=given["refreshed"], account=request.user)
        return Response(EventSerializer(event).data, status=status.HTTP_201_CREATED)
