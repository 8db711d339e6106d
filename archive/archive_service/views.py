"""The archive service at ``/<archive service IBI>?servicesubject=…`` (RTC-11 §6.1, §9).

Thin: archive_service/answers.py reads the query and builds the answer; this module turns it
into an HTTP answer. Routed here by archive/urls.py's `dispatch`, the site's catch-all.
"""
from __future__ import annotations

from django.http import HttpRequest, HttpResponse

from ..web.addresses import base_url
from ..web.pairs import render_pair_text, render_pairs
from ..web.throttling import client_ip
from . import answers as service
from . import requests


def archive_service(request: HttpRequest, path: str) -> HttpResponse:
    """The archive service at /<path>: GET only (§6.1); bad requests get 400 and
    ``error {…}``. NotTheService when path is not its IBI."""
    if request.method != "GET":
        service.check_path(path)
        response = render_pairs(requests.error_pairs(
            f"method {request.method} not allowed: the archive service answers GET"), 405)
        response["Allow"] = "GET"
        return response
    try:
        text = service.answer_text(
            request.META.get("QUERY_STRING", ""), base_url(request), path=path,
            sender=service.Sender(client_ip(request), request.META.get("HTTP_USER_AGENT", "")))
    except requests.ProtocolError as exc:
        return render_pairs(requests.error_pairs(str(exc)), 400)
    return render_pair_text(text)
