"""Signing in with ORCID (issue 36, 2) against a stand-in shaped like ORCID's OAuth 2 server on
loopback over TLS (tests/servers.py FakeOrcid, certificates from trustme): the state checked,
a code traded once and only by this client, the iD linked; an iD obtained by sign-in shows
authenticated on landing pages and in the API, one typed or imported as not confirmed by its
holder; "connect your ORCID iD" mailed by a librarian to a creator without an account, used
only by a sign-in with the iD it was sent for.
"""
from __future__ import annotations

import ssl
from types import SimpleNamespace
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client

from archive.accounts import invitations
from archive.models import Identity, OrcidInvitation
from tests import factories as make
from tests.servers import FakeOrcid, free_port

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_tasks")]

ORCID = "0000-0002-1825-0097"  # ORCID's own example: Josiah Carberry
OTHER = "0000-0001-5109-3700"  # another valid iD
MARK = "orcid authenticated"
UNCONFIRMED = "not confirmed by its holder"


@pytest.fixture(scope="module")
def stand_in(tmp_path_factory):
    with FakeOrcid(tmp_path_factory.mktemp("orcid")) as server:
        yield server


@pytest.fixture
def orcid(stand_in, settings):
    settings.IBI_ORCID_BASE_URL = stand_in.url
    settings.IBI_ORCID_CLIENT_ID = stand_in.client_id
    settings.IBI_ORCID_CLIENT_SECRET = stand_in.client_secret
    settings.IBI_ORCID_CA_FILE = stand_in.ca_file
    stand_in.signs_in_as = (ORCID, "Josiah Carberry")
    stand_in.emails = {ORCID: [{"email": "josiah@example.org", "verified": True,
                                "primary": True}]}
    stand_in.token_extra = {}
    stand_in.record_status = 200
    return stand_in


@pytest.fixture
def web(django_capture_on_commit_callbacks):
    client = Client()

    def get(url: str, **extra):
        with django_capture_on_commit_callbacks(execute=True):
            return client.get(url, secure=True, **extra)

    def post(url: str, data: dict):
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(url, data, secure=True)

    return SimpleNamespace(get=get, post=post, client=client)


def to_orcid(web, start: str = "/accounts/orcid/login/") -> str:
    """The path and query ORCID sends the browser back to, once it agreed."""
    answer = web.get(start)
    assert answer.status_code == 302, answer.content
    agreed = httpx.get(answer["Location"], verify=trusted(settings.IBI_ORCID_CA_FILE),
                       follow_redirects=False)
    assert agreed.status_code == 302
    back = urlsplit(agreed.headers["Location"])
    return f"{back.path}?{back.query}"


def trusted(ca_file: str) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=ca_file)


def creator_item(orcid: str = ORCID, name: str = "Carberry, Josiah", **fields):
    item = make.item(bare=True, **fields)
    make.dc_value(item, "creator", name, authority=orcid, confidence=600)
    return item


def test_without_its_settings_orcid_sign_in_is_not_offered(web, settings):
    settings.IBI_ORCID_CLIENT_SECRET = ""
    assert "Sign in with ORCID" not in web.get("/accounts/login/").content.decode()
    assert web.get("/accounts/orcid/login/").status_code == 404
    assert web.get("/accounts/orcid/callback/?code=x&state=y").status_code == 404


def test_a_person_signs_in_with_orcid_and_their_id_shows_authenticated(orcid, web):
    mine, theirs = creator_item(), creator_item(OTHER, "Silva, Ana", title="Another work")
    page = web.get(f"/items/{mine.ibi}").content.decode()
    assert UNCONFIRMED in page and MARK not in page  # typed, not confirmed yet
    assert "Sign in with ORCID" in web.get("/accounts/login/").content.decode()

    answer = web.get("/accounts/orcid/login/?next=/submit/")
    authorize = urlsplit(answer["Location"])
    query = parse_qs(authorize.query)
    assert f"{authorize.scheme}://{authorize.netloc}{authorize.path}" == \
        f"{orcid.url}/oauth/authorize"
    assert query["scope"] == ["/authenticate"] and query["client_id"] == [orcid.client_id]
    assert query["redirect_uri"] == ["https://testserver/accounts/orcid/callback/"]
    assert len(query["state"][0]) >= 20
    agreed = httpx.get(answer["Location"], verify=trusted(orcid.ca_file), follow_redirects=False)
    back = urlsplit(agreed.headers["Location"])
    done = web.get(f"{back.path}?{back.query}")
    assert done.status_code == 302 and done["Location"] == "/submit/"

    user = User.objects.get(identities__subject=ORCID)
    identity = user.identities.get()
    assert (identity.provider, identity.issuer) == (Identity.Provider.ORCID, orcid.url)
    assert user.is_active and user.email == "josiah@example.org"
    assert user.account.name == "Josiah Carberry" and user.account.email_verified_at
    assert int(web.client.session["_auth_user_id"]) == user.pk
    account = web.get("/accounts/").content.decode()
    assert ORCID in account and "is connected" in account

    page = web.get(f"/items/{mine.ibi}").content.decode()
    assert MARK in page and "Authenticated ORCID iD of Carberry, Josiah" in page
    assert UNCONFIRMED not in page
    other = web.get(f"/items/{theirs.ibi}").content.decode()
    assert UNCONFIRMED in other and MARK not in other
    api = web.get(f"/api/items/{mine.ibi}").json()
    assert api["creators"] == [{"name": "Carberry, Josiah", "orcid": ORCID,
                                "orcid_authenticated": True}]

    # Signing in again finds the same person.
    web.client.logout()
    assert web.get(to_orcid(web)).status_code == 302
    assert User.objects.filter(identities__subject=ORCID).count() == 1


