"""/api/items/<ibi>/statistics (access counts) and /api/items/<ibi>/handover (migration).

Thin views over archive.usage.selectors and archive.preservation.copies; see the latter for
the hand-over protocol between two Archives.
"""
from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny
from rest_framework.response import Response

from ...db import replica
from ...preservation import migration
from ...usage import counter as access_counter
from ...usage import selectors as stats
from ..permissions import HandOverPermissions
from ..schema import IBI_PARAMETER, IDEMPOTENCY_KEY, errors
from ..serializers.inputs import HandOverSerializer
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
