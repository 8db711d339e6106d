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
from urllib.parse import parse_qs, urlsplit

import pytest
import saml2
from django.contrib.auth.models import Group, User
from django.contrib.sessions.backends.db import SessionStore
from django.core.cache import cache
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client, override_settings
from saml2.saml import NAMEID_FORMAT_PERSISTENT, NameID
from saml2.xmldsig import SIG_RSA_SHA256

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
        stand_in.idp_descriptor(IDP, keys["idp"], scope="uni.br", names={
            "pt-br": "Universidade Exemplo", "en": "Example University"}),
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
        assert "SigAlg=http%3A%2F%2Fwww.w3.org%2F2001%2F04%2Fxmldsig-more%23rsa-sha256" in (
            answer["Location"])  # this SP signs its requests, in SHA-256
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
def visitor(world, federation_kept):
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

def test_a_student_signs_in_an_account_is_made_with_the_groups_of_her_affiliation(visitor):
    request_id = visitor.request_id()
    # The request's ID waits in the SameSite=None session, which the IdP's POST brings back.
    assert visitor.client.cookies["saml_session"]["samesite"] == "None"
    visitor.client.cookies.pop("sessionid", None)
    answer = visitor.post(visitor.response(in_response_to=request_id))
    assert answer.status_code == 302 and answer["Location"] == "/submit/"
    user = User.objects.get()
    assert user.email == "ana.silva@uni.br" and user.is_active
    assert user.account.name == "Ana Silva" and user.account.email_verified_at is not None
    assert [g.name for g in user.groups.all()] == ["Submitters"]
    identity = Identity.objects.get()
    assert (identity.provider, identity.issuer, identity.subject) == ("saml", IDP, "ana@uni.br")
    assert int(visitor.client.session["_auth_user_id"]) == user.pk
    assert visitor.client.get("/accounts/", secure=True).status_code == 200

    # Next time, now faculty: the same account, the groups of what she is now.
    Browser.__init__(visitor, visitor.world)
    faculty = {**STUDENT, "eduPersonAffiliation": ["faculty"]}
    assert visitor.post(visitor.response(faculty)).status_code == 302
    assert User.objects.get() == user
    assert sorted(g.name for g in user.groups.all()) == ["Reviewers", "Submitters"]


def test_a_response_signed_as_a_whole_is_taken_and_a_change_under_its_signature_is_not(
        visitor):
    """Shibboleth signs the Response, not the assertion, by default."""
    signed = visitor.response(sign=False, sign_response=True)
    refused(visitor.post(signed.replace("ana@uni.br", "reitor@uni.br")))
    nothing_made()
    Browser.__init__(visitor, visitor.world)
    assert visitor.post(visitor.response(sign=False, sign_response=True)).status_code == 302
    assert Identity.objects.get().subject == "ana@uni.br"


def test_an_assertion_encrypted_for_this_sp_is_read(visitor, world):
    """Shibboleth's way with an SP whose metadata has a certificate: the response signed,
    the assertion encrypted for the SP."""
    xml = visitor.response(sign=False, sign_response=True, encrypt_for=world["keys"]["sp"])
    assert "EncryptedAssertion" in xml and "ana@uni.br" not in xml
    assert visitor.post(xml).status_code == 302
    assert Identity.objects.get().subject == "ana@uni.br"


def test_an_account_staff_disabled_is_refused_and_keeps_its_groups(visitor):
    assert visitor.post(visitor.response()).status_code == 302
    User.objects.update(is_active=False)  # staff disabled it
    Browser.__init__(visitor, visitor.world)
    faculty = {**STUDENT, "eduPersonAffiliation": ["faculty"]}
    refused(visitor.post(visitor.response(faculty)))
    assert [g.name for g in User.objects.get().groups.all()] == ["Submitters"]


def test_cafes_breduaffiliationtype_maps_to_groups_too(visitor):
    identity = {**STUDENT, "eduPersonAffiliation": [], "brEduAffiliationType": ["faculty"]}
    assert visitor.post(visitor.response(identity)).status_code == 302
    assert sorted(g.name for g in User.objects.get().groups.all()) == ["Reviewers", "Submitters"]


