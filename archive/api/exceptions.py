"""The API's errors: DRF's handler (settings.REST_FRAMEWORK's EXCEPTION_HANDLER), plus the
repository's refusals (archive/refusals.py, one family), each as ``{"detail": …}`` with its
status, as pretix's api/exception.py answers its own over DRF's."""
from __future__ import annotations

from django.core.exceptions import SuspiciousOperation
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import exception_handler as rest_exception_handler

from ..refusals import Refusal


def exception_handler(exc: Exception, context: dict) -> Response | None:
    """DRF's handler, plus the repository's refusals, each as {"detail": …}."""
    if isinstance(exc, Refusal):
        return Response({"detail": str(exc)}, status=exc.status)
    if isinstance(exc, SuspiciousOperation):  # too many fields: Django's own limits
        return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
    return rest_exception_handler(exc, context)
