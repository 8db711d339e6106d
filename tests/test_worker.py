"""A real Celery worker: tasks leave the request through the broker and run elsewhere.

With CELERY_BROKER_URL set (Redis in CI's second pass) the worker talks to that broker;
without one (the embedded default, where tasks run in process) the same test drives a worker
over kombu's in-memory transport, so the broker path is exercised in every run.
"""
from __future__ import annotations

import os
import uuid

import pytest
from celery import Celery
from celery.contrib.testing.worker import start_worker
from django.db import transaction

from archive.models import ItemFile
from tests import factories as make


@pytest.fixture
def worker_app():
    """A Celery app of its own, configured like the project's but never eager: the project's
    app may hold a connection pool from an earlier test's configuration."""
    test_app = Celery("ibirepo-worker-test")
    test_app.config_from_object("django.conf:settings", namespace="CELERY")
    test_app.conf.update(broker_url=os.environ.get("CELERY_BROKER_URL") or "memory://",
                         task_always_eager=False, result_backend=None,
                         task_default_queue=f"test-{uuid.uuid4().hex}")  # not a stale queue
    test_app.finalize()  # binds the project's shared tasks to this app
    with start_worker(test_app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
        yield test_app
    test_app.close()


@pytest.mark.django_db(transaction=True)
def test_a_task_enqueued_after_commit_runs_in_the_worker(worker_app):
    item = make.item(("a.txt", b"fixity"), title="Checked by the worker")
    with transaction.atomic():
        check_fixity = worker_app.tasks["archive.tasks.check_fixity"]
        transaction.on_commit(check_fixity.delay)
        assert not ItemFile.objects.filter(item=item, checked_at__isnull=False).exists()
    make.wait_until(
        lambda: ItemFile.objects.filter(item=item, checked_at__isnull=False).exists(),
        timeout=60, what="the worker running the task")
    assert ItemFile.objects.get(item=item).fixity_problem == ""
