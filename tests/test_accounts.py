"""Accounts of people who are not staff (issue 35, 1): sign up with an address and a password,
verify the address by a link mailed once, sign in by that address in any case, reset and
change the password; the answers never tell whether an address has an account, every form
is throttled per client and per address, `next` never leads to another site, and a mail
server that is down loses no mail. The browser's view is tests/test_browser_accounts_pt.py.
"""
from __future__ import annotations

import time
from types import SimpleNamespace

import pytest
from django.contrib.auth.models import Group, User
from django.core import signing
from django.test import Client

from archive.accounts import services, tokens
from archive.models import AccountMail, CollectionRole
from tests import factories as make
from tests.servers import free_port

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_tasks")]

EMAIL = "ana.silva@example.org"
SIGN_UP = {"name": "Ana  Silva", "email": EMAIL, "password1": make.ACCOUNT_PASSWORD,
           "password2": make.ACCOUNT_PASSWORD}


@pytest.fixture
def web(django_capture_on_commit_callbacks):
    """A browser's client over HTTPS (the accounts' pages are HTTPS-only, as the admin), whose
    requests' commits run their callbacks: the mails are sent as they are in production."""
    client = Client()

    def call(method: str, url: str, data=None, **extra):
        with django_capture_on_commit_callbacks(execute=True):
            return getattr(client, method)(url, data, secure=True, **extra)

    return SimpleNamespace(get=lambda url, **extra: call("get", url, **extra),
                           post=lambda url, data=None, **extra: call("post", url, data or {},
                                                                     **extra),
                           client=client)


def sign_in(web, email: str = EMAIL, password: str = make.ACCOUNT_PASSWORD, **extra):
    return web.post("/accounts/login/", {"username": email, "password": password}, **extra)


def test_sign_up_mails_a_link_that_verifies_the_address_then_the_person_signs_in(
        web, mailoutbox):
    answer = web.post("/accounts/signup/", SIGN_UP)
    assert answer.status_code == 302 and answer["Location"] == "/accounts/verify/"
    user = User.objects.get(email=EMAIL)
    assert not user.is_active and user.account.email_verified_at is None
    assert user.account.name == "Ana Silva"
    page = web.get("/accounts/verify/")
    assert EMAIL in page.content.decode() and page["Cache-Control"].startswith("max-age=0")

    # Not before the address is verified: said plainly, to whoever has the password.
    early = sign_in(web)
    assert early.status_code == 400
    assert "not verified yet" in early.content.decode()
    wrong = sign_in(web, password="wrong-password").content.decode()
    assert "not verified yet" not in wrong
    assert "do not match an account" in wrong

    [mail] = mailoutbox
    assert mail.to == [EMAIL] and mail.subject == "Verify your email address"
    link = make.link_in(mail)
    assert link.startswith("/accounts/verify/") and "Ana Silva" in mail.body
    verified = web.get(link)
    assert verified.status_code == 200 and "Your address is verified" in verified.content.decode()
    user.refresh_from_db()
    assert user.is_active and user.account.email_verified_at is not None

    # Signed in by the address, in any case, to the account's page.
    answer = sign_in(web, EMAIL.upper())
    assert answer.status_code == 302 and answer["Location"] == "/accounts/"
    page = web.get("/accounts/").content.decode()
    assert "Ana Silva" in page and EMAIL in page and "Yes, on" in page


