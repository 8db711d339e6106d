"""Request hygiene for every route, before any view or query runs."""
from __future__ import annotations

from django.http import HttpRequest, HttpResponse

from archive.protocol.responses import refusal

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
        if _has_nul(request.GET):
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


def _has_nul(params) -> bool:
    return any(NUL in key or any(NUL in value for value in values)
               for key, values in params.lists())
