"""One person, several ways in (issue 36, 4): an identity an institution vouches for (SAML,
ORCID, LDAP) signs in as the account it is linked to, is linked on first use to the account
of the address it vouches for, or makes a new account; staff's disabling holds whatever the
way in (archive/accounts/services.py `sign_in_external`, `link_identity`)."""
from __future__ import annotations

import pytest

from archive.accounts import services
from archive.models import Account, Identity
from archive.refusals import Conflict, Refusal

pytestmark = pytest.mark.django_db

IDP = "https://idp.ufrgs.example/idp/shibboleth"


def cafe(subject: str = "ana@ufrgs.example", **fields):
    return services.sign_in_external(provider=Identity.Provider.SAML, issuer=IDP,
                                     subject=subject, **fields)


def test_a_new_identity_makes_an_account_with_the_address_it_vouches_for():
    user = cafe(email="Ana@UFRGS.example", email_verified=True, name="Ana Souza",
                attributes={"brEduAffiliationType": ["student"]})
    assert user.is_active and user.email == "Ana@ufrgs.example"
    assert not user.has_usable_password()
    assert Account.objects.get(user=user).email_verified_at is not None
    identity = Identity.objects.get(user=user)
    assert identity.attributes == {"brEduAffiliationType": ["student"]}
    assert identity.last_used is not None
    # Again: the same user, no second account or identity.
    assert cafe(email="ana@ufrgs.example", email_verified=True).pk == user.pk
    assert Identity.objects.count() == 1 and Account.objects.count() == 1


def test_a_vouched_address_links_the_identity_to_the_account_that_has_it():
    account = services.create_account(name="Ana", email="ana@ufrgs.example", password="x")
    user = cafe(email="ANA@ufrgs.example", email_verified=True)
    assert user.pk == account.user_id
    account.refresh_from_db()
    user.refresh_from_db()
    # It waited for its address: vouched for by the institution now, the account opens.
    assert account.email_verified_at is not None and user.is_active


def test_an_address_not_vouched_for_links_nothing_and_says_how():
    services.create_account(name="Ana", email="ana@ufrgs.example", password="x",
                            email_verified=True)
    with pytest.raises(Conflict, match="sign in to it first"):
        cafe(email="ana@ufrgs.example", email_verified=False)
    assert not Identity.objects.exists()


def test_an_identity_without_an_address_has_an_account_of_its_own():
    user = services.sign_in_external(provider=Identity.Provider.ORCID,
                                     issuer="https://orcid.org",
                                     subject="0000-0002-1825-0097", name="Josiah Carberry")
    assert user.is_active and user.email == "" and user.username == "orcid:0000-0002-1825-0097"
    other = services.sign_in_external(provider=Identity.Provider.ORCID,
                                      issuer="https://orcid.org", subject="0000-0001-5109-3700")
    assert other.pk != user.pk


def test_a_disabled_account_is_refused_whatever_the_way_in():
    user = cafe(email="ana@ufrgs.example", email_verified=True)
    user.is_active = False
    user.save()
    with pytest.raises(services.AccountDisabled):
        cafe(email="ana@ufrgs.example", email_verified=True)


def test_no_subject_is_refused():
    with pytest.raises(Refusal):
        cafe(subject=" ")
    assert not Identity.objects.exists()


def test_a_person_links_a_way_in_by_choice_and_not_anothers():
    ana = services.create_account(name="Ana", email="ana@ufrgs.example", password="x",
                                  email_verified=True).user
    services.link_identity(user=ana, provider=Identity.Provider.ORCID,
                           issuer="https://orcid.org", subject="0000-0002-1825-0097")
    assert services.sign_in_external(provider=Identity.Provider.ORCID,
                                     issuer="https://orcid.org",
                                     subject="0000-0002-1825-0097").pk == ana.pk
    bia = services.create_account(name="Bia", email="bia@ufrgs.example", password="x",
                                  email_verified=True).user
    with pytest.raises(Conflict):
        services.link_identity(user=bia, provider=Identity.Provider.ORCID,
                               issuer="https://orcid.org", subject="0000-0002-1825-0097")
