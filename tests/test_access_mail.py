"""The answer to a request for a copy through a real SMTP server (issue 26): aiosmtpd in a
process of its own on loopback, storing what it receives in a Maildir; the repository speaks
to it through Django's SMTP backend, configured from EMAIL_URL."""
from __future__ import annotations

import mailbox
import socket
import subprocess
import sys
from datetime import timedelta
from email.header import decode_header, make_header
from urllib.parse import parse_qs, urlsplit

import pytest
from django.utils import timezone

from archive.access import selectors, tasks
from archive.access import services as access
from archive.deposit import services
from ibirepo.env import env_email
from tests import factories as make
from tests.servers import free_port

pytestmark = pytest.mark.django_db


@pytest.fixture
def smtp_server(tmp_path):
    """aiosmtpd's own command, its Mailbox handler writing to a Maildir: (port, Maildir)."""
    port, folder = free_port(), tmp_path / "maildir"
    process = subprocess.Popen(
        [sys.executable, "-m", "aiosmtpd", "-n", "-l", f"127.0.0.1:{port}",
         "-c", "aiosmtpd.handlers.Mailbox", str(folder)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def listening() -> bool:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
        except OSError:
            assert process.poll() is None, process.stderr.read()
            return False
        return True
    make.wait_until(listening, what="the SMTP server listening")
    yield port, folder
    process.terminate()
    process.wait(timeout=10)


@pytest.mark.usefixtures("eager_tasks")  # mails sent by the task, in process
def test_an_approval_goes_through_a_real_smtp_server(smtp_server, settings, monkeypatch,
                                                      django_capture_on_commit_callbacks):
    port, folder = smtp_server
    monkeypatch.setenv("EMAIL_URL", f"smtp://127.0.0.1:{port}")
    for name, value in env_email("EMAIL_URL", "console://").items():
        setattr(settings, name, value)
    assert settings.EMAIL_BACKEND == "django.core.mail.backends.smtp.EmailBackend"
    item = make.item(("tese.pdf", b"%PDF tese"), title="Tese de doutorado",
                     access=services.Access("embargoed",
                                            timezone.localdate() + timedelta(days=60)))
    request = access.request_access(item=item, name="Ana Silva", email="ana@example.org",
                                    reason="pesquisa", language="pt-br")
    with django_capture_on_commit_callbacks(execute=True):
        request, url = access.approve(request=request, message="Bom trabalho",
                                      base="http://repo.example")
        tasks.mail_after_commit(request.pk, url)
    make.wait_until(lambda: len(mailbox.Maildir(folder, create=False)) == 1,
                    what="the mail delivered")
    (message,) = mailbox.Maildir(folder, create=False)
    assert message["To"] == "ana@example.org"
    assert str(make_header(decode_header(message["Subject"]))) == (
        "Seu pedido de Tese de doutorado")
    body = message.get_payload(decode=True).decode(message.get_content_charset())
    assert "Bom trabalho" in body and "Prezado(a) Ana Silva" in body
    link = next(word for word in body.split() if word.startswith("http://repo.example/"))
    assert urlsplit(link).path == f"/items/{item.ibi}"
    token = parse_qs(urlsplit(link).query)["token"][0]
    assert selectors.link_for(token, item.pk) == (request.link, None)
    request.refresh_from_db()
    assert request.mailed_at is not None
