"""The review's mails (issue 35, 7): each transition tells whoever must act next (the pool's
role holders, the submitter with the reason, the assignee), never the one who acted; each
reviewer gets a daily digest of what waits in their pools. A mail the server refuses stays
owed and the beat's task sends it later (the pattern of the requests' notices)."""
from __future__ import annotations

import io
import smtplib
import socket
from datetime import timedelta

import pytest
from django.core import mail
from django.core.management import call_command
from django.db.models import F
from django.test import Client
from django.utils import timezone

from archive.models import ReviewNotice, Submission
from archive.refusals import Forbidden, Refusal
from archive.review import notices, tasks
from archive.review import services as review
from tests import factories as make

pytestmark = pytest.mark.django_db


@pytest.fixture
def place():
    """"teses" (one review: rita and rui review, ada administers), "artigos" (three steps:
    rita reviews, edu and eva edit), "outra" (bruno reviews); alice submits; semmail reviews
    teses without an email address."""
    unit = make.community("ppg")
    teses = make.collection("teses", unit)
    artigos = make.collection("artigos", unit)
    outra = make.collection("outra", unit)
    make.reviewed(teses, submitter="Students", reviewer="Reviewers", administrator="Admins")
    make.reviewed(artigos, "three", submitter="Students", reviewer="Reviewers",
                  editor="Editors")
    make.reviewed(outra, submitter="Students", reviewer="Others")
    people = {}
    for name, groups in (("alice", ["Students"]), ("rita", ["Reviewers"]),
                         ("rui", ["Reviewers"]), ("semmail", ["Reviewers"]),
                         ("ada", ["Admins"]), ("edu", ["Editors"]), ("eva", ["Editors"]),
                         ("bruno", ["Others"])):
        user = make.person(name, *groups)
        if name != "semmail":
            user.email = f"{name}@example.org"
            user.save()
        people[name] = user
    return {"teses": teses, "artigos": artigos, "outra": outra, **people}


def sent() -> list[tuple[str, str, str]]:
    """The notices owed, mailed now: (to, subject, body) of each mail; the outbox emptied."""
    notices.mail_due()
    found = sorted((m.to[0], m.subject, m.body) for m in mail.outbox)
    mail.outbox.clear()
    return found


def to(found) -> list[str]:
    return [address for address, _subject, _body in found]


def submitted(place, collection="teses", title="Cupuaçu"):
    submission = make.submission(place["alice"], place[collection], title)
    return review.submit(user=place["alice"], submission=submission)


def test_each_transition_tells_whoever_must_act_next(place):
    submission = submitted(place)
    found = sent()
    # The pool's role holders with an address: not the submitter, not the administrator.
    assert to(found) == ["rita@example.org", "rui@example.org"]
    subject, body = found[0][1], found[0][2]
    assert subject == "Waiting for review: Cupuaçu"
    task = submission.tasks.get()
    assert f"/review/{task.pk}/" in body and "alice" in body and "Collection teses" in body

    review.task_act(user=place["rita"], task=task, action="claim")
    assert sent() == []  # who claims acts: nobody else must
    review.task_act(user=place["rita"], task=task, action="unclaim")
    assert to(sent()) == ["rui@example.org"]  # back in the pool: never the one who acted
    review.task_act(user=place["rita"], task=task, action="claim")
    review.task_act(user=place["ada"], task=task, action="reassign", assignee=place["rui"])
    found = sent()
    assert to(found) == ["rui@example.org"] and found[0][1] == "A task given to you: Cupuaçu"
    assert "ada gave you" in found[0][2]
    review.task_act(user=place["rui"], task=task, action="return",
                    reason="Falta o resumo em inglês")
    found = sent()
    assert to(found) == ["alice@example.org"]
    assert found[0][1] == "Returned to you: Cupuaçu" and "Falta o resumo em inglês" in found[0][2]

    submission = review.submit(user=place["alice"], submission=Submission.objects.get(
        pk=submission.pk))
    assert to(sent()) == ["rita@example.org", "rui@example.org"]  # resubmitted: the pool
    task = submission.tasks.get(closed__isnull=True)
    review.task_act(user=place["rita"], task=task, action="claim")
    review.task_act(user=place["rita"], task=task, action="approve")
    found = sent()
    assert to(found) == ["alice@example.org"] and found[0][1] == "Published: Cupuaçu"
    item = Submission.objects.get(pk=submission.pk).item
    assert item.ibi in found[0][2]


