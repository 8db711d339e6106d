from __future__ import annotations

from django.urls import path

from . import downloads, views

app_name = "archive"

urlpatterns = [
    path("", views.home, name="home"),
    path("col/<path:rest>", downloads.download, name="download"),
]