def test_a_record_that_cannot_be_read_still_signs_the_person_in_without_an_address(
        orcid, web):
    orcid.record_status = 503
    assert web.get(to_orcid(web)).status_code == 302
    user = User.objects.get(identities__subject=ORCID)
    assert user.is_active and user.email == "" and user.account.name == "Josiah Carberry"


def test_a_verified_address_on_the_record_links_the_account_that_has_it(orcid, web):
    ana = make.account("josiah@example.org", name="J. Carberry")
    assert web.get(to_orcid(web)).status_code == 302
    assert list(ana.identities.values_list("subject", flat=True)) == [ORCID]
    assert User.objects.count() == 1


def test_a_signed_in_person_links_their_orcid_id_by_choice(orcid, web):
    user = make.account("ana.silva@example.org")
    web.client.force_login(user)
    assert "Connect your ORCID iD" in web.get("/accounts/").content.decode()
    assert web.get(to_orcid(web)).status_code == 302
    assert list(user.identities.values_list("subject", flat=True)) == [ORCID]
    assert User.objects.count() == 1  # no account made


def test_a_state_that_does_not_match_or_is_used_again_is_refused(orcid, web):
    back = to_orcid(web)
    forged = back.replace("state=", "state=x")
    refused = web.get(forged)
    assert refused.status_code == 400
    assert "not for the sign-in this browser started" in refused.content.decode()
    assert not Identity.objects.exists() and not User.objects.exists()
    # The state was dropped with that answer: the genuine one is no longer awaited either.
    assert web.get(back).status_code == 400
    assert not Identity.objects.exists()


def test_a_code_replayed_is_refused_by_orcid_and_nothing_changes(orcid, web):
    back = to_orcid(web)
    assert web.get(back).status_code == 302
    web.client.logout()
    Identity.objects.all().delete()
    User.objects.all().delete()
    # A new sign-in started, ORCID's answer swapped for the old code.
    fresh = parse_qs(urlsplit(to_orcid(web)).query)["state"][0]
    code = parse_qs(urlsplit(back).query)["code"][0]
    asked = orcid.tokens_asked
    refused = web.get(f"/accounts/orcid/callback/?code={code}&state={fresh}")
    assert orcid.tokens_asked == asked + 1  # ORCID was asked, and refused it
    assert refused.status_code == 400 and "ORCID did not confirm" in refused.content.decode()
    assert not Identity.objects.exists() and not User.objects.exists()


def test_a_code_or_a_token_for_another_client_is_refused(orcid, web):
    state = parse_qs(urlsplit(to_orcid(web)).query)["state"][0]
    theirs = orcid.issue_code("APP-SOMEONEELSE01", "https://testserver/accounts/orcid/"
                              "callback/")
    assert web.get(f"/accounts/orcid/callback/?code={theirs}&state={state}"
                   ).status_code == 400
    orcid.token_extra = {"client_id": "APP-SOMEONEELSE01"}
    assert web.get(to_orcid(web)).status_code == 400
    orcid.token_extra = {"orcid": "0000-0002-1825-0098"}  # a wrong check digit
    assert web.get(to_orcid(web)).status_code == 400
    assert not Identity.objects.exists() and not User.objects.exists()


def test_orcid_declined_by_the_person_changes_nothing(orcid, web):
    state = parse_qs(urlsplit(to_orcid(web)).query)["state"][0]
    answer = web.get(f"/accounts/orcid/callback/?error=access_denied&state={state}")
    assert answer.status_code == 403 and not User.objects.exists()