def test_a_used_forged_or_expired_link_is_a_clear_page_and_changes_nothing(
        web, monkeypatch, settings):
    user = make.account(verified=False)
    link = f"/accounts/verify/{tokens.make(user.pk, user.email)}/"
    # Forged: another account's number under the same signature, a cut, garbage.
    forged = link.replace(":", ";", 1)
    for bad in (forged, link[:-6] + "/", "/accounts/verify/x/", f"/accounts/verify/{'a' * 3000}/"):
        answer = web.get(bad)
        assert answer.status_code == 400, bad
        assert "This link is not valid" in answer.content.decode()
    # A link made for the address before it changed names another address.
    other = f"/accounts/verify/{tokens.make(user.pk, 'someone@example.org')}/"
    assert web.get(other).status_code == 400
    user.refresh_from_db()
    assert not user.is_active

    # Expired: made longer ago than PASSWORD_RESET_TIMEOUT.
    past = time.time() - settings.PASSWORD_RESET_TIMEOUT - 60
    monkeypatch.setattr(signing, "time", SimpleNamespace(time=lambda: past))
    old = f"/accounts/verify/{tokens.make(user.pk, user.email)}/"
    monkeypatch.undo()
    answer = web.get(old)
    assert answer.status_code == 410 and "This link has expired" in answer.content.decode()
    assert 'name="email"' in answer.content.decode()  # and a form for a new one
    user.refresh_from_db()
    assert not user.is_active

    assert web.get(link).status_code == 200
    # Used twice (the expired one too, now the address is verified): said so, nothing moves.
    for again in (link, old):
        answer = web.get(again)
        assert answer.status_code == 409
        assert "This link was already used" in answer.content.decode()


def test_pt_br_pages_say_why_a_link_fails(web):
    answer = web.get("/accounts/verify/x/", HTTP_ACCEPT_LANGUAGE="pt-BR")
    assert answer.status_code == 400
    assert "Este link não é válido" in answer.content.decode()


def test_signing_up_with_a_taken_address_answers_the_same_and_tells_its_holder(
        web, mailoutbox):
    make.account()
    fresh = web.post("/accounts/signup/", {**SIGN_UP, "email": "joao@example.org"})
    taken = web.post("/accounts/signup/", {**SIGN_UP, "email": EMAIL.upper()})
    assert (taken.status_code, taken["Location"]) == (fresh.status_code, fresh["Location"])
    assert User.objects.filter(email__iexact=EMAIL).count() == 1
    assert [m.to for m in mailoutbox] == [["joao@example.org"], [EMAIL]]
    assert mailoutbox[1].subject == "Someone tried to sign up with your address"
    assert make.link_in(mailoutbox[1]) == "/accounts/login/"


def test_signing_up_again_before_verifying_mails_the_link_again(web, mailoutbox):
    make.account(verified=False)
    assert web.post("/accounts/signup/", SIGN_UP).status_code == 302
    [mail] = mailoutbox
    assert mail.subject == "Verify your email address"
    assert web.get(make.link_in(mail)).status_code == 200


def test_a_weak_or_mismatched_password_is_refused_with_the_reason(web):
    weak = web.post("/accounts/signup/", {**SIGN_UP, "password1": "12345678",
                                          "password2": "12345678"})
    assert weak.status_code == 400
    assert "This password is too common." in weak.content.decode()
    differ = web.post("/accounts/signup/", {**SIGN_UP, "password2": "something-else-9"})
    assert differ.status_code == 400 and "The two passwords differ." in differ.content.decode()
    assert not User.objects.exists()


def test_a_mail_server_down_keeps_the_mail_owed_and_the_sign_up_succeeds(
        web, settings, mailoutbox, caplog):
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", free_port()  # nothing listens
    answer = web.post("/accounts/signup/", SIGN_UP)
    assert answer.status_code == 302
    mail = AccountMail.objects.get(user__email=EMAIL)
    assert mail.sent_at is None and mail.attempts == 1
    assert "is not sent yet" in caplog.text
    page = web.get("/accounts/verify/").content.decode()
    assert "could not be sent just now" in page

    # The beat's next run, with the server back, sends it; a resend was possible meanwhile.
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    assert services.mail_owed() == 1
    assert [m.to for m in mailoutbox] == [[EMAIL]]
    assert web.get(make.link_in(mailoutbox[0])).status_code == 200
    assert services.mail_owed() == 0  # sent once


def test_a_new_link_is_sent_only_to_an_account_waiting_and_the_answer_is_the_same(
        web, mailoutbox):
    make.account(verified=False)
    make.account("verified@example.org")
    answers = [web.post("/accounts/verify/", {"email": email})
               for email in (EMAIL, "nobody@example.org", "verified@example.org")]
    assert {(a.status_code, a["Location"]) for a in answers} == {
        (302, "/accounts/verify/?resent")}
    assert [m.to for m in mailoutbox] == [[EMAIL]]
    assert web.get(make.link_in(mailoutbox[0])).status_code == 200


