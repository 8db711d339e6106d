from __future__ import annotations

from django.urls import path

from . import views

app_name = "archive"

urlpatterns = [
    path("", views.home, name="home"),
]
