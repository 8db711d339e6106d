"""The Celery app. Without CELERY_BROKER_URL tasks run eagerly in-process (see settings)."""
from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ibirepo.settings")

app = Celery("ibirepo")
app.config_from_object("django.conf:settings", namespace="CELERY")
# The archive app keeps its tasks with the packages they serve (docs/architecture.md).
app.autodiscover_tasks(["archive.preservation", "archive.resolver", "archive.access",
                        "archive.accounts", "archive.deposit", "archive.review",
                        "archive.fulltext", "archive.usage"])
