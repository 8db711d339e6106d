"""/api/items/<ibi>/events: an item's preservation events (PREMIS 3), for librarians.

A thin list over archive.preservation.events: the item's events and its files', oldest first,
walked by cursor as the API's other lists. Who may read them is the model permission
archive.view_premisevent, which the Librarians group holds (deposit/services.py); the
account another Archive copies with reads records and files, not this history.
"""
from __future__ import annotations

from django.db.models import QuerySet
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import generics
from rest_framework.exceptions import NotFound
from rest_framework.permissions import DjangoModelPermissions

from ...deposit import selectors
from ...models import PremisEvent
from ...preservation import events
from ..pagination import ItemPagination
from ..schema import IBI_PARAMETER, errors
from ..serializers.events import EventSerializer


class EventPermissions(DjangoModelPermissions):
    """Reading needs archive.view_premisevent (librarians); nothing here writes."""

    perms_map = {**DjangoModelPermissions.perms_map,
                 "GET": ["%(app_label)s.view_%(model_name)s"],
                 "HEAD": ["%(app_label)s.view_%(model_name)s"]}


class EventPagination(ItemPagination):
    """Oldest first, by a unique key."""

    ordering = ("id",)


@extend_schema(parameters=[IBI_PARAMETER])
class ItemEvents(generics.ListAPIView):
    """The preservation events of the item and of its files (PREMIS 3, the Library of
    Congress event types), oldest first: ingestion, accession, fixity and virus checks,
    format identification, replication, transfer, metadata modification, policy assignment,
    deletion. Each with its agent (a person's account, this software and its version, or
    another Archive), outcome and detail. For librarians; a tombstone's events too."""

    serializer_class = EventSerializer
    pagination_class = EventPagination
    permission_classes = [EventPermissions]
    queryset = PremisEvent.objects.none()  # the permission's model

    @extend_schema(responses={200: EventSerializer(many=True), **errors(400, 401, 403, 404)})
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def get_queryset(self) -> QuerySet[PremisEvent]:
        item = selectors.item_by_ibi(self.kwargs["ibi"])
        if item is None:
            raise NotFound(_("no item of this repository has the IBI %(ibi)r")
                           % {"ibi": self.kwargs["ibi"]})
        return events.of_item(item.ibi)