def test_an_account_with_the_address_the_institution_vouches_for_is_linked(visitor):
    mine = make.account("ana.silva@uni.br", name="Ana S.")
    assert visitor.post(visitor.response()).status_code == 302
    assert User.objects.get() == mine and Identity.objects.get().user == mine


def test_an_address_outside_the_institutions_scope_links_nothing(visitor):
    """An IdP speaks for its own scopes only (shibmd:Scope): uni.br cannot take over the
    account of an address at another university."""
    theirs = make.account("bruno@ufscar.br", name="Bruno")
    outside = {**STUDENT, "mail": ["bruno@ufscar.br"]}
    page = refused(visitor.post(visitor.response(outside)), status=409)
    assert "account has this address" in page
    assert list(User.objects.all()) == [theirs] and not Identity.objects.exists()


def test_the_identifying_attribute_is_the_one_configured_for_the_idp(visitor):
    identity = {"subject-id": ["8f2a@ufscar.br"], "mail": ["carla@ufscar.br"],
                "cn": ["Carla"], "eduPersonPrincipalName": ["carla@ufscar.br"]}
    xml = visitor.response(identity, idp=OTHER_IDP,
                           in_response_to=visitor.request_id(OTHER_IDP))
    assert visitor.post(xml).status_code == 302
    assert Identity.objects.get().subject == "8f2a@ufscar.br"


def test_an_idp_that_releases_too_little_gets_a_page_naming_what_is_missing(visitor):
    page = refused(visitor.post(visitor.response({"cn": ["Ana"], "mail": ["a@uni.br"]})))
    assert "<code>eduPersonPrincipalName</code>" in page and "<code>mail</code>" not in page
    nothing_made()
    # …in Portuguese for a Brazilian visitor.
    visitor.client.cookies["django_language"] = "pt-br"
    page = refused(visitor.post(visitor.response({"cn": ["Ana"]})))
    assert "<code>eduPersonPrincipalName</code>" in page and "<code>mail</code>" in page
    assert "Sua instituição não liberou" in page
    nothing_made()


# --- The hostile catalogue: none of these signs anyone in ---------------------------------

def test_an_unsigned_assertion_is_refused(visitor):
    refused(visitor.post(visitor.response(sign=False)))
    nothing_made()


def test_an_assertion_signed_by_a_key_not_in_the_metadata_is_refused(visitor, world):
    xml = stand_in.sign_assertion(visitor.response(), world["keys"]["stranger"])
    refused(visitor.post(xml))
    nothing_made()


@pytest.mark.parametrize("change", [
    (r"(<(?:\w+:)?Audience>)[^<]+", rf"\g<1>{OTHER_SP}"),
    (r'Recipient="[^"]+"', 'Recipient="https://evil.example/acs/"'),
], ids=["audience", "recipient"])
def test_a_signed_assertion_for_another_audience_or_recipient_is_refused(visitor, world,
                                                                          change):
    """The IdP's own signature over the changed assertion: only the value is wrong."""
    tampered = re.sub(change[0], change[1], visitor.response(), count=1)
    xml = stand_in.sign_assertion(tampered, world["keys"]["idp"])
    refused(visitor.post(xml))
    nothing_made()


def test_a_response_to_another_destination_is_refused(visitor):
    refused(visitor.post(visitor.response(destination="https://evil.example/acs/")))
    nothing_made()


def test_an_assertion_for_another_sp_is_refused(visitor):
    refused(visitor.post(visitor.response(audience=OTHER_SP,
                                          destination="https://other-sp.example.org/acs")))
    nothing_made()


def _times(xml: str, moved: timedelta) -> str:
    def move(match):
        when = datetime.strptime(match.group(2)[:19] + "+0000", "%Y-%m-%dT%H:%M:%S%z") + moved
        return f'{match.group(1)}="{when:%Y-%m-%dT%H:%M:%SZ}"'
    return re.sub(r'(IssueInstant|NotBefore|NotOnOrAfter|AuthnInstant|SessionNotOnOrAfter)'
                  r'="([^"]+)"', move, xml)


