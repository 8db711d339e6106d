"""What every page's <head> says of itself (settings.TEMPLATES' context processors)."""
from __future__ import annotations

from django.http import HttpRequest

from ..web.addresses import base_url


def page(request: HttpRequest) -> dict[str, str]:
    """`canonical_url`: the page's own absolute URL without its query (a landing page's
    citation style, a language switch never make another page); templates may name another."""
    return {"canonical_url": base_url(request) + request.path}
