"""The API's errors: DRF's handler (settings.REST_FRAMEWORK's EXCEPTION_HANDLER), plus the
repository's own refusals, each as ``{"detail": …}`` with its status."""
from __future__ import annotations

from django.core.exceptions import SuspiciousOperation
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import exception_handler as rest_exception_handler

from ..deposit import pending, services
from ..deposit.uploads import FileTooLarge, NoRoomForUpload


def exception_handler(exc: Exception, context: dict) -> Response | None:
    """DRF's handler, plus the repository's own refusals, each as {"detail": …}."""
    if isinstance(exc, services.ServiceError | FileTooLarge | NoRoomForUpload
                  | pending.PendingError):
        return Response({"detail": str(exc)}, status=exc.status)
    if isinstance(exc, SuspiciousOperation):  # too many files or fields: Django's limits
        return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
    return rest_exception_handler(exc, context)