@pytest.mark.parametrize("moved", [timedelta(hours=-2), timedelta(hours=2)],
                         ids=["expired", "not-yet-valid"])
def test_an_assertion_outside_its_validity_is_refused(visitor, world, moved):
    xml = stand_in.sign_assertion(_times(visitor.response(), moved), world["keys"]["idp"])
    refused(visitor.post(xml))
    nothing_made()


def test_a_replayed_assertion_is_refused_even_when_its_request_is_outstanding(visitor):
    request_id = visitor.request_id()
    xml = visitor.response(in_response_to=request_id)
    assert visitor.post(xml).status_code == 302
    # Played again in a session that (somehow) still waits for that request: the assertion's
    # ID, remembered in the shared cache, refuses it.
    thief = Browser(visitor.world)
    session = SessionStore()
    session["_saml2_outstanding_queries"] = {request_id: "/"}
    session.save()
    thief.client.cookies["saml_session"] = session.session_key
    page = refused(thief.post(xml))
    assert "used already" in page
    assert User.objects.count() == 1


def _evil(xml: str) -> str:
    """The assertion with another person's ePPN, its signature left as it was."""
    return xml.replace("ana@uni.br", "reitor@uni.br")


def test_signature_wrapping_a_forged_assertion_beside_the_signed_one_is_refused(visitor):
    xml = visitor.response()
    signed = re.search(r"<(\w+:)?Assertion .*</(\w+:)?Assertion>", xml, re.S).group(0)
    forged = _evil(signed).replace('ID="', 'ID="forged-', 1)
    refused(visitor.post(xml.replace(signed, forged + signed)))
    nothing_made()


def test_signature_wrapping_the_signed_assertion_hidden_in_the_forged_one_is_refused(visitor):
    xml = visitor.response()
    signed = re.search(r"<(\w+:)?Assertion .*</(\w+:)?Assertion>", xml, re.S).group(0)
    forged = _evil(signed)
    forged = re.sub(r"<(\w+:)?Signature.*</(\w+:)?Signature>", "", forged, flags=re.S)
    hidden = re.sub(r"(</(\w+:)?Issuer>)", lambda m: f"{m.group(1)}<{m.group(2)}Advice>"
                    f"{signed}</{m.group(2)}Advice>", forged, count=1)
    refused(visitor.post(xml.replace(signed, hidden)))
    nothing_made()


def test_signature_wrapping_the_forged_assertion_in_the_extensions_is_refused(visitor):
    xml = visitor.response()
    signed = re.search(r"<(\w+:)?Assertion .*</(\w+:)?Assertion>", xml, re.S).group(0)
    forged = re.sub(r"<(\w+:)?Signature.*</(\w+:)?Signature>", "", _evil(signed), flags=re.S)
    wrapped = re.sub(r"(</(\w+:)?Issuer>)", lambda m: f"{m.group(1)}<ns0:Extensions>"
                     f"{forged}</ns0:Extensions>", xml, count=1)
    refused(visitor.post(wrapped))
    nothing_made()


def test_a_comment_inside_the_eppn_is_refused(visitor, world):
    """The IdP signs `ana@uni.br.evil` (the attacker's own); a comment leaves the signature
    whole (c14n drops it) and would read as ana@uni.br to a parser that stops at it."""
    mine = make.account("ana.silva@uni.br")
    evil = {**STUDENT, "eduPersonPrincipalName": ["ana@uni.br.evil"], "mail": ["x@uni.br"]}
    xml = visitor.response(evil).replace("ana@uni.br.evil", "ana@uni.br<!-- -->.evil")
    refused(visitor.post(xml))
    assert list(User.objects.all()) == [mine] and not Identity.objects.exists()


def test_an_idp_the_federation_does_not_list_is_refused(visitor):
    refused(visitor.post(visitor.response(idp=EVIL_IDP)))
    nothing_made()
    refused(visitor.client.get("/saml/login/", {"idp": EVIL_IDP}, secure=True), status=400)


