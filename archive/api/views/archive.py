"""GET /api/archive: who this Archive is for the resolution system, as JSON."""
from __future__ import annotations

from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.decorators import api_view, permission_classes
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from ...archive_service import answers as archive_service
from ...web.addresses import base_url
from ..schema import errors


@extend_schema(
    summary="This Archive: address, archive service IBI and the relations it answers",
    responses={200: inline_serializer("Archive", {
        "archiveaddress": serializers.CharField(help_text="host[:port] (RTC-11 §6.1)"),
        "archiveserviceibi": serializers.CharField(help_text="repository name"),
        "archiveserviceibip": serializers.CharField(help_text="IBIp"),
        "platformsoftware": serializers.DictField(
            child=serializers.CharField(), help_text="{rep, ibip} of the platform, or {}"),
        "relations": serializers.ListField(
            child=serializers.CharField(),
            help_text="relations of Table 9.5 answered; xx / xx-YY stand for languages"),
    }), **errors(404, e404="no archive service yet (migrate has not run)")},
)
@api_view(["GET"])
@permission_classes([AllowAny])
def archive_info(request: Request) -> Response:
    info = archive_service.archive_info(base_url(request))
    if info is None:
        raise NotFound(_("this repository has no archive service yet: run migrate"))
    return Response(info)