def invite(web, librarian, item, email: str = "josiah@example.org"):
    web.client.force_login(librarian)
    answer = web.post(f"/admin/archive/item/{item.pk}/orcid/", {"orcid": ORCID, "email": email})
    web.client.logout()
    return answer


def test_a_creator_without_an_account_connects_their_orcid_id_from_a_mailed_link(
        orcid, web, librarian, mailoutbox):
    item, again = creator_item(), creator_item(title="Second work")
    orcid.emails = {}  # the record shows no address: the one mailed to is verified
    web.client.force_login(librarian)
    form = web.get(f"/admin/archive/item/{item.pk}/change/").content.decode()
    assert f"/admin/archive/item/{item.pk}/orcid/" in form
    assert ORCID in web.get(f"/admin/archive/item/{item.pk}/orcid/").content.decode()
    answer = invite(web, librarian, item)
    assert answer.status_code == 302
    [mail] = mailoutbox
    assert mail.to == ["josiah@example.org"] and ORCID in mail.body
    link = make.link_in(mail)
    page = web.get(link)
    assert page.status_code == 200 and "Sign in with ORCID" in page.content.decode()

    # Signing in with another iD: refused, nothing changed, the link still works.
    orcid.signs_in_as = (OTHER, "Someone Else")
    wrong = web.get(to_orcid(web, f"/accounts/orcid/login/?connect={link.split('/')[-2]}"))
    assert wrong.status_code == 403 and "other than the one" in wrong.content.decode()
    assert not Identity.objects.exists() and list(User.objects.all()) == [librarian]
    assert OrcidInvitation.objects.get().used_at is None

    orcid.signs_in_as = (ORCID, "Josiah Carberry")
    done = web.get(to_orcid(web, f"/accounts/orcid/login/?connect={link.split('/')[-2]}"))
    assert done.status_code == 302 and done["Location"] == f"/items/{item.ibi}"
    user = User.objects.get(identities__subject=ORCID)
    assert user.email == "josiah@example.org" and user.is_active
    assert OrcidInvitation.objects.get().used_at is not None
    for work in (item, again):
        assert MARK in web.get(f"/items/{work.ibi}").content.decode()

    # Once only; and the librarian has no unconfirmed creator left to mail.
    used = web.get(link)
    assert used.status_code == 409 and "already used" in used.content.decode()
    web.client.force_login(librarian)
    assert "No creator of this item" in web.get(
        f"/admin/archive/item/{item.pk}/orcid/").content.decode()


def test_a_signed_in_person_follows_the_link_and_the_id_is_linked_to_them(
        orcid, web, librarian, mailoutbox):
    item = creator_item()
    invite(web, librarian, item, email="other@example.org")
    token = make.link_in(mailoutbox[0]).split("/")[-2]
    ana = make.account("ana.silva@example.org")
    web.client.force_login(ana)
    assert web.get(to_orcid(web, f"/accounts/orcid/login/?connect={token}")
                   ).status_code == 302
    assert list(ana.identities.values_list("subject", flat=True)) == [ORCID]
    assert User.objects.filter(email="other@example.org").count() == 0
    assert MARK in web.get(f"/items/{item.ibi}").content.decode()


def test_a_link_changed_or_expired_is_refused(orcid, web, librarian, mailoutbox, settings):
    item = creator_item()
    invite(web, librarian, item)
    link = make.link_in(mailoutbox[0])
    assert web.get(link[:-3] + "xx/").status_code == 400
    settings.IBI_ORCID_INVITATION_DAYS = 0  # every link is past its age
    assert web.get(link).status_code == 410
    assert web.get(f"/accounts/orcid/login/?connect={link.split('/')[-2]}").status_code == 410


def test_only_a_creators_orcid_id_can_be_mailed(orcid, web, librarian, mailoutbox):
    item = creator_item(OTHER)
    web.client.force_login(librarian)
    answer = web.post(f"/admin/archive/item/{item.pk}/orcid/", {"orcid": ORCID,
                                                                 "email": "x@example.org"})
    assert answer.status_code == 400 and not OrcidInvitation.objects.exists()
    assert not mailoutbox
    with pytest.raises(invitations.NotACreatorsOrcid):
        invitations.invite(item=item, orcid=ORCID, email="x@example.org", sent_by=None,
                           base="https://testserver", language="en")


def test_a_mail_server_down_keeps_the_invitation_owed(orcid, web, librarian, settings,
                                                      mailoutbox):
    item = creator_item()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", free_port()  # nothing listens
    assert invite(web, librarian, item).status_code == 302
    invitation = OrcidInvitation.objects.get()
    assert invitation.sent_at is None and invitation.attempts == 1
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    assert invitations.mail_owed() == 1 and len(mailoutbox) == 1
    assert invitations.mail_owed() == 0
