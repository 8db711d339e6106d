"""The answer to a request for a copy through a real SMTP server (issue 26): aiosmtpd in a
process of its own on loopback, storing what it receives in a Maildir; the repository speaks
to it through Django's SMTP backend, configured from EMAIL_URL."""
from __future__ import annotations

from datetime import timedelta
from email.header import decode_header, make_header
from urllib.parse import parse_qs, urlsplit

import pytest
from django.utils import timezone

from archive.access import selectors, tasks
from archive.access import services as access
from archive.deposit import services
from archive.models import AccessRequest
from ibirepo.env import env_email
from tests import factories as make
from tests.servers import SmtpServer, free_port

pytestmark = pytest.mark.django_db


@pytest.fixture
def smtp_server(tmp_path):
    """aiosmtpd in a process of its own (tests/servers.py `SmtpServer`)."""
    with SmtpServer(tmp_path / "maildir") as server:
        yield server


@pytest.fixture
def mail_through(settings, monkeypatch):
    """Configure Django's mail from an EMAIL_URL, as the site does at start."""
    def configure(url: str) -> None:
        monkeypatch.setenv("EMAIL_URL", url)
        for name, value in env_email("EMAIL_URL", "console://").items():
            setattr(settings, name, value)
    return configure


@pytest.mark.usefixtures("eager_tasks")  # mails sent by the task, in process
def test_an_approval_goes_through_a_real_smtp_server(smtp_server, settings, mail_through,
                                                      django_capture_on_commit_callbacks):
    mail_through(smtp_server.url)
    assert settings.EMAIL_BACKEND == "django.core.mail.backends.smtp.EmailBackend"
    item = make.item(("tese.pdf", b"%PDF tese"), title="Tese de doutorado",
                     access=services.Access("embargoed",
                                            timezone.localdate() + timedelta(days=60)))
    request = access.request_access(item=item, name="Ana Silva", email="ana@example.org",
                                    reason="pesquisa", language="pt-br")
    with django_capture_on_commit_callbacks(execute=True):
        request = access.approve(request=request, message="Bom trabalho",
                                 base="http://repo.example")
        tasks.mail_access_answers.delay()
    (message,) = make.wait_until(smtp_server.messages, what="the mail delivered")
    assert message["To"] == "ana@example.org"
    assert str(make_header(decode_header(message["Subject"]))) == (
        "Seu pedido de Tese de doutorado")
    body = message.get_payload(decode=True).decode(message.get_content_charset())
    assert "Bom trabalho" in body and "Prezado(a) Ana Silva" in body
    # Every URL names the address the librarian answered at: the persistent URL too.
    assert f"http://repo.example/{item.ibi}" in body.split()
    link = next(word for word in body.split() if word.startswith("http://repo.example/")
                and "?token=" in word)
    assert urlsplit(link).path == f"/items/{item.ibi}"
    token = parse_qs(urlsplit(link).query)["token"][0]
    assert selectors.link_for(token, item.pk) == (request.link, None)
    request.refresh_from_db()
    assert request.mailed_at is not None


