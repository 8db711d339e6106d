"""How API clients say who they are: DRF's token authentication, throttled per address."""
from __future__ import annotations

from rest_framework.authentication import TokenAuthentication, get_authorization_header
from rest_framework.exceptions import AuthenticationFailed, Throttled

from .throttling import FailureThrottle


class ThrottledTokenAuthentication(TokenAuthentication):
    """DRF's token authentication; a client past its wrong tokens is answered 429 unasked.

    Only a request that presents a token is held to that count: an address behind which
    someone guessed tokens (a campus NAT) still reads anonymously, under the anonymous reads'
    own limit (throttling.py `ReadThrottle`)."""

    def authenticate(self, request):
        presented = get_authorization_header(request).split()
        if not presented or presented[0].lower() != self.keyword.lower().encode():
            return None  # no token: not this authentication's client
        throttle = FailureThrottle("token_failure")
        wait = throttle.retry_after(request)
        if wait is not None:
            raise Throttled(wait)
        try:
            return super().authenticate(request)
        except AuthenticationFailed:
            throttle.record(request)
            raise
