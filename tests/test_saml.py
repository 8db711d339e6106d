"""Institutional login (issue 36, 1): this site as a SAML 2.0 service provider of a
federation, against a stand-in identity provider on pysaml2's own IdP role and a federation
aggregate signed by the test (tests/saml_idp.py).

The hostile catalogue: each response below is one an attacker (or a broken IdP) could post
to the ACS, and each test fails if it signs anyone in or makes anything — unsigned; signed by
a key not in the metadata; wrong Audience, Recipient or Destination; expired; not yet valid;
replayed; signature wrapping (three ways); a comment cutting the ePPN short; an assertion for
another SP; an IdP the federation does not list; an XXE; an entity expansion.
"""
from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth.models import Group, User
from django.core.cache import cache
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client, override_settings

from archive.accounts import federation, saml
from archive.models import FederationMetadata, Identity
from tests import factories as make
from tests import saml_idp as stand_in

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_tasks")]

BASE = "https://repo.example.org"
SP = f"{BASE}/saml/metadata/"
ACS = f"{BASE}/saml/acs/"
IDP = "https://idp.uni.br/idp"
OTHER_IDP = "https://idp.ufscar.br/idp"
EVIL_IDP = "https://idp.evil.example/idp"
OTHER_SP = "https://other-sp.example.org/shibboleth"
STUDENT = {"eduPersonPrincipalName": ["ana@uni.br"], "mail": ["ana.silva@uni.br"],
           "cn": ["Ana Silva"], "eduPersonAffiliation": ["student"]}
GROUPS = {"student": ["Submitters"], "faculty": ["Submitters", "Reviewers"]}


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """Keys (made once for the module), this SP's settings, the federation's aggregates
    (good, expired, unsigned, signed by a stranger) and the identity providers."""
    folder = tmp_path_factory.mktemp("saml")
    keys = {name: stand_in.keypair(folder, name)
            for name in ("federation", "idp", "other_idp", "evil_idp", "stranger", "sp")}
    overrides = override_settings(
        IBI_SAML_BASE_URL=BASE, IBI_SAML_ENTITY_ID=SP, IBI_SAML_KEY=str(keys["sp"].key),
        IBI_SAML_CERT=str(keys["sp"].cert), IBI_SAML_METADATA_CERT=str(keys["federation"].cert),
        IBI_SAML_METADATA=str(folder / "good.xml"), IBI_SAML_AFFILIATION_GROUPS=GROUPS,
        IBI_SAML_IDENTIFIERS={OTHER_IDP: "subject-id"})
    overrides.enable()
    sp_metadata = saml.sp_metadata()
    other_sp_metadata = re.sub(r'entityID="[^"]+"', f'entityID="{OTHER_SP}"',
                               sp_metadata.replace(ACS, "https://other-sp.example.org/acs"))
    descriptors = [
        stand_in.idp_descriptor(IDP, keys["idp"], scope="uni.br",
                                names={"pt-br": "Universidade Exemplo", "en": "Example University"}),
        stand_in.idp_descriptor(OTHER_IDP, keys["other_idp"], scope="ufscar.br",
                                names={"pt-br": "Universidade Federal de São Carlos"}),
    ]
    soon = datetime.now(UTC) + timedelta(days=7)
    aggregates = {
        "good": stand_in.aggregate(descriptors, valid_until=soon, signer=keys["federation"],
                                   folder=folder, name="good"),
        "expired": stand_in.aggregate(descriptors[:1], valid_until=datetime.now(UTC)
                                      - timedelta(hours=1), signer=keys["federation"],
                                      folder=folder, name="expired"),
        "unsigned": stand_in.aggregate(descriptors[:1], valid_until=soon, signer=None,
                                       folder=folder, name="unsigned"),
        "stranger": stand_in.aggregate(descriptors[:1], valid_until=soon,
                                       signer=keys["stranger"], folder=folder, name="stranger"),
    }
    idps = {
        IDP: stand_in.IdentityProvider(IDP, keys["idp"], [sp_metadata, other_sp_metadata]),
        OTHER_IDP: stand_in.IdentityProvider(OTHER_IDP, keys["other_idp"], [sp_metadata]),
        EVIL_IDP: stand_in.IdentityProvider(EVIL_IDP, keys["evil_idp"], [sp_metadata]),
    }
    yield {"keys": keys, "aggregates": aggregates, "idps": idps, "folder": folder}
    overrides.disable()


@pytest.fixture
def federation_kept(world):
    """The good aggregate fetched and kept, and the cache of assertions seen empty."""
    cache.clear()
    Group.objects.get_or_create(name="Submitters")
    Group.objects.get_or_create(name="Reviewers")
    return federation.refresh()


class Browser:
    """A person's browser: off to the IdP from the discovery page's link, back with the
    IdP's answer (the stand-in's, or one an attacker made of it)."""

    def __init__(self, world) -> None:
        self.world, self.client = world, Client()

    def request_id(self, idp: str = IDP, next_path: str = "/submit/") -> str:
        answer = self.client.get("/saml/login/", {"idp": idp, "next": next_path}, secure=True)
        assert answer.status_code == 302, answer.content
        assert answer["Location"].startswith(f"{idp}/sso?SAMLRequest=")
        return self.world["idps"][idp].request_id(answer["Location"])

    def response(self, identity: dict = STUDENT, idp: str = IDP, **fields) -> str:
        fields.setdefault("destination", ACS)
        fields.setdefault("audience", SP)
        return self.world["idps"][idp].response(
            identity, in_response_to=fields.pop("in_response_to", None) or self.request_id(),
            **fields)

    def post(self, xml: str, relay_state: str = "/submit/"):
        return self.client.post("/saml/acs/", {"SAMLResponse": stand_in.encoded(xml),
                                               "RelayState": relay_state}, secure=True)


@pytest.fixture
def browser(world, federation_kept):
    return Browser(world)


def refused(answer, status: int = 403) -> str:
    """The refusal page: its status, a reference, nobody signed in."""
    page = answer.content.decode()
    assert answer.status_code == status, page[:2000]
    assert re.search(r"<strong>[0-9a-f]{12}</strong>", page)
    assert "_auth_user_id" not in answer.wsgi_request.session
    return page


def nothing_made() -> None:
    assert not User.objects.exists() and not Identity.objects.exists()


# --- The happy paths -----------------------------------------------------------------------

def test_a_student_signs_in_an_account_is_made_with_the_groups_of_her_affiliation(browser):
    answer = browser.post(browser.response())
    assert answer.status_code == 302 and answer["Location"] == "/submit/"
    user = User.objects.get()
    assert user.email == "ana.silva@uni.br" and user.is_active
    assert user.account.name == "Ana Silva" and user.account.email_verified_at is not None
    assert [g.name for g in user.groups.all()] == ["Submitters"]
    identity = Identity.objects.get()
    assert (identity.provider, identity.issuer, identity.subject) == ("saml", IDP, "ana@uni.br")
    assert int(browser.client.session["_auth_user_id"]) == user.pk
    assert browser.client.get("/accounts/", secure=True).status_code == 200

    # Next time, now faculty: the same account, the groups of what she is now.
    Browser.__init__(browser, browser.world)
    faculty = {**STUDENT, "eduPersonAffiliation": ["faculty"]}
    assert browser.post(browser.response(faculty)).status_code == 302
    assert User.objects.get() == user
    assert sorted(g.name for g in user.groups.all()) == ["Reviewers", "Submitters"]
