"""The resolver service at ``/J8LNKB5R7W/3FUQHC5?servicesubject=…`` (RTC-11 §7.2): the HTTP
edge of resolver/service.py, throttled before any key is hashed."""
from __future__ import annotations

from django.http import HttpRequest, HttpResponse

from ...archive_service.requests import error_pairs
from ...web.errors import too_many
from ...web.pairs import render_pairs
from ...web.throttling import FailureThrottle
from .. import service as resolver_service


def resolver_service_view(request: HttpRequest) -> HttpResponse:
    """``/J8LNKB5R7W/3FUQHC5?servicesubject=inclusionRequest|exclusionRequest`` (§7.2)."""
    if request.method != "GET":
        response = render_pairs(error_pairs(
            f"method {request.method} not allowed: the resolver service answers GET"), 405)
        response["Allow"] = "GET"
        return response
    # Each key checked costs a 60 000-iteration PBKDF2: a client past its requests or its
    # refused keys is answered before any hashing.
    requests = FailureThrottle("resolver_service_requests")
    failures = FailureThrottle("resolver_service")
    for throttle, what in ((requests, "requests"), (failures, "refused registration keys")):
        wait = throttle.retry_after(request)
        if wait is not None:
            return too_many(wait, render_pairs(error_pairs(
                f"too many {what} from this client: try again in {wait} s"), 429))
    requests.record(request)
    try:
        pairs = resolver_service.answer(request.META.get("QUERY_STRING", ""))
    except resolver_service.Refused as exc:
        if exc.status == 403:
            failures.record(request)
        return render_pairs(error_pairs(str(exc)), exc.status)
    return render_pairs(pairs)


def is_resolver_service(path: str) -> bool:
    return path.upper() == resolver_service.SERVICE_IBI