@pytest.mark.usefixtures("eager_tasks")
def test_an_answer_the_mail_server_cannot_take_stays_owed_and_goes_once_it_can(
        smtp_server, mail_through, monkeypatch, django_capture_on_commit_callbacks):
    """The answer is kept in the database (#30, 4): the mail server down, it waits with a
    backoff; back, the worker's next run mails it, with a link that opens the files; a mail
    that never goes is given up after MAIL_ATTEMPTS tries, the answer shown as not mailed."""
    mail_through(f"smtp://127.0.0.1:{free_port()}")  # nobody listens there
    item = make.item(("tese.pdf", b"%PDF tese"), title="Tese",
                     access=services.Access("embargoed",
                                            timezone.localdate() + timedelta(days=60)))
    asked = [access.request_access(item=item, name=name, email=f"{name}@example.org",
                                   reason="pesquisa") for name in ("ana", "bia")]
    with django_capture_on_commit_callbacks(execute=True):
        approved = access.approve(request=asked[0], base="http://repo.example")
        refused = access.refuse(request=asked[1], message="Não")
        tasks.mail_access_answers.delay()
    for request in (approved, refused):
        request.refresh_from_db()
        assert (request.mailed_at, request.mail_attempts) == (None, 1)
        assert request.mail_due > timezone.now()  # tried again later
    assert approved.link.token_hash  # made for the mail that did not go

    mail_through(smtp_server.url)  # the mail server is back
    later = timezone.now() + timedelta(minutes=2)
    assert str(access.mail_owed(now=later)) == "2 mailed, 0 to retry, 0 given up"
    messages = make.wait_until(lambda: len(smtp_server.messages()) == 2 and
                               smtp_server.messages(), what="both mails delivered")
    bodies = {m["To"]: m.get_payload(decode=True).decode(m.get_content_charset())
              for m in messages}
    link = next(w for w in bodies["ana@example.org"].split() if "?token=" in w)
    token = parse_qs(urlsplit(link).query)["token"][0]
    approved.refresh_from_db()
    assert selectors.link_for(token, item.pk) == (approved.link, None)
    assert approved.mailed_at is not None and approved.mail_due is None
    assert str(access.mail_owed(now=later)) == "0 mailed, 0 to retry, 0 given up"

    mail_through(f"smtp://127.0.0.1:{free_port()}")
    monkeypatch.setattr(access, "MAIL_ATTEMPTS", 2)
    third = access.refuse(request=access.request_access(
        item=item, name="cid", email="cid@example.org", reason="r"))
    assert str(access.mail_owed()) == "0 mailed, 1 to retry, 0 given up"
    assert str(access.mail_owed(now=later)) == "0 mailed, 0 to retry, 1 given up"
    third.refresh_from_db()
    assert (third.mailed_at, third.mail_due, third.mail_attempts) == (None, None, 2)


@pytest.mark.usefixtures("eager_tasks")
def test_a_link_revoked_before_its_mail_went_is_never_brought_back(
        smtp_server, mail_through, django_capture_on_commit_callbacks):
    mail_through(f"smtp://127.0.0.1:{free_port()}")  # the first try fails
    item = make.item(("tese.pdf", b"%PDF tese"), title="Tese",
                     access=services.Access("embargoed",
                                            timezone.localdate() + timedelta(days=60)))
    request = access.request_access(item=item, name="ana", email="ana@example.org", reason="r")
    with django_capture_on_commit_callbacks(execute=True):
        request = access.approve(request=request)
        tasks.mail_access_answers.delay()
    request.refresh_from_db()
    access.revoke_link(link=request.link)  # the librarian changed their mind
    mail_through(smtp_server.url)

    done = access.mail_owed(now=timezone.now() + timedelta(minutes=2))

    request.refresh_from_db()
    assert str(done) == "0 mailed, 0 to retry, 1 given up"
    assert request.link.revoked_at is not None and request.mailed_at is None
    assert smtp_server.messages() == []


def test_answers_decided_before_mails_were_owed_are_owed_from_their_decision():
    """Migration 0024's backfill: an answer decided, not mailed, from before mail_due."""
    import importlib

    from django.db import connection, migrations

    migration = importlib.import_module("archive.migrations.0024_access_answer_mail_owed")
    (backfill,) = [op for op in migration.Migration.operations
                   if isinstance(op, migrations.RunSQL)]
    item = make.item(("tese.pdf", b"%PDF tese"), title="Tese",
                     access=services.Access("restricted"))
    decided = access.refuse(request=access.request_access(
        item=item, name="ana", email="ana@example.org", reason="r"))
    waiting = access.request_access(item=item, name="bia", email="bia@example.org", reason="r")
    AccessRequest.objects.update(mail_due=None)  # as every row was before the migration

    with connection.cursor() as cursor:
        cursor.execute(backfill.sql)

    decided.refresh_from_db()
    waiting.refresh_from_db()
    assert decided.mail_due == decided.decided_at and waiting.mail_due is None
