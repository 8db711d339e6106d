"""A database connection dropped under a request: a read is tried once more, a write is a 503.

Persistent connections (CONN_MAX_AGE) outlive a database restart, a failover or a
pg_terminate_backend; the next request on such a connection fails at its first query. Django
would answer 500. `DroppedConnectionMiddleware` (site-wide, in settings.MIDDLEWARE) tells that
case from a real error — an InterfaceError or OperationalError after which a connection no
longer answers ``SELECT 1`` — closes the dead connection, and then:

* GET, HEAD, OPTIONS: runs the view once more on a fresh connection; they change nothing, so
  doing them twice is harmless;
* any other method: 503 with Retry-After. The services write in one transaction, so a write
  cut off by the drop left nothing behind; the client sends it again.

A second drop in a row, or one during the retry, is a 503 too: never a 500 for a connection
the database took away.
"""
from __future__ import annotations

import logging

from django.db import InterfaceError, OperationalError, connections
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext_noop

from ..protocol.responses import refusal

logger = logging.getLogger(__name__)

IDEMPOTENT = ("GET", "HEAD", "OPTIONS")
RETRY_AFTER = 2  # seconds: a reconnection is a matter of milliseconds, a failover of seconds
MESSAGE = gettext_noop("the database connection was lost: send the request again")


def close_dropped() -> bool:
    """Close every open connection that no longer answers; whether there was one."""
    dropped = False
    for connection in connections.all(initialized_only=True):
        if connection.connection is not None and not connection.is_usable():
            connection.close()
            dropped = True
    return dropped


def unavailable(request: HttpRequest) -> HttpResponse:
    response = refusal(request, 503, MESSAGE)
    response["Retry-After"] = str(RETRY_AFTER)
    return response


class DroppedConnectionMiddleware:
    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception
                          ) -> HttpResponse | None:
        if not isinstance(exception, InterfaceError | OperationalError) or not close_dropped():
            return None  # a real error: Django's 500
        logger.warning("%s %s: database connection dropped (%s)", request.method,
                       request.path, exception)
        if request.method not in IDEMPOTENT or getattr(request, "_dropped_retried", False):
            return unavailable(request)
        request._dropped_retried = True
        # The rest of the chain again, on a fresh connection; a drop during it comes back
        # here and is a 503.
        return self.get_response(request)
