"""The site-wide middleware, in the order settings.MIDDLEWARE runs them.

- `RefuseNulMiddleware`: a NUL anywhere in a request is refused before any view or query.
- `DroppedConnectionMiddleware`: the database gone from under a request (a connection
  dropped, the server refusing or starting up); a read is tried once more, then 503.
- `UploadLimitsMiddleware`: an admin form's upload past a limit is a 413 or 400 with its
  reason, not a 500.
- `ActingPersonMiddleware`: the request's signed-in person is who acts in the preservation
  events its writes record (archive/preservation/events.py `acting`).

Their refusals follow the site's error policy (errors.py).

A dropped connection: persistent connections (CONN_MAX_AGE) outlive a database restart, a
failover or a pg_terminate_backend; the next request on such a connection fails at its first
query. A database that restarts refuses new connections for a while ("connection refused",
"the database system is starting up" or "… shutting down"). Django would answer 500 to both.
`DroppedConnectionMiddleware` tells them from a real error — an InterfaceError or
OperationalError after which a connection no longer answers ``SELECT 1``, or none can be made
— closes the dead connection, and then:

* GET, HEAD, OPTIONS: runs the view once more on a fresh connection; they change nothing, so
  doing them twice is harmless;
* any other method: 503 with Retry-After. The services write in one transaction, so a write
  cut off by the drop left nothing behind; the client sends it again. (A write that had
  committed before the drop answers what it made instead: the API's views do,
  api/idempotency.py.)

A second failure in a row, or one during the retry, is a 503 too, and so is an error of a
later middleware's answer (a session saved) with the database gone: never a 500 for a
database that went away.
"""
from __future__ import annotations

import logging

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, InterfaceError, OperationalError, connections, transaction
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.utils.translation import gettext_noop

from ..preservation import events
from ..refusals import Refusal
from .errors import refusal, refused

logger = logging.getLogger(__name__)

NUL = "\x00"


class RefuseNulMiddleware:
    """A NUL character in the path, the query, a cookie or a urlencoded form answers 404 / 400.

    PostgreSQL cannot hold NUL in text, so a NUL reaching a query is a 500 there (and a
    silent miss on SQLite); no IBI, file name or parameter of ours contains one. Checking here,
    once, covers every route: pages, downloads, persistent URLs, the archive service, OAI-PMH
    and the API. Multipart bodies are left to the forms and serializers, whose character fields
    refuse NUL themselves: parsing them here would take them from the API's stricter parser.
    """

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if NUL in request.path:
            return refusal(request, 404, "No resource has a NUL character in its path.")
        if _query_may_hold_nul(request) and _has_nul(request.GET):
            return refusal(request, 400, "A NUL character is not allowed in a query parameter.")
        if any(NUL in name or NUL in value for name, value in request.COOKIES.items()):
            # No browser sends one, but a quoted cookie's "\000" escape decodes to NUL, and the
            # session's lookup would carry it to the database.
            return refusal(request, 400, "A NUL character is not allowed in a cookie.")
        if (request.method == "POST"
                and request.content_type == "application/x-www-form-urlencoded"
                and _has_nul(request.POST)):
            return refusal(request, 400, "A NUL character is not allowed in a form field.")
        return self.get_response(request)


def _query_may_hold_nul(request: HttpRequest) -> bool:
    """Whether the query must be parsed to know: a decoded name or value holds NUL only
    where the raw query has ``%00`` or a NUL byte. Persistent URLs and urlRequests, the
    busiest answers, then skip building request.GET here (what is read again is parsed by
    the service strictly). A query with more fields than Django accepts is parsed, so that
    it is refused as before (TooManyFieldsSent, a 400)."""
    query = request.META.get("QUERY_STRING", "")
    limit = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS  # None: no limit
    return bool(query) and ("%00" in query or NUL in query
                            or limit is not None and query.count("&") >= limit)


def _has_nul(params) -> bool:
    return any(NUL in key or any(NUL in value for value in values)
               for key, values in params.lists())


# -- A dropped database connection, a database that is not there -----------------------------

IDEMPOTENT = ("GET", "HEAD", "OPTIONS")
RETRY_AFTER = 2  # seconds: a reconnection is a matter of milliseconds, a failover of seconds
RETRY_AFTER_UNAVAILABLE = 5  # a restart takes seconds
MESSAGE = gettext_noop("the database connection was lost: send the request again")
UNAVAILABLE = gettext_noop("the database is not available at the moment: send the request "
                           "again in a few seconds")


def close_dropped() -> bool:
    """Close every open connection that no longer answers; whether there was one."""
    dropped = False
    for connection in connections.all(initialized_only=True):
        if connection.connection is not None and not connection.is_usable():
            connection.close()
            dropped = True
    return dropped


# SQLSTATEs of a connection the server ended: class 08 (connection exception), and 57P01-03
# (administrator command, crash, cannot connect now: a pg_terminate_backend, a restart).
CONNECTION_ENDED = ("08", "57P01", "57P02", "57P03")


