"""HTML pages and downloads. Thin: they read through selectors and render templates."""
from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from .models import Item


def home(request: HttpRequest) -> HttpResponse:
    items = Item.objects.filter(is_archive_service=False).exclude(state=Item.State.DELETED)
    return render(request, "archive/home.html", {
        "recent": items.order_by("-created")[:10],
        "count": items.count(),
    })
