"""A person's own account (issue 36, 4): their ways in, each removable but the last; staff
disable an account (with a reason) and no way in signs its holder in any more; the person
downloads what the repository holds about them and asks for its erasure (LGPD), which the
librarians carry out in the admin, keeping published authorship."""
from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import User
from django.test import Client

from archive.accounts import invitations, services
from archive.deposit import pending
from archive.models import (
    AccessRequest,
    Account,
    CollectionRole,
    DcValue,
    Identity,
    OrcidInvitation,
    PendingUpload,
    RequestNotice,
    Submission,
    Transition,
)
from archive.review import services as review
from tests import factories as make

pytestmark = pytest.mark.django_db

EMAIL = "ana.silva@example.org"
ORCID = {"provider": Identity.Provider.ORCID, "issuer": "https://orcid.org"}


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_account_page_lists_the_ways_in_and_removes_one_but_never_the_last():
    user = services.sign_in_external(**ORCID, subject="0000-0002-1825-0097", email=EMAIL,
                                     email_verified=True, name="Ana Silva")
    cafe = services.link_identity(user=user, provider=Identity.Provider.SAML,
                                  issuer="https://idp.ufrgs.example", subject="ana@ufrgs")
    web = signed_in(user)
    page = web.get("/accounts/", secure=True).content.decode()
    assert "ORCID: 0000-0002-1825-0097" in page and "ana@ufrgs" in page
    assert web.post(f"/accounts/ways-in/{cafe.pk}/remove/", secure=True).status_code == 302
    assert list(user.identities.values_list("subject", flat=True)) == ["0000-0002-1825-0097"]
    # The last one (no password of her own): refused, said, nothing removed.
    last = user.identities.get()
    answer = web.post(f"/accounts/ways-in/{last.pk}/remove/", secure=True)
    assert answer.status_code == 409
    assert "this is your last way in" in answer.content.decode()
    assert user.identities.count() == 1
    assert "Your only way in cannot be removed." in answer.content.decode()


def test_no_one_removes_anothers_way_in():
    ana = make.account(EMAIL)
    theirs = services.link_identity(user=make.account("bia@example.org"), **ORCID,
                                    subject="0000-0001-5109-3700")
    answer = signed_in(ana).post(f"/accounts/ways-in/{theirs.pk}/remove/", secure=True)
    assert answer.status_code == 404
    assert "this way in is not one of yours" in answer.content.decode()
    assert Identity.objects.filter(pk=theirs.pk).exists()
    assert signed_in(ana).get(f"/accounts/ways-in/{theirs.pk}/remove/",
                              secure=True).status_code == 405


def test_a_disabled_account_is_refused_by_its_password_and_its_session_ends():
    user = make.account(EMAIL)
    web = signed_in(user)
    assert web.get("/accounts/", secure=True).status_code == 200
    services.disable(account=user.account, reason="asked by the dean")
    assert web.get("/accounts/", secure=True).status_code == 302  # signed out
    answer = Client().post("/accounts/login/", {"username": EMAIL,
                                                "password": make.ACCOUNT_PASSWORD},
                           secure=True)
    assert answer.status_code == 400
    assert "this account is disabled: ask the library" in answer.content.decode()
    # A wrong password says nothing of it.
    wrong = Client().post("/accounts/login/", {"username": EMAIL, "password": "nope"},
                          secure=True)
    assert "disabled" not in wrong.content.decode()
    with pytest.raises(services.AccountDisabled):
        services.sign_in_external(**ORCID, subject="0000-0002-1825-0097", email=EMAIL,
                                  email_verified=True)
    services.enable(account=user.account)
    assert Client().post("/accounts/login/", {"username": EMAIL,
                                              "password": make.ACCOUNT_PASSWORD},
                         secure=True).status_code == 302


def test_staff_disable_with_a_reason_in_the_admin(librarian_client):
    user = make.account(EMAIL)
    account = user.account
    url = "/admin/archive/account/"
    chosen = {"action": "disable", "_selected_action": [account.pk]}
    page = librarian_client.post(url, chosen, secure=True)
    assert page.status_code == 200 and "Why the accounts are disabled" in page.content.decode()
    empty = librarian_client.post(url, {**chosen, "post": "yes", "reason": " "}, secure=True)
    assert "Write why" in empty.content.decode()
    account.refresh_from_db()
    assert account.disabled_at is None
    librarian_client.post(url, {**chosen, "post": "yes", "reason": "left the university"},
                          secure=True)
    account.refresh_from_db()
    user.refresh_from_db()
    assert account.disabled_reason == "left the university" and not user.is_active
    listing = librarian_client.get(url + f"{account.pk}/change/", secure=True)
    assert "left the university" in listing.content.decode()