def test_a_password_reset_answers_the_same_for_an_address_with_or_without_an_account(
        web, mailoutbox):
    make.account()
    known = web.post("/accounts/password/reset/", {"email": EMAIL.upper()})
    unknown = web.post("/accounts/password/reset/", {"email": "nobody@example.org"})
    assert (known.status_code, known["Location"]) == (unknown.status_code, unknown["Location"])
    assert known["Location"] == "/accounts/password/reset/sent/"
    assert [m.to for m in mailoutbox] == [[EMAIL]]

    # The link sets a new password (Django's validators apply), once.
    link = make.link_in(mailoutbox[0])
    form = web.get(link)
    assert form.status_code == 302  # Django moves the token out of the address
    new = "A-whole-new-passphrase-7"
    done = web.post(form["Location"], {"new_password1": new, "new_password2": new})
    assert done["Location"] == "/accounts/password/reset/done/"
    assert sign_in(web, password=new).status_code == 302
    again = web.get(link)
    assert again.status_code == 200 and "This link does not work" in again.content.decode()


def test_the_password_change_wants_the_old_one(web):
    make.account()
    assert web.get("/accounts/password/change/")["Location"].startswith(
        "/accounts/login/?next=")
    sign_in(web)
    new = "Another-long-passphrase-8"
    wrong = web.post("/accounts/password/change/", {"old_password": "nope",
                                                   "new_password1": new, "new_password2": new})
    assert wrong.status_code == 200 and "Your old password was entered incorrectly" in \
        wrong.content.decode()
    changed = web.post("/accounts/password/change/", {"old_password": make.ACCOUNT_PASSWORD,
                                                     "new_password1": new, "new_password2": new})
    assert changed["Location"] == "/accounts/"
    assert "Your password was changed." in web.get("/accounts/").content.decode()
    assert User.objects.get(email=EMAIL).check_password(new)


def test_staff_still_sign_in_to_the_admin_by_username(web, librarian):
    from tests.conftest import PASSWORD

    answer = web.post("/admin/login/?next=/admin/", {"username": "librarian",
                                                     "password": PASSWORD})
    assert answer.status_code == 302 and answer["Location"] == "/admin/"


def test_next_leads_only_to_this_site(web):
    make.account()
    for foreign in ("https://evil.example/", "//evil.example/", "http://evil.example/x",
                    "https:///evil.example"):
        page = web.get(f"/accounts/login/?next={foreign}").content.decode()
        form = page.split('action="/accounts/login/"')[1].split("</form>")[0]
        assert "evil.example" not in form
        answer = web.post("/accounts/login/", {"username": EMAIL,
                                               "password": make.ACCOUNT_PASSWORD,
                                               "next": foreign})
        assert answer.status_code == 302 and answer["Location"] == "/accounts/", foreign
        web.post("/accounts/logout/")
    page = web.get("/accounts/login/?next=/submit/").content.decode()
    assert '<input type="hidden" name="next" value="/submit/">' in page
    answer = web.post("/accounts/login/", {"username": EMAIL, "password": make.ACCOUNT_PASSWORD,
                                           "next": "/submit/"})
    assert answer["Location"] == "/submit/"


def test_every_form_wants_its_csrf_token(settings):
    strict = Client(enforce_csrf_checks=True)
    for url, data in (("/accounts/signup/", SIGN_UP), ("/accounts/verify/", {"email": EMAIL}),
                      ("/accounts/login/", {"username": EMAIL, "password": "x"}),
                      ("/accounts/logout/", {}), ("/accounts/password/reset/", {"email": EMAIL})):
        assert strict.post(url, data, secure=True).status_code == 403, url
    assert not User.objects.exists() and not AccountMail.objects.exists()


def test_the_pages_are_https_only(client):
    answer = client.get("/accounts/login/")
    assert answer.status_code == 301 and answer["Location"].startswith("https://")


