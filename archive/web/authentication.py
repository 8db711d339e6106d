"""How API clients say who they are: DRF's token authentication, throttled per address."""
from __future__ import annotations

from rest_framework.authentication import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed, Throttled

from .throttling import FailureThrottle


class ThrottledTokenAuthentication(TokenAuthentication):
    """DRF's token authentication; a client past its wrong tokens is answered 429 unasked."""

    def authenticate(self, request):
        throttle = FailureThrottle("token_failure")
        wait = throttle.retry_after(request)
        if wait is not None:
            raise Throttled(wait)
        try:
            return super().authenticate(request)
        except AuthenticationFailed:
            throttle.record(request)
            raise
