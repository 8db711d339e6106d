"""Requests for a copy reach someone (issue 43, 1): the collection's request handlers (else the
repository's) are mailed each new request, a burst of them as one digest; the admin counts the
requests waiting and shows a badge in its menu; a request's status is labelled as such in
pt-BR; every URL in the mails names the site's address, never the development port."""
from __future__ import annotations

import re
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from django.contrib.auth.models import User
from django.urls import resolve, reverse
from django.utils import timezone

from archive.access import notices, tasks
from archive.access import services as access
from archive.deposit import services
from archive.models import AccessRequest, RequestNotice
from archive.refusals import Refusal
from tests import factories as make

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_tasks")]

PDF = b"%PDF-1.4 a thesis under embargo\n"
URL = re.compile(r"https?://\S+")


@pytest.fixture(autouse=True)
def site(settings):
    """The site at biblioteca.example.org; no address configured; digests every 15 min."""
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "biblioteca.example.org"]
    settings.ARCHIVE_ADDRESS = None
    settings.IBI_REQUEST_HANDLERS = []
    settings.IBI_REQUEST_DIGEST_MINUTES = 15


@pytest.fixture
def handled():
    """An embargoed thesis in a collection with two request handlers."""
    theses = make.collection("teses", make.community("pos"),
                             request_handlers="ana@bib.example.org,\nbia@bib.example.org")
    return make.item(("tese.pdf", PDF, "application/pdf"), title="Tese sobre chuvas",
                     collection=theses, access=services.Access(
                         "embargoed", timezone.localdate() + timedelta(days=90)))


def ask(reader, item, name: str, capture) -> AccessRequest:
    """A reader's request through the landing page's form, at biblioteca.example.org."""
    with capture(execute=True):
        sent = reader.post(reverse("archive:item_request", args=[item.ibi]),
                           {"name": name, "email": f"{name.lower()}@example.org",
                            "reason": "pesquisa"}, secure=True,
                           HTTP_HOST="biblioteca.example.org")
    assert sent.status_code == 302, sent.content.decode()
    return AccessRequest.objects.get(name=name)


def urls(mail) -> list[str]:
    return URL.findall(mail.body)


def test_each_handler_is_mailed_at_once_then_a_digest_at_the_windows_end(
        handled, reader, mailoutbox, django_capture_on_commit_callbacks):
    first = ask(reader, handled, "Carla", django_capture_on_commit_callbacks)
    assert sorted(m.to[0] for m in mailoutbox) == ["ana@bib.example.org", "bia@bib.example.org"]
    mail = mailoutbox[0]
    assert mail.subject == "A request for a copy of Tese sobre chuvas"
    found = urls(mail)
    admin_url = f"https://biblioteca.example.org/admin/archive/accessrequest/{first.pk}/change/"
    assert admin_url in found
    assert f"https://biblioteca.example.org/{handled.ibi}" in found  # its persistent URL
    assert all(u.startswith("https://biblioteca.example.org/") for u in found), found
    assert ":8000" not in mail.body
    assert resolve(urlsplit(admin_url).path).url_name == "archive_accessrequest_change"

    # Two more within the window: no mail now; the digest goes once the window is over.
    second = ask(reader, handled, "Davi", django_capture_on_commit_callbacks)
    third = ask(reader, handled, "Eva", django_capture_on_commit_callbacks)
    assert len(mailoutbox) == 2
    assert tasks.mail_request_notices() == 0  # the beat, still within the window
    access.refuse(request=third)  # answered meanwhile: left out of the digest
    later = timezone.now() + timedelta(minutes=16)
    assert notices.mail_due(now=later) == 2  # one request named for each of two addresses
    digests = mailoutbox[2:]
    assert sorted(m.to[0] for m in digests) == ["ana@bib.example.org", "bia@bib.example.org"]
    body = digests[0].body
    assert f"/admin/archive/accessrequest/{second.pk}/change/" in body
    assert f"/accessrequest/{third.pk}/" not in body
    assert notices.mail_due(now=later) == 0  # nothing owed twice
    assert not RequestNotice.objects.filter(sent_at=None).exists()

    # Two waiting at the window's end: one digest each, naming both.
    fourth = ask(reader, handled, "Fabio", django_capture_on_commit_callbacks)
    fifth = ask(reader, handled, "Gil", django_capture_on_commit_callbacks)
    assert len(mailoutbox) == 4
    assert notices.mail_due(now=later + timedelta(minutes=16)) == 4
    (digest, _other) = mailoutbox[4:]
    assert digest.subject == "2 requests for a copy"
    assert all(f"/accessrequest/{r.pk}/change/" in digest.body for r in (fourth, fifth))
    assert "/admin/archive/accessrequest/?status__exact=pending" in digest.body