def test_three_steps_go_to_the_next_pool_and_a_day_of_publication_is_told(place):
    from archive.models import Workflow

    Workflow.objects.filter(collection=place["artigos"]).update(
        publish_on=timezone.localdate() + timedelta(days=30))
    submission = submitted(place, "artigos", "Açaí")
    assert to(sent()) == ["rita@example.org", "rui@example.org"]
    # Approved at the review: the editors' pool; at the edit, the editors but who approved.
    for who, pool, step in (("rita", ["edu@example.org", "eva@example.org"], "edit"),
                            ("edu", ["eva@example.org"], "final edit")):
        task = Submission.objects.get(pk=submission.pk).tasks.get(closed__isnull=True)
        review.task_act(user=place[who], task=task, action="claim")
        review.task_act(user=place[who], task=task, action="approve")
        found = sent()
        assert to(found) == pool and f"waits for the {step} step" in found[0][2]
    task = Submission.objects.get(pk=submission.pk).tasks.get(closed__isnull=True)
    review.task_act(user=place["eva"], task=task, action="claim")
    review.task_act(user=place["eva"], task=task, action="approve")
    found = sent()
    assert to(found) == ["alice@example.org"] and found[0][1] == "Approved: Açaí"
    assert "It will be published on" in found[0][2]
    # The day comes: published by the beat, the submitter told.
    review.publish_due(today=timezone.localdate() + timedelta(days=30))
    found = sent()
    assert to(found) == ["alice@example.org"] and found[0][1] == "Published: Açaí"


def test_a_withdrawal_tells_who_held_the_task(place):
    submission = submitted(place)
    sent()
    review.task_act(user=place["rui"], task=submission.tasks.get(), action="claim")
    review.withdraw(user=place["alice"], submission=Submission.objects.get(pk=submission.pk))
    found = sent()
    assert to(found) == ["rui@example.org"]
    assert found[0][1] == "Withdrawn by its submitter: Cupuaçu"


def test_a_refused_transition_owes_nothing(place):
    submission = submitted(place)
    sent()
    task = submission.tasks.get()
    with pytest.raises(Forbidden):
        review.task_act(user=place["bruno"], task=task, action="claim")
    review.task_act(user=place["rita"], task=task, action="claim")
    with pytest.raises(Refusal):
        review.task_act(user=place["rita"], task=task, action="return", reason=" ")
    assert ReviewNotice.objects.filter(sent_at=None).count() == 0


def test_a_mail_the_server_refuses_is_owed_and_the_beat_sends_it_later(place, monkeypatch,
                                                                       settings):
    def refused(*args, **kwargs):
        raise smtplib.SMTPServerDisconnected("the server went away")

    monkeypatch.setattr(notices, "send_mail", refused)
    submitted(place)
    assert notices.mail_due() == 0
    owed = ReviewNotice.objects.filter(sent_at=None)
    assert sorted(owed.values_list("email", "attempts")) == [
        ("rita@example.org", 1), ("rui@example.org", 1)]
    assert mail.outbox == []
    monkeypatch.undo()
    assert notices.mail_due() == 0 and mail.outbox == []  # not due again yet
    # The beat's task, a minute later: sent, once.
    assert settings.CELERY_BEAT_SCHEDULE["mail-review-notices"]["task"] == (
        tasks.mail_review_notices.name)
    ReviewNotice.objects.update(tried_at=F("tried_at") - timedelta(minutes=1))
    assert tasks.mail_review_notices() == 2
    assert sorted(m.to[0] for m in mail.outbox) == ["rita@example.org", "rui@example.org"]
    assert tasks.mail_review_notices() == 0 and len(mail.outbox) == 2
    assert not ReviewNotice.objects.filter(sent_at=None).exists()