def connection_lost(exception: Exception) -> bool:
    """Whether the error itself says the connection went away, even when Django has closed
    it already (an atomic block whose rollback failed does): on PostgreSQL, an error of the
    driver with no SQLSTATE (libpq's own: the server closed the connection) or one of
    CONNECTION_ENDED; an InterfaceError (a closed connection used)."""
    if isinstance(exception, InterfaceError):
        return True
    connection = connections[DEFAULT_DB_ALIAS]
    cause = exception.__cause__
    if connection.vendor != "postgresql" or not isinstance(
            cause, connection.Database.OperationalError):
        return False
    sqlstate = getattr(cause, "sqlstate", None)
    return sqlstate is None or sqlstate.startswith(CONNECTION_ENDED)


def database_unavailable() -> bool:
    """Whether the primary database cannot be reached now (refused, starting up, shutting
    down): a connection is made if none is open. An open connection that answers, or a new one,
    says it is there."""
    connection = connections[DEFAULT_DB_ALIAS]
    try:
        connection.ensure_connection()
    except (InterfaceError, OperationalError) as exc:
        logger.warning("the database cannot be reached: %s", exc)
        connection.close()
        return True
    return False


def unavailable(request: HttpRequest, message: str = MESSAGE,
                retry_after: int = RETRY_AFTER) -> HttpResponse:
    response = refusal(request, 503, message)
    response["Retry-After"] = str(retry_after)
    return response


def made(request: HttpRequest, url: str) -> None:
    """Say, once the write in progress commits, where what it made is: should the database
    fail afterwards, while the answer is made, the answer is a 303 there, never "send it
    again" (#30, 1)."""
    transaction.on_commit(lambda: setattr(request, "_made", url))


def _made(request: HttpRequest) -> HttpResponse | None:
    url = getattr(request, "_made", None)
    if url is None:
        return None
    logger.warning("%s %s: the database went away after the commit; answered with %s",
                   request.method, request.path, url)
    return HttpResponseRedirect(url, status=303)


class DroppedConnectionMiddleware:
    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code == 500 and not getattr(request, "_database_failed", False):
            # An error after the view, in a later middleware (a session saved), became
            # Django's 500 before process_exception could see it.
            if close_dropped() or database_unavailable():
                logger.warning("%s %s: the database went away while answering",
                               request.method, request.path)
                return _made(request) or unavailable(request, UNAVAILABLE,
                                                     RETRY_AFTER_UNAVAILABLE)
        return response

    def process_exception(self, request: HttpRequest, exception: Exception
                          ) -> HttpResponse | None:
        if not isinstance(exception, InterfaceError | OperationalError):
            return None
        dropped = close_dropped() or connection_lost(exception)
        unreachable = database_unavailable()
        if not dropped and not unreachable:
            return None  # a real error: Django's 500
        logger.warning("%s %s: database connection %s (%s)", request.method, request.path,
                       "refused" if unreachable else "dropped", exception)
        request._database_failed = True
        if (done := _made(request)) is not None:
            return done
        message, retry_after = ((UNAVAILABLE, RETRY_AFTER_UNAVAILABLE) if unreachable
                                else (MESSAGE, RETRY_AFTER))
        if request.method not in IDEMPOTENT or getattr(request, "_dropped_retried", False):
            return unavailable(request, message, retry_after)
        request._dropped_retried = True
        # The rest of the chain again, on a fresh connection; a failure during it comes back
        # here and is a 503.
        return self.get_response(request)


# -- Uploads past a limit ---------------------------------------------------------------------

class UploadLimitsMiddleware:
    """413 or 400 with the reason, not a 500 or a bare 400, when a form upload passes a limit.

    Placed before CsrfViewMiddleware, which is the first to read an admin form's body: reading
    it here lets the refusal become a response. csrf_exempt views (the API) read their body
    themselves, where the API's exception handler answers.
    """

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(self, request: HttpRequest, view, args, kwargs) -> HttpResponse | None:
        if (request.method == "POST" and request.content_type == "multipart/form-data"
                and not getattr(view, "csrf_exempt", False)):
            try:
                request.POST  # noqa: B018  (parse now, through the upload handlers)
            except Refusal as exc:  # a file too large, too many, a name, no room
                return refused(request, exc, upload=True)
        return None

    def process_exception(self, request: HttpRequest, exc: Exception) -> HttpResponse | None:
        # Whatever a view let through of the one family, the upload limits among it.
        if isinstance(exc, Refusal):
            return refused(request, exc, upload=request.method == "POST"
                           and request.content_type == "multipart/form-data")
        return None


class ActingPersonMiddleware:
    """The person the request's writes act for, in their preservation events: the request's
    user, read when an event is recorded, after the session's or the API token's
    authentication (DRF sets the user on the request it wraps)."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        with events.acting_as(lambda: getattr(request, "user", None)):
            return self.get_response(request)