@pytest.mark.parametrize("doctype", [
    '<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>',
    '<!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
    '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>',
], ids=["xxe", "entity-expansion"])
def test_a_doctype_is_refused(visitor, doctype):
    xml = visitor.response()
    xml = re.sub(r"^(<\?xml[^>]*\?>)?", lambda m: (m.group(0) or "") + doctype, xml, count=1)
    xml = xml.replace("ana@uni.br", "&x;" if "SYSTEM" in doctype else "&c;", 1)
    refused(visitor.post(xml))
    nothing_made()


def test_garbage_is_refused_with_a_page_never_a_500(visitor):
    for value in ("", "not base64 !", stand_in.encoded("<a>"), "A" * 400_000):
        answer = visitor.client.post("/saml/acs/", {"SAMLResponse": value}, secure=True)
        refused(answer)
    nothing_made()


def test_a_response_nobody_asked_for_is_refused(visitor, world):
    xml = world["idps"][IDP].response(STUDENT, in_response_to="never-asked", destination=ACS,
                                      audience=SP)
    refused(visitor.post(xml))
    nothing_made()


# --- The federation's aggregate ------------------------------------------------------------

@pytest.mark.parametrize("bad", ["expired", "unsigned", "stranger"])
def test_a_refused_aggregate_keeps_the_last_good_one(world, federation_kept, settings, bad):
    settings.IBI_SAML_METADATA = str(world["aggregates"][bad])
    with pytest.raises(federation.AggregateRefused):
        federation.refresh()
    assert FederationMetadata.objects.get().sha256 == federation_kept.sha256
    assert len(federation.current().providers) == 2
    # The command says why and fails; the beat's task returns False; neither changes a thing.
    with pytest.raises(CommandError, match="refused"):
        call_command("refreshsamlmetadata")
    from archive.accounts import tasks
    assert tasks.refresh_saml_metadata.delay().get() is False
    assert FederationMetadata.objects.get().sha256 == federation_kept.sha256


def test_an_aggregate_changed_after_signing_or_with_a_doctype_is_refused(world, tmp_path):
    good = world["aggregates"]["good"].read_bytes()
    cert = str(world["keys"]["federation"].cert)
    assert federation.check_aggregate(good, cert_file=cert).providers[0]["scopes"] == ["uni.br"]
    for bad in (good.replace(b"idp.uni.br", b"idp.evil.br"),
                good.replace(b"?>", b'?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>',
                             1),
                # Signed, but the signature's reference names another element than the root.
                good.replace(b'URI="#fed-good"', b'URI="#other"')):
        with pytest.raises(federation.AggregateRefused):
            federation.check_aggregate(bad, cert_file=cert)


def test_the_command_keeps_a_good_aggregate_and_says_so(world, capsys):
    call_command("refreshsamlmetadata")
    assert "2 identity providers" in capsys.readouterr().out
    assert FederationMetadata.objects.count() == 1


def test_with_the_aggregate_expired_nobody_signs_in(visitor):
    request_id = visitor.request_id()
    FederationMetadata.objects.update(valid_until=datetime.now(UTC) - timedelta(minutes=1))
    refused(visitor.post(visitor.response(in_response_to=request_id)), status=404)
    nothing_made()
    page = visitor.client.get("/saml/", secure=True).content.decode()
    assert "not available now" in page


# --- The pages ---------------------------------------------------------------------------

def test_the_sp_metadata_names_the_acs_the_logout_service_and_the_keys(client, world):
    answer = client.get("/saml/metadata/", secure=True)
    assert answer.status_code == 200
    assert answer["Content-Type"] == "application/samlmetadata+xml"
    xml = answer.content.decode()
    assert f'entityID="{SP}"' in xml and f'Location="{ACS}"' in xml
    assert f'Location="{BASE}/saml/sls/"' in xml
    assert world["keys"]["sp"].cert_base64[:60] in xml.replace("\n", "")