def test_a_method_a_page_does_not_take_is_405(client):
    for url in ("/accounts/", "/accounts/signup/", "/accounts/verify/", "/accounts/verify/x/"):
        assert client.put(url, secure=True).status_code == 405, url
    assert client.post("/accounts/verify/x/", secure=True).status_code == 405
    assert client.get("/accounts/logout/", secure=True).status_code == 405


def rates(settings, **rates: str) -> None:
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], **rates}}


def test_forms_that_mail_an_address_are_throttled_per_address(web, settings, mailoutbox):
    rates(settings, account_mail="2/hour")
    make.account()
    statuses = [web.post("/accounts/password/reset/", {"email": EMAIL},
                         REMOTE_ADDR=f"192.0.2.{n}").status_code for n in range(3)]
    assert statuses == [302, 302, 429]
    # The address's count is one for every form: a new link for it is refused too …
    refused = web.post("/accounts/verify/", {"email": EMAIL.upper()}, REMOTE_ADDR="192.0.2.9")
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert "Too many attempts" in refused.content.decode()
    assert len(mailoutbox) == 2
    # … another address is not.
    assert web.post("/accounts/password/reset/", {"email": "other@example.org"},
                    REMOTE_ADDR="192.0.2.9").status_code == 302


def test_forms_that_mail_are_throttled_per_client_address(web, settings):
    rates(settings, account_client="3/hour")
    statuses = [web.post("/accounts/signup/", {**SIGN_UP, "email": f"p{n}@example.org"},
                         REMOTE_ADDR="198.51.100.7").status_code for n in range(4)]
    assert statuses == [302, 302, 302, 429]
    assert User.objects.count() == 3
    assert web.post("/accounts/signup/", {**SIGN_UP, "email": "late@example.org"},
                    REMOTE_ADDR="198.51.100.8").status_code == 302


def test_wrong_passwords_are_throttled_per_address_and_per_client(web, settings):
    rates(settings, account_login="3/hour")
    make.account()
    # From many addresses (a botnet): the account's address is cut off after three.
    statuses = [sign_in(web, password=f"guess-{n}", REMOTE_ADDR=f"203.0.113.{n}").status_code
                for n in range(4)]
    assert statuses == [400, 400, 400, 429]
    assert sign_in(web, REMOTE_ADDR="203.0.113.50").status_code == 429  # the right one too
    # From one address (django-axes, AXES_FAILURE_LIMIT): locked out, whatever the account.
    for n in range(settings.AXES_FAILURE_LIMIT):
        sign_in(web, f"guess{n}@example.org", "x", REMOTE_ADDR="198.51.100.66")
    assert sign_in(web, "joao@example.org", "x", REMOTE_ADDR="198.51.100.66").status_code == 429


def test_the_account_page_lists_the_roles_held(web):
    user = make.account()
    community = make.community("university")
    theses = make.collection("theses", community)
    reports = make.collection("reports", community)
    CollectionRole.objects.create(collection=theses, role="submitter", user=user)
    group = Group.objects.create(name="Report reviewers")
    user.groups.add(group)
    CollectionRole.objects.create(collection=reports, role="reviewer", group=group)
    assert web.get("/accounts/")["Location"] == "/accounts/login/?next=/accounts/"
    sign_in(web)
    page = web.get("/accounts/").content.decode()
    assert "Collection theses</a>: submitter" in page
    assert "Collection reports</a>: reviewer" in page and "as a member of Report reviewers" in page
    header = web.get("/").content.decode()
    assert 'href="/accounts/">My account</a>' in header


def test_the_header_offers_to_sign_in(reader):
    assert 'href="/accounts/login/">Sign in</a>' in reader.get("/").content.decode()


def test_an_institutional_way_in_makes_an_account_without_a_password():
    """What a later SAML or ORCID login calls: the address vouched for, no password kept."""
    user = services.create_account(name="Beatriz Souza", email="bia@usp.example",
                                   email_verified=True).user
    assert user.is_active and not user.has_usable_password()
    assert user.account.email_verified_at is not None
    with pytest.raises(services.AddressTaken):
        services.create_account(name="Other", email="BIA@usp.example")