def test_the_person_downloads_what_the_repository_holds_about_them():
    user = make.account(EMAIL)
    services.link_identity(user=user, **ORCID, subject="0000-0002-1825-0097")
    theses = make.collection("theses", make.community("university"))
    make.reviewed(theses, reviewer="Reviewers")
    CollectionRole.objects.create(collection=theses, role="submitter", user=user)
    draft = make.submission(user, theses)
    review.submit(user=user, submission=draft)
    item = make.item()
    request = AccessRequest.objects.create(item=item, name="Ana Silva", email=EMAIL.upper(),
                                           reason="my thesis")
    RequestNotice.objects.create(request=request, email=EMAIL)
    make.pending_upload(user)
    answer = signed_in(user).get("/accounts/data/", secure=True)
    assert answer.status_code == 200 and "attachment" in answer["Content-Disposition"]
    assert "no-store" in answer["Cache-Control"]
    data = json.loads(answer.content)
    assert data["user"]["email"] == EMAIL and data["account"]["name"] == "Ana Silva"
    assert [i["subject"] for i in data["identities"]] == ["0000-0002-1825-0097"]
    assert data["roles"] == [{"collection": "theses", "role": "submitter"}]
    assert [s["state"] for s in data["submissions"]] == ["in_review"]
    assert "submitted" in [t["to"] for t in data["transitions"]]
    assert [r["reason"] for r in data["access_requests"]] == ["my thesis"]
    assert [n["email"] for n in data["notices"]] == [EMAIL]
    assert [f["name"] for f in data["files_waiting"]] == ["paper.pdf"]
    # Someone else's data is not in it.
    assert json.loads(signed_in(make.account("bia@example.org")).get(
        "/accounts/data/", secure=True).content)["access_requests"] == []


def test_erasure_is_asked_for_then_done_by_the_librarians_keeping_published_authorship(
        librarian_client):
    user = make.account(EMAIL)
    services.link_identity(user=user, **ORCID, subject="0000-0002-1825-0097")
    theses = make.collection("theses", make.community("university"))
    CollectionRole.objects.create(collection=theses, role="submitter", user=user)
    make.reviewed(theses)
    draft = make.submission(user, theses, title="A draft")
    waiting = make.pending_upload(user)
    withdrawn = make.submission(user, theses, title="Withdrawn")
    review.submit(user=user, submission=withdrawn)
    in_review = Submission.objects.get(pk=withdrawn.pk)
    published_item = make.item(title="Published")
    make.dc_value(published_item, "creator", "Silva, Ana", 0, authority="0000-0002-1825-0097")
    AccessRequest.objects.create(item=published_item, name="Ana Silva", email=EMAIL,
                                 reason="my thesis")
    invitations.invite(item=published_item, orcid="0000-0002-1825-0097", email=EMAIL,
                       sent_by=None, base="https://repo.example", language="pt-br")
    web = signed_in(user)
    assert "Under the LGPD" in web.get("/accounts/erasure/", secure=True).content.decode()
    assert web.post("/accounts/erasure/", secure=True).status_code == 302
    account = Account.objects.get(user=user)
    assert account.erasure_requested_at is not None
    assert "the library is handling it" in web.get("/accounts/", secure=True).content.decode()
    # In review: the librarians are told to wait, nothing is erased.
    url = "/admin/archive/account/"
    chosen = {"action": "erase", "_selected_action": [account.pk]}
    assert "tombstone policy" in librarian_client.post(url, chosen,
                                                      secure=True).content.decode()
    answer = librarian_client.post(url, {**chosen, "post": "yes"}, secure=True, follow=True)
    assert "a submission of this person is in review" in answer.content.decode()
    assert User.objects.get(pk=user.pk).email == EMAIL
    review.withdraw(user=user, submission=in_review)
    librarian_client.post(url, {**chosen, "post": "yes"}, secure=True)
    user.refresh_from_db()
    account.refresh_from_db()
    assert (user.email, user.username, user.is_active) == ("", f"erased-{user.pk}", False)
    assert not user.has_usable_password() and account.name == ""
    assert account.erased_at is not None
    assert not Identity.objects.exists() and not CollectionRole.objects.filter(user=user)
    assert not Submission.objects.filter(pk__in=[draft.pk, withdrawn.pk]).exists()
    assert not Transition.objects.filter(actor=user).exclude(actor_name="").exists()
    assert not PendingUpload.objects.filter(pk=waiting.pk).exists()
    assert not pending.path_of(waiting).exists()
    assert not OrcidInvitation.objects.exists()  # mailed to the address: gone with it
    erased = AccessRequest.objects.get()
    assert (erased.email, erased.name, erased.reason) == ("", "", "")
    # Published authorship stays.
    assert DcValue.objects.filter(item=published_item, value="Silva, Ana").exists()
    # No way in signs the erased person in.
    assert Client().post("/accounts/login/", {"username": EMAIL,
                                              "password": make.ACCOUNT_PASSWORD},
                         secure=True).status_code == 400