def test_the_sp_metadata_names_the_organization_and_contacts_the_federation_asks_for(
        client, world, settings):
    """What CAFe's registry reads: the organization in pt-BR and English, a technical and a
    support contact; read back with pysaml2's own metadata parser."""
    from saml2.mdstore import InMemoryMetaData

    settings.IBI_SAML_ORGANIZATION = {
        "pt-br": {"name": "UFX", "display_name": "Universidade Federal X",
                  "url": "https://www.ufx.br/"},
        "en": {"name": "UFX", "display_name": "Federal University X",
               "url": "https://www.ufx.br/en/"}}
    settings.IBI_SAML_CONTACTS = [
        {"type": "technical", "name": "Equipe do repositório", "email": "ti@ufx.br"},
        {"type": "support", "name": "Biblioteca", "email": "repositorio@ufx.br"}]
    store = InMemoryMetaData(None)
    store.parse(client.get("/saml/metadata/", secure=True).content.decode())
    entity = store[SP]
    texts = {key: sorted((v["lang"], v["text"]) for v in entity["organization"][key])
             for key in ("organization_name", "organization_display_name",
                         "organization_url")}
    assert texts == {
        "organization_name": [("en", "UFX"), ("pt-br", "UFX")],
        "organization_display_name": [("en", "Federal University X"),
                                      ("pt-br", "Universidade Federal X")],
        "organization_url": [("en", "https://www.ufx.br/en/"), ("pt-br", "https://www.ufx.br/")]}
    assert sorted((c["contact_type"], c["given_name"]["text"], c["email_address"][0]["text"])
                  for c in entity["contact_person"]) == [
        ("support", "Biblioteca", "mailto:repositorio@ufx.br"),
        ("technical", "Equipe do repositório", "mailto:ti@ufx.br")]


def test_the_discovery_page_lists_and_searches_the_federations_institutions(visitor):
    visitor.client.cookies["django_language"] = "pt-br"
    page = visitor.client.get("/saml/", {"next": "/submit/"}, secure=True).content.decode()
    assert page.index("Universidade Exemplo") < page.index("Universidade Federal de São Carlos")
    assert "idp=https%3A%2F%2Fidp.uni.br%2Fidp&amp;next=%2Fsubmit%2F" in page
    found = visitor.client.get("/saml/", {"q": "sao carlos"}, secure=True).content.decode()
    assert "São Carlos" in found and "Universidade Exemplo" not in found
    visitor.client.cookies["django_language"] = "en"
    english = visitor.client.get("/saml/", secure=True).content.decode()
    assert "Example University" in english
    login = visitor.client.get("/accounts/login/", {"next": "/submit/"}, secure=True)
    assert '/saml/?next=%2Fsubmit%2F"' in login.content.decode()


def test_next_never_leads_to_another_site(visitor):
    request_id = visitor.request_id(next_path="https://evil.example/")
    answer = visitor.post(visitor.response(in_response_to=request_id),
                          relay_state="https://evil.example/")
    assert answer.status_code == 302 and answer["Location"] == "/accounts/"


def test_single_logout_goes_to_the_idp_and_its_answer_signs_out(visitor, world):
    assert visitor.post(visitor.response()).status_code == 302
    account = visitor.client.get("/accounts/", secure=True).content.decode()
    assert '<form method="post" action="/saml/logout/"' in account
    answer = visitor.client.post("/saml/logout/", secure=True)
    assert answer.status_code == 302 and answer["Location"].startswith(f"{IDP}/slo?")
    assert "_auth_user_id" not in visitor.client.session
    # The IdP's answer comes back cross-site: what reads it is in the SameSite=None session.
    cookie = visitor.client.cookies["saml_session"]
    assert cookie["samesite"] == "None"
    # The IdP reads our request and answers it; the answer is taken.
    server = world["idps"][IDP].server
    query = {k: v[0] for k, v in parse_qs(urlsplit(answer["Location"]).query,
                                          keep_blank_values=True).items()}
    assert query["SigAlg"] == SIG_RSA_SHA256  # signed by this SP, which the IdP checks
    request = server.parse_logout_request(query["SAMLRequest"], saml2.BINDING_HTTP_REDIRECT,
                                          relay_state=query.get("RelayState"),
                                          sigalg=query["SigAlg"], signature=query["Signature"])
    reply = server.create_logout_response(request.message, [saml2.BINDING_HTTP_REDIRECT])
    info = server.apply_binding(saml2.BINDING_HTTP_REDIRECT, reply, f"{BASE}/saml/sls/",
                                response=True)
    back = urlsplit(dict(info["headers"])["Location"])
    done = visitor.client.get("/saml/sls/?" + back.query, secure=True)
    assert done.status_code == 302 and done["Location"] == "/"
    # A logout request nobody signed is refused, with a page.
    refused(visitor.client.get("/saml/sls/", {"SAMLRequest": "bm9uZQ=="}, secure=True))