def test_a_mail_server_down_leaves_the_notices_owed_and_gives_up_after_its_attempts(
        place, settings):
    """A real SMTP connection to a port nobody listens on: refused, the notices owed."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again: nobody listens there
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", port, 2
    submitted(place)
    now = timezone.now()
    assert notices.mail_due(now=now) == 0
    assert set(ReviewNotice.objects.values_list("sent_at", "attempts")) == {(None, 1)}
    # Tried again later and later: after 1, 2, 4 … minutes, six hours at most.
    waits = []
    while ReviewNotice.objects.filter(attempts__lt=notices.ATTEMPTS).exists():
        minutes = 0
        while ReviewNotice.objects.filter(attempts=len(waits) + 1).exists():
            minutes += 1
            notices.mail_due(now=now + timedelta(minutes=minutes))
        waits.append(minutes)
        now += timedelta(minutes=minutes)
    assert waits[:4] == [1, 2, 4, 8] and max(waits) == 360
    assert sum(waits) > 60 * 60  # days of a server down, not minutes
    assert set(ReviewNotice.objects.values_list("attempts", flat=True)) == {notices.ATTEMPTS}
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    assert notices.mail_due(now=now + timedelta(days=1)) == 0 and mail.outbox == []  # given up


@pytest.mark.usefixtures("eager_tasks")
def test_an_action_on_the_page_mails_at_once(place, django_capture_on_commit_callbacks):
    task = submitted(place).tasks.get()
    sent()
    rita = Client()
    rita.force_login(place["rita"])
    version = task.submission.version
    with django_capture_on_commit_callbacks(execute=True):
        rita.post(f"/review/{task.pk}/", {"action": "claim", "version": version},
                  secure=True)
        rita.post(f"/review/{task.pk}/", {"action": "return", "version": version + 1,
                                          "reason": "Sem resumo"}, secure=True)
    assert [m.to[0] for m in mail.outbox] == ["alice@example.org"]
    assert "Sem resumo" in mail.outbox[0].body


def test_the_daily_digest_tells_each_reviewer_what_waits(place, settings):
    first = submitted(place, "teses", "Cupuaçu")
    second = submitted(place, "artigos", "Açaí")
    submitted(place, "outra", "Outro assunto")
    review.task_act(user=place["rita"], task=second.tasks.get(), action="claim")
    sent()
    day = timezone.localdate()
    out = io.StringIO()
    call_command("reviewdigest", stdout=out)
    assert out.getvalue().splitlines() == ["4 digests written", "4 mails sent"]
    digests = {m.to[0]: m for m in mail.outbox}
    # rita: both of her pools; rui: teses, and artigos held by rita; ada: teses (her
    # collection's); bruno: outra. The editors have nothing waiting; semmail no address.
    assert sorted(digests) == ["ada@example.org", "bruno@example.org", "rita@example.org",
                               "rui@example.org"]
    rita = digests["rita@example.org"]
    assert rita.subject == "2 submissions wait in your review pools"
    assert rita.body.index("Cupuaçu") < rita.body.index("Açaí")  # the oldest first
    assert "Açaí — Collection artigos, review (yours)" in rita.body
    assert f"/review/{first.tasks.get().pk}/" in rita.body and "/review/\n" in rita.body
    assert "Outro assunto" not in rita.body
    assert "(held by rita)" in digests["rui@example.org"].body
    assert digests["bruno@example.org"].subject == "1 submission waits in your review pools"
    assert "Outro assunto" in digests["bruno@example.org"].body
    assert "Cupuaçu" not in digests["bruno@example.org"].body
    # Once a day, however often it runs; the beat's entry runs it every morning.
    mail.outbox.clear()
    assert tasks.review_digest() == 0 and mail.outbox == []
    assert ReviewNotice.objects.filter(digest_of=day).count() == 4
    assert settings.CELERY_BEAT_SCHEDULE["review-digest"]["task"] == tasks.review_digest.name
    out = io.StringIO()
    call_command("reviewdigest", "--today", (day + timedelta(days=1)).isoformat(), stdout=out)
    assert out.getvalue().splitlines()[0] == "4 digests written"


def test_a_long_digest_names_the_first_and_counts_the_others(place, monkeypatch):
    monkeypatch.setattr(notices, "DIGEST_LIST", 2)
    for title in ("Um", "Dois", "Três"):
        submitted(place, "outra", title)
    sent()
    notices.digest()
    body = sent()[0][2]
    assert "Um" in body and "Dois" in body and "Três" not in body and "and 1 more" in body


@pytest.mark.usefixtures("eager_tasks")
def test_an_action_through_the_api_mails_at_once(place, django_capture_on_commit_callbacks):
    task = submitted(place).tasks.get()
    sent()
    api = make.token_client(place["rita"])
    with django_capture_on_commit_callbacks(execute=True):
        assert api.post(f"/api/tasks/{task.pk}/claim", {}, format="json",
                        secure=True).status_code == 200
        assert api.post(f"/api/tasks/{task.pk}/return", {"reason": "Sem resumo"},
                        format="json", secure=True).status_code == 200
    assert [m.to[0] for m in mail.outbox] == ["alice@example.org"]
