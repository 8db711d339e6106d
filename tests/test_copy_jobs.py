"""Copy jobs (issue #30, 6 and 12): a copy asked for is a row in the database, claimed by one
worker at a time, taken over once its worker's heartbeat is older than IBI_COPY_LEASE, tried
again with backoff, and reported from the row. A worker killed with kill -9 mid-copy is
tests/test_faults.py's, on a broker and a worker of its own."""
from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from archive.models import CopyJob, Item
from archive.preservation import jobs, tasks
from tests import factories as make
from tests.fake_archive import FakeArchive

pytestmark = pytest.mark.django_db


@pytest.fixture
def source(settings):
    archive = FakeArchive()
    settings.IBI_PEER_ARCHIVES = (archive.base_url,)
    yield archive
    archive.close()


def test_a_copy_asked_for_twice_is_one_job_and_one_worker_runs_it(source):
    record = make.held_elsewhere(source)
    first = jobs.request(ibi=record["ibip"].lower(), source=source.base_url)
    again = jobs.request(ibi=record["ibip"], source=source.base_url)
    assert first.pk == again.pk and first.state == "queued"
    assert jobs.claim(first.pk).state == "running"
    assert jobs.claim(first.pk) is None  # running, its heartbeat fresh: not another worker's


def test_a_job_whose_worker_is_gone_is_at_work_again_after_its_lease(source, settings):
    record = make.held_elsewhere(source)
    job = jobs.request(ibi=record["ibi"], source=source.base_url)
    assert jobs.at_work() == []  # just asked for: its nudge starts it
    jobs.claim(job.pk)
    CopyJob.objects.filter(pk=job.pk).update(
        heartbeat=timezone.now() - timedelta(seconds=settings.IBI_COPY_LEASE + 1))
    assert jobs.at_work() == [job.pk]
    taken = jobs.claim(job.pk)
    assert (taken.state, taken.attempts) == ("running", 2)


def test_running_a_job_copies_sweeps_what_a_killed_run_left_and_says_done(source, settings):
    record = make.held_elsewhere(source, ("a.bin", b"A" * 1000))
    job = jobs.request(ibi=record["ibi"], source=source.base_url)
    left = Path(settings.FILE_UPLOAD_TEMP_DIR) / f"{jobs.temporary_prefix(job)}x.download"
    left.write_bytes(b"half")
    other = Path(settings.FILE_UPLOAD_TEMP_DIR) / "copy-999999-y.download"
    other.write_bytes(b"another job's")
    assert tasks.run_copy_job(job.pk) == "created"
    job.refresh_from_db()
    assert (job.state, job.outcome, job.done_bytes, job.total_bytes) == (
        "done", "created", 1000, 1000)
    assert not left.exists() and other.exists()
    assert Item.objects.get(ibi=record["ibi"]).state == "Copy"
    assert tasks.run_copy_job(job.pk) == "not due, done, or at work in another worker"


def test_a_failing_source_is_tried_again_later_and_a_refusal_ends_the_job(source):
    record = make.held_elsewhere(source)
    source.records.clear()  # the source answers 404
    job = jobs.request(ibi=record["ibi"], source=source.base_url)
    assert tasks.run_copy_job(job.pk).startswith("failed: ")
    job.refresh_from_db()
    assert job.state == "queued" and job.due >= timezone.now() + jobs.FIRST_RETRY \
        - timedelta(seconds=5)
    mine = make.item(title="Mine")
    refused = jobs.request(ibi=mine.ibi, source=source.base_url)
    assert tasks.run_copy_job(refused.pk).startswith("refused: ")
    refused.refresh_from_db()
    assert refused.state == "failed" and refused.finished is not None


def test_the_admin_reports_the_job_from_its_row(source, librarian_client, eager_tasks):
    record = make.held_elsewhere(source)
    response = librarian_client.post("/admin/archive/item/copy/", {
        "ibi": record["ibip"], "source": source.base_url}, secure=True, follow=True)
    assert f"Copy of {record['ibip']}: created" in response.content.decode()
    jobs_page = librarian_client.get("/admin/archive/copyjob/", secure=True)
    assert jobs_page.status_code == 200 and record["ibip"] in jobs_page.content.decode()