def test_the_system_checks_name_what_institutional_login_lacks(world, settings):
    from archive.checks import saml_settings
    assert saml_settings(None) == []  # the module's settings: all there
    settings.IBI_SAML_METADATA_CERT = ""
    settings.XMLSEC1 = "/nonexistent/xmlsec1"
    settings.IBI_SAML_IDENTIFIERS = {IDP: "mail"}
    settings.IBI_SAML_CONTACTS = [{"type": "technical", "name": "Equipe"}]  # no address
    settings.IBI_SAML_MDQ, settings.IBI_SAML_MDQ_CERT = "https://mdq.example.org", ""
    assert [error.id for error in saml_settings(None)] == [
        "archive.E101", "archive.E102", "archive.E105", "archive.E103", "archive.E104"]
    settings.IBI_SAML_METADATA = ""
    # SAML off: the contacts are still published at /saml/metadata/, so still checked.
    assert [error.id for error in saml_settings(None)] == ["archive.E104"]
    settings.IBI_SAML_CONTACTS = []
    assert saml_settings(None) == []


def test_the_idp_may_end_the_session_here_with_a_signed_logout_request(visitor, world):
    assert visitor.post(visitor.response()).status_code == 302
    server = world["idps"][IDP].server
    name_id = NameID(format=NAMEID_FORMAT_PERSISTENT, text="opaque-1", sp_name_qualifier=SP,
                     name_qualifier=IDP)
    request_id, request = server.create_logout_request(f"{BASE}/saml/sls/", SP,
                                                       name_id=name_id, sign=False)
    info = server.apply_binding(saml2.BINDING_HTTP_REDIRECT, str(request), f"{BASE}/saml/sls/",
                                sign=True, sigalg=SIG_RSA_SHA256)
    query = urlsplit(dict(info["headers"])["Location"]).query
    assert "&Signature=" in query
    answer = visitor.client.get("/saml/sls/?" + query, secure=True)
    assert answer.status_code == 302 and answer["Location"].startswith(f"{IDP}/slo?")
    assert "_auth_user_id" not in visitor.client.session


def test_an_unsigned_logout_request_ends_nothing(visitor, world):
    assert visitor.post(visitor.response()).status_code == 302
    server = world["idps"][IDP].server
    name_id = NameID(format=NAMEID_FORMAT_PERSISTENT, text="opaque-1", sp_name_qualifier=SP,
                     name_qualifier=IDP)
    request_id, request = server.create_logout_request(f"{BASE}/saml/sls/", SP,
                                                       name_id=name_id, sign=False)
    info = server.apply_binding(saml2.BINDING_HTTP_REDIRECT, str(request), f"{BASE}/saml/sls/",
                                sign=False)
    query = urlsplit(dict(info["headers"])["Location"]).query
    answer = visitor.client.get("/saml/sls/?" + query, secure=True)
    assert answer.status_code == 403 and re.search(r"<strong>[0-9a-f]{12}</strong>",
                                                   answer.content.decode())
    assert "_auth_user_id" in visitor.client.session


def test_metadata_the_settings_cannot_make_is_a_503_saying_why_not_a_500(client, settings):
    """The organization published in the metadata, set wrong (here while SAML is off): the
    metadata URL says why (503), and `manage.py check` too (archive.E104)."""
    from django.core.checks import run_checks

    settings.IBI_SAML_ORGANIZATION = '{"pt-br": {"name": "UFRGS"}}'  # no display name, no URL
    answer = client.get("/saml/metadata/", secure=True)
    assert answer.status_code == 503
    assert "metadata cannot be made" in answer.content.decode()
    assert "archive.E104" in {error.id for error in run_checks()}
