"""The acknowledgments owed to other Archives, kept in the database until a worker sends them
(issue #30, 4 and 5; RTC-11 §8.2 step 5). The broker down or hung, and a worker killed, are
tests/test_faults.py's, on a Redis and a worker of their own; here the outbox itself."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from archive.models import OwedAcknowledgment, RegisteredArchive
from archive.resolver import outbox
from tests import factories as make

from .servers import FakeArchiveService, SilentServer

pytestmark = pytest.mark.django_db

SERVICE = "ibi.test/f/2024/01.02.03.04"


def pairs(urlkey: str) -> dict[str, str]:
    return {"servicesubject": "acknowledgment", "clientinformation.ipaddress": "192.0.2.7",
            "contenttype": "Data", "ibi": "rep ibi.test/f/2024/01.02.03.05", "state": "Original",
            "url": "http://127.0.0.1:9/col/x/doc/a.pdf",
            "url.persistent": "http://127.0.0.1:9/ibi.test/f/2024/01.02.03.05",
            "urlkey": urlkey}

@pytest.fixture(autouse=True)
def quick(settings):
    settings.IBI_RESOLVER_TIMEOUT = 1


def test_every_resolution_owes_its_acknowledgment_and_each_is_delivered_once():
    with FakeArchiveService(SERVICE) as fake:
        archive = make.include(fake.address, SERVICE)
        for _ in range(3):  # an answer remembered brings its urlkey back at each resolution
            outbox.owe(archive.pk, pairs("1700000000-1"))
        outbox.owe(archive.pk, pairs("1700000000-2"))
        assert OwedAcknowledgment.objects.count() == 4
        assert str(outbox.send_due()) == "4 delivered, 0 refused, 0 to retry, 0 dropped"
        assert str(outbox.send_due()) == "0 delivered, 0 refused, 0 to retry, 0 dropped"
    assert sorted(p["urlkey"] for p in fake.requests("acknowledgment")) == [
        "1700000000-1", "1700000000-1", "1700000000-1", "1700000000-2"]
    assert pairs("1700000000-1") in fake.requests("acknowledgment")
    assert set(OwedAcknowledgment.objects.values_list("outcome", flat=True)) == {"delivered"}


def test_an_archive_that_does_not_answer_is_asked_again_later_once_per_batch():
    with SilentServer() as silent:
        archive = make.include(silent.address, SERVICE)
        for n in range(3):
            outbox.owe(archive.pk, pairs(f"1700000000-{n}"))
        sent = outbox.send_due()
    assert str(sent) == "0 delivered, 0 refused, 3 to retry, 0 dropped"
    rows = list(OwedAcknowledgment.objects.all())
    assert {row.done_at for row in rows} == {None}
    assert all(row.due > timezone.now() for row in rows)
    assert sorted(row.attempts for row in rows) == [1, 1, 1]
    # When they are due again, and the Archive answers, they are delivered.
    with FakeArchiveService(SERVICE) as fake:
        RegisteredArchive.objects.filter(pk=archive.pk).update(address=fake.address)
        OwedAcknowledgment.objects.update(due=timezone.now())
        assert outbox.send_due().delivered == 3
    assert len(fake.requests("acknowledgment")) == 3


def test_a_refused_an_excluded_and_a_given_up_acknowledgment_are_done_with(monkeypatch):
    with FakeArchiveService(SERVICE) as fake:
        fake.answer = lambda path, query: (400, "error {no}\n")
        refusing = make.include(fake.address, SERVICE)
        excluded = make.include("127.0.0.1:9", "ibi.test/g/2024/01.02.03.04")
        excluded.included = False
        excluded.save()
        outbox.owe(refusing.pk, pairs("1700000000-1"))
        outbox.owe(excluded.pk, pairs("1700000000-2"))
        assert str(outbox.send_due()) == "0 delivered, 1 refused, 0 to retry, 1 dropped"
    with SilentServer() as silent:
        late = make.include(silent.address, "ibi.test/h/2024/01.02.03.04")
        outbox.owe(late.pk, pairs("1700000000-3"))
        OwedAcknowledgment.objects.filter(archive=late).update(
            created=timezone.now() - outbox.GIVE_UP_AFTER)
        assert outbox.send_due().dropped == 1
    outcomes = dict(OwedAcknowledgment.objects.values_list("pairs__urlkey", "outcome"))
    assert outcomes["1700000000-1"].startswith("refused: ")
    assert outcomes["1700000000-2"] == "not sent: the Archive is no longer included"
    assert outcomes["1700000000-3"].startswith("given up: ")


def test_done_rows_are_kept_while_their_urlkey_could_come_back(settings):
    with FakeArchiveService(SERVICE) as fake:
        archive = make.include(fake.address, SERVICE)
        outbox.owe(archive.pk, pairs("1700000000-1"))
        outbox.send_due()
        OwedAcknowledgment.objects.update(done_at=timezone.now() - timedelta(
            seconds=settings.IBI_URLKEY_MAX_AGE + 60))
        outbox.send_due()
        assert OwedAcknowledgment.objects.count() == 1  # within the two minutes' margin
        OwedAcknowledgment.objects.update(done_at=timezone.now() - timedelta(
            seconds=settings.IBI_URLKEY_MAX_AGE + 180))
        outbox.send_due()
    assert not OwedAcknowledgment.objects.exists()


def test_a_worker_killed_mid_send_leaves_the_row_to_the_next_after_its_lease(monkeypatch):
    with FakeArchiveService(SERVICE) as fake:
        archive = make.include(fake.address, SERVICE)
        outbox.owe(archive.pk, pairs("1700000000-1"))
        (taken,) = outbox._take(timezone.now())  # taken, then the worker died
        assert outbox.send_due().delivered == 0  # leased: nobody else sends it now
        later = timezone.now() + outbox.LEASE
        monkeypatch.setattr(timezone, "now", lambda: later)
        assert outbox.send_due().delivered == 1
    assert OwedAcknowledgment.objects.get().attempts == 2


def test_a_batch_taken_late_in_a_long_run_is_leased_from_the_moment_it_is_taken():
    """send_due reads its clock once; each batch it takes is out of reach LEASE from when it
    is taken, not from when the run began, or a second worker would take it while it is sent."""
    archive = make.include("127.0.0.1:9", SERVICE)
    for n in range(3):
        outbox.owe(archive.pk, pairs(f"1700000000-{n}"))
    OwedAcknowledgment.objects.update(due=timezone.now() - timedelta(hours=1))
    run_began = timezone.now() - timedelta(seconds=40)  # the run has lasted 40 s

    taken = outbox._take(run_began)

    assert len(taken) == 3
    assert outbox._take(timezone.now()) == []  # nobody else takes them meanwhile
    assert all(row.due > timezone.now() + timedelta(seconds=20)
               for row in OwedAcknowledgment.objects.all())
