"""A real Celery worker: tasks leave the request through the broker and run elsewhere.

With CELERY_BROKER_URL set (Redis in CI's second pass) the worker talks to that broker;
without one (the embedded default, where tasks run in process) the same test drives a worker
over kombu's in-memory transport, so the broker path is exercised in every run.
"""
from __future__ import annotations

import io
import os
import time
import uuid

import pytest
from celery.contrib.testing.worker import start_worker
from django.db import transaction

from archive import services, tasks
from archive.models import ItemFile
from ibirepo.celery import app


@pytest.fixture
def worker_queue(settings):
    queue = f"test-{uuid.uuid4().hex}"  # never consume what another run left in the broker
    keys = ("broker_url", "task_always_eager", "result_backend")
    previous = {key: app.conf[key] for key in keys}
    app.conf.update(broker_url=os.environ.get("CELERY_BROKER_URL") or "memory://",
                    task_always_eager=False, result_backend=None)
    try:
        with start_worker(app, pool="solo", perform_ping_check=False, queues=[queue],
                          shutdown_timeout=30):
            yield queue
    finally:
        app.conf.update(previous)


def wait_for(condition, timeout: float = 60) -> None:
    """Poll the database until the worker's effect shows, within a bound."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the worker did not run the task in time"
        time.sleep(0.05)


@pytest.mark.django_db(transaction=True)
def test_a_task_enqueued_after_commit_runs_in_the_worker(worker_queue):
    item = services.item_deposit(title="Checked by the worker", uploads=[
        services.Upload(name="a.txt", file=io.BytesIO(b"fixity"))])
    with transaction.atomic():
        transaction.on_commit(lambda: tasks.check_fixity.apply_async(queue=worker_queue))
        assert not ItemFile.objects.filter(item=item, checked_at__isnull=False).exists()
    wait_for(lambda: ItemFile.objects.filter(item=item, checked_at__isnull=False).exists())
    assert ItemFile.objects.get(item=item).fixity_problem == ""
