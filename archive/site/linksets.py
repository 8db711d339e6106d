"""An item's FAIR Signposting linkset (RFC 9264), level 2 of https://signposting.org/FAIR/.

- /items/<ibi>/linkset: application/linkset, or application/linkset+json when the Accept
  header prefers it;
- /items/<ibi>/linkset.json: application/linkset+json, whatever Accept says.

Both are announced (rel="linkset") by the Link header of the landing page and of the
persistent URL. A tombstone's linkset is served too (its cite-as, describedby and type),
with 410 as the tombstone itself; other spellings of the IBI redirect to the canonical URL.
"""
from __future__ import annotations

import json

from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_safe

from ..metadata import selectors as metadata
from ..metadata import signposting
from ..web.addresses import base_url
from .views import _item

JSON = signposting.LINKSET_JSON
TEXT = signposting.LINKSET_TEXT


def _answer(request: HttpRequest, ibi: str, view: str, media_type: str | None) -> HttpResponse:
    item = _item(request, ibi, view)
    if isinstance(item, HttpResponse):
        return item
    if media_type is None:
        # Text unless JSON is preferred: both are offered, text first for a bare */*.
        media_type = request.get_preferred_type([TEXT, JSON]) or TEXT
    contexts = metadata.signposts_of(item, base_url(request)).linkset()
    if media_type == JSON:
        body = json.dumps(signposting.to_linkset_json(contexts), ensure_ascii=False, indent=1)
    else:
        body = signposting.to_linkset_text(contexts)
    response = HttpResponse(body, content_type=f"{media_type}; charset=utf-8",
                            status=410 if item.is_deleted else 200)
    response["Vary"] = "Accept"
    response["Access-Control-Allow-Origin"] = "*"  # machine-readable, public: any client
    return response


@require_safe
def linkset(request: HttpRequest, ibi: str) -> HttpResponse:
    return _answer(request, ibi, "archive:item_linkset", None)


@require_safe
def linkset_json(request: HttpRequest, ibi: str) -> HttpResponse:
    return _answer(request, ibi, "archive:item_linkset_json", JSON)
