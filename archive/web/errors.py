"""The site's error policy: how a request refused before, or around, any view is answered.

A refusal is said in the caller's own terms: JSON ``{"detail": …}`` under /api/, an ``error``
pair list (CRLF, Table 6.2) for the archive and resolver services, one line of plain text
elsewhere; people (the API's clients, a browser) read it in their language, the services'
callers as the protocol writes it.
"""
from __future__ import annotations

import math
from datetime import timedelta

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext
from django.utils.translation import gettext as _

from ..refusals import Refusal
from .pairs import render_pairs


def refusal(request: HttpRequest, status: int, message: str) -> HttpResponse:
    """A refusal before any view ran, in the caller's language: JSON ``{"detail": …}`` under
    /api/, an ``error`` pair list (CRLF, Table 6.2) for the archive and resolver services,
    one line of plain text elsewhere.

    `message` is English, marked with gettext_noop: people (the API's clients, a browser) get
    it in their language, the services' callers get it as the protocol writes it."""
    if any("servicesubject" in key for key in request.GET):
        return render_pairs([("error", message)], status=status)
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": gettext(message)}, status=status)
    return HttpResponse(f"{gettext(message)}\n", status=status,
                        content_type="text/plain; charset=utf-8")


def refused(request: HttpRequest, exc: Refusal, upload: bool = False) -> HttpResponse:
    """A service's refusal (archive/refusals.py) with its status and reason, that no view
    answered: the librarian sees why, not a bare 400 or a debug page. `upload`: refused
    while the request's files arrived."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": str(exc)}, status=exc.status)
    text = _("Upload refused: %(reason)s") % {"reason": exc} if upload else str(exc)
    return HttpResponse(text + "\n", status=exc.status, content_type="text/plain; charset=utf-8")


def too_many(wait: int, response: HttpResponse) -> HttpResponse:
    """A 429 (or any) answer telling the client when to try again."""
    response["Retry-After"] = str(wait)
    return response


def lockout_response(request: HttpRequest, original_response=None, credentials=None
                     ) -> HttpResponse:
    """django-axes' answer to a locked-out admin login: 429 with Retry-After."""
    cool_off = settings.AXES_COOLOFF_TIME or timedelta(hours=1)
    return too_many(math.ceil(cool_off.total_seconds()), HttpResponse(
        _("Too many failed logins from this address: try again later.") + "\n", status=429,
        content_type="text/plain; charset=utf-8"))