@pytest.mark.parametrize(("configured", "base"), [
    (None, "https://biblioteca.example.org/"),  # where the reader and the librarian came
    ("repositorio.example.org", "http://repositorio.example.org/"),
])
def test_the_sites_address_names_every_url_of_the_handlers_and_the_readers_mails(
        configured, base, handled, settings, reader, librarian_client, mailoutbox,
        django_capture_on_commit_callbacks):
    settings.ARCHIVE_ADDRESS = configured
    request = ask(reader, handled, "Carla", django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        librarian_client.post(f"/admin/archive/accessrequest/{request.pk}/change/",
                              {"decision": "approve"}, secure=True,
                              HTTP_HOST="biblioteca.example.org")
    assert [m.to for m in mailoutbox] == [["ana@bib.example.org"], ["bia@bib.example.org"],
                                          ["carla@example.org"]]
    for mail in mailoutbox:
        found = urls(mail)
        assert found and all(u.startswith(base) for u in found), mail.body
    assert f"{base}{handled.ibi}" in urls(mailoutbox[2])  # the persistent URL


def test_without_collection_handlers_the_repositorys_are_told(
        settings, reader, librarian, mailoutbox, django_capture_on_commit_callbacks):
    item = make.item(("r.pdf", PDF), access=services.Access("restricted"))
    settings.IBI_REQUEST_HANDLERS = ["chefe@bib.example.org"]
    ask(reader, item, "Ana", django_capture_on_commit_callbacks)
    assert [m.to for m in mailoutbox] == [["chefe@bib.example.org"]]

    # Unset: the staff who may answer requests, with an address.
    settings.IBI_REQUEST_HANDLERS = []
    librarian.email = "librarian@bib.example.org"
    librarian.save()
    User.objects.create_user("clerk", email="clerk@bib.example.org", is_staff=True)
    User.objects.create_superuser("root", email="root@bib.example.org", password="x")
    User.objects.create_user("gone", email="gone@bib.example.org", is_staff=True,
                             is_active=False).groups.add(services.ensure_librarians_group())
    ask(reader, item, "Bia", django_capture_on_commit_callbacks)
    assert sorted(m.to[0] for m in mailoutbox[1:]) == ["librarian@bib.example.org",
                                                       "root@bib.example.org"]


def test_a_mail_server_failure_keeps_the_notice_owed(
        handled, reader, mailoutbox, monkeypatch, django_capture_on_commit_callbacks):
    def down(*args, **kwargs):
        raise ConnectionRefusedError("no mail server")

    monkeypatch.setattr(notices, "send_mail", down)
    ask(reader, handled, "Carla", django_capture_on_commit_callbacks)
    assert not mailoutbox
    assert set(RequestNotice.objects.values_list("sent_at", "attempts")) == {(None, 1)}
    monkeypatch.undo()
    assert notices.mail_due() == 2 and len(mailoutbox) == 2


def test_a_bad_handler_address_is_refused_naming_the_field():
    with pytest.raises(Refusal, match="request_handlers: ana@ is not an email address"):
        make.collection("x", make.community("y"), request_handlers="bia@example.org ana@")


def test_the_admin_counts_the_waiting_requests_in_portuguese(
        handled, reader, librarian_client, django_capture_on_commit_callbacks):
    index = librarian_client.get("/admin/", secure=True, HTTP_ACCEPT_LANGUAGE="pt-BR")
    assert "ibi-badge" not in index.content.decode()
    for name in ("Carla", "Davi"):
        ask(reader, handled, name, django_capture_on_commit_callbacks)
    page = librarian_client.get("/admin/", secure=True,
                                HTTP_ACCEPT_LANGUAGE="pt-BR").content.decode()
    assert "2 pedidos de cópia aguardam resposta" in page
    assert 'href="/admin/archive/accessrequest/?status__exact=pending"' in page
    badge = re.search(r'<span class="ibi-badge">(\d+)<span class="visually-hidden"> (.*?)'
                      r'</span></span>', page)
    assert badge and badge.groups() == ("2", "aguardando resposta")
    # The menu on every admin page carries the badge; the list labels the status as such.
    listing = librarian_client.get("/admin/archive/accessrequest/", secure=True,
                                   HTTP_ACCEPT_LANGUAGE="pt-BR").content.decode()
    assert 'class="ibi-badge">2<' in listing
    assert "Situação" in listing and "status HTTP" not in listing
    english = librarian_client.get("/admin/", secure=True,
                                   HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "2 requests for a copy wait for an answer" in english


def test_the_beat_mails_the_notices_owed(settings):
    assert settings.CELERY_BEAT_SCHEDULE["mail-request-notices"]["task"] == (
        tasks.mail_request_notices.name)
