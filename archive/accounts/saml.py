"""Signing in through a SAML 2.0 identity provider of the federation (issue 36, 1): this
service provider's configuration (pysaml2, which signs and verifies through Debian's
`xmlsec1`; djangosaml2's session caches), the request sent to the provider, and the checks
of the response it sends back before anyone is signed in.

A response is taken only when every check below passes; each failure is a `Refusal` whose
message the page shows with a reference, and nothing is created:

1. the XML, before pysaml2 reads it (federation.parse_strict): no DOCTYPE (XXE, entity
   expansion), no comment (`user@uni.br<!-- -->.evil`), no processing instruction; one
   assertion, not two (a signature-wrapping response smuggles a second one in);
2. pysaml2: the assertion or the whole response signed by a key its issuer's metadata in the
   last good aggregate names, for this entityID (Audience), to this ACS (Recipient,
   Destination), within its validity, in response to a request this session sent (no
   unsolicited response);
3. an assertion ID not seen before within its validity (the shared cache remembers them);
4. the attributes this site needs released (`MissingAttributes` names those that were not):
   the identifying attribute chosen for the provider (IBI_SAML_IDENTIFIERS: ePPN by default,
   subject-id or pairwise-id) and mail.

Then `services.sign_in_external` links or makes the account (a mail is vouched for only within
the scopes the federation registered for the provider, so no provider speaks for another's
addresses), and the groups of the affiliations released (IBI_SAML_AFFILIATION_GROUPS) are the
person's among the groups that mapping names.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import logging
import unicodedata
from dataclasses import dataclass
from datetime import datetime

import saml2
import saml2.ident
from django.conf import settings
from django.contrib.auth.models import Group
from django.core.cache import cache
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy
from djangosaml2.cache import IdentityCache, OutstandingQueriesCache, StateCache
from saml2 import SAMLError
from saml2.client import Saml2Client
from saml2.client_base import LogoutError
from saml2.config import SPConfig
from saml2.metadata import entity_descriptor
from saml2.s_utils import UnsupportedBinding
from saml2.saml import NAMEID_FORMAT_PERSISTENT, NAMEID_FORMAT_TRANSIENT
from saml2.xmldsig import DIGEST_SHA256, SIG_RSA_SHA256

from ..models import FederationMetadata, Identity
from ..refusals import Forbidden, NotFound, Refusal
from . import federation, mdq, services

logger = logging.getLogger(__name__)

MAX_RESPONSE = 256 * 1024
SAML_NS = "urn:oasis:names:tc:SAML:2.0:assertion"
ASSERTION = f"{{{SAML_NS}}}Assertion"
ENCRYPTED_ASSERTION = "{urn:oasis:names:tc:SAML:2.0:assertion}EncryptedAssertion"

EPPN, SUBJECT_ID, PAIRWISE_ID = "eduPersonPrincipalName", "subject-id", "pairwise-id"
IDENTIFIERS = (EPPN, SUBJECT_ID, PAIRWISE_ID)
# Attributes by their SAML names and friendly names → the names used here.
ATTRIBUTES = {
    "urn:oid:1.3.6.1.4.1.5923.1.1.1.6": EPPN,
    "urn:oasis:names:tc:SAML:attribute:subject-id": SUBJECT_ID,
    "urn:oasis:names:tc:SAML:attribute:pairwise-id": PAIRWISE_ID,
    "urn:oid:0.9.2342.19200300.100.1.3": "mail",
    "urn:oid:2.5.4.3": "cn",
    "urn:oid:2.16.840.1.113730.3.1.241": "displayName",
    "urn:oid:2.5.4.42": "givenName",
    "urn:oid:2.5.4.4": "sn",
    "urn:oid:1.3.6.1.4.1.5923.1.1.1.1": "eduPersonAffiliation",
}
KNOWN = {*IDENTIFIERS, "mail", "cn", "displayName", "givenName", "sn",
         "eduPersonAffiliation", "brEduAffiliationType"}
AFFILIATIONS = ("brEduAffiliationType", "eduPersonAffiliation")


class SamlUnavailable(NotFound):
    message = gettext_lazy("institutional login is not available now: the federation's "
                           "metadata is missing or expired")


class UnknownProvider(Refusal):
    message = gettext_lazy("this institution is not in the federation")


class ResponseRefused(Forbidden):
    """The answer fails a check; `detail` (English, for the log) says which."""

    message = gettext_lazy("the institution's answer was not accepted")

    def __init__(self, detail: str = "") -> None:
        super().__init__()
        self.detail = detail


class Replayed(ResponseRefused):
    message = gettext_lazy("this answer of the institution was used already")


class MissingAttributes(Forbidden):
    """The provider did not release what this site needs; `missing` names it."""

    message = gettext_lazy("your institution did not release what this site needs")

    def __init__(self, missing: list[str]) -> None:
        super().__init__()
        self.missing = missing


# --- Configuration -------------------------------------------------------------------------

def acs_url() -> str:
    return settings.IBI_SAML_BASE_URL + reverse("archive:saml_acs")


def sls_url() -> str:
    return settings.IBI_SAML_BASE_URL + reverse("archive:saml_sls")


ORGANIZATION_PARTS = ("name", "display_name", "url")
CONTACT_TYPES = ("technical", "support", "administrative", "billing", "other")


def organization(value: object) -> dict:
    """IBI_SAML_ORGANIZATION as pysaml2's `organization`: each of name, display name and URL
    in every language given; ImproperlyConfigured unless each language gives all three.

    >>> organization({"en": {"name": "UFX", "display_name": "X", "url": "https://x.br/"}})
    {'name': [('UFX', 'en')], 'display_name': [('X', 'en')], 'url': [('https://x.br/', 'en')]}
    """
    if not isinstance(value, dict) or not all(
            isinstance(parts, dict) and all(isinstance(parts.get(key), str) and parts[key]
                                            for key in ORGANIZATION_PARTS)
            for parts in value.values()):
        raise ImproperlyConfigured(
            'IBI_SAML_ORGANIZATION: {"<language>": {"name": …, "display_name": …, "url": …}}')
    return {key: [(parts[key], language.lower()) for language, parts in value.items()]
            for key in ORGANIZATION_PARTS} if value else {}


def contacts(value: object) -> list[dict]:
    """IBI_SAML_CONTACTS as pysaml2's `contact_person`; ImproperlyConfigured unless each has
    a type of SAML's, a name and an e-mail address.

    >>> contacts([{"type": "support", "name": "Library", "email": "a@x.br"}])
    [{'contact_type': 'support', 'given_name': 'Library', 'email_address': ['mailto:a@x.br']}]
    """
    if not isinstance(value, list) or not all(
            isinstance(c, dict) and c.get("type") in CONTACT_TYPES and isinstance(
                c.get("name"), str) and c["name"] and isinstance(c.get("email"), str)
            and "@" in c["email"] for c in value):
        raise ImproperlyConfigured(
            'IBI_SAML_CONTACTS: [{"type": "technical" | "support" | …, "name": …, "email": …}]')
    return [{"contact_type": c["type"], "given_name": c["name"],
             "email_address": [f"mailto:{c['email']}"]} for c in value]


def _settings(metadata: FederationMetadata | mdq.Entity | None) -> dict:
    config = {
        "entityid": settings.IBI_SAML_ENTITY_ID,
        "xmlsec_binary": settings.XMLSEC1,
        "crypto_backend": "xmlsec1",
        "allow_unknown_attributes": True,
        "accepted_time_diff": 60,
        # What this SP signs (its requests), in SHA-256: pysaml2's default is still SHA-1.
        "signing_algorithm": SIG_RSA_SHA256,
        "digest_algorithm": DIGEST_SHA256,
        "service": {"sp": {
            "name": "IBI repository",
            "endpoints": {
                "assertion_consumer_service": [(acs_url(), saml2.BINDING_HTTP_POST)],
                "single_logout_service": [(sls_url(), saml2.BINDING_HTTP_REDIRECT),
                                          (sls_url(), saml2.BINDING_HTTP_POST)],
            },
            "allow_unsolicited": False,
            # Shibboleth, CAFe's IdP, signs the Response by default, others the assertion:
            # one of the two, by a key of the issuer's metadata (a wrapped second assertion
            # is refused before: `precheck`).
            "want_assertions_signed": False,
            "want_response_signed": False,
            "want_assertions_or_response_signed": True,
            "authn_requests_signed": bool(settings.IBI_SAML_KEY),
            "logout_requests_signed": bool(settings.IBI_SAML_KEY),
            "name_id_format": [NAMEID_FORMAT_PERSISTENT, NAMEID_FORMAT_TRANSIENT],
            "required_attributes": [EPPN, "mail"],
            "optional_attributes": [SUBJECT_ID, PAIRWISE_ID, "cn", "displayName",
                                    "givenName", "sn", "eduPersonAffiliation"],
        }},
        "metadata": {"inline": [metadata.xml]} if metadata is not None else {},
        "contact_person": contacts(settings.IBI_SAML_CONTACTS),
    }
    if settings.IBI_SAML_ORGANIZATION:
        config["organization"] = organization(settings.IBI_SAML_ORGANIZATION)
    if settings.IBI_SAML_KEY and settings.IBI_SAML_CERT:
        config.update(key_file=settings.IBI_SAML_KEY, cert_file=settings.IBI_SAML_CERT,
                      encryption_keypairs=[{"key_file": settings.IBI_SAML_KEY,
                                            "cert_file": settings.IBI_SAML_CERT}])
    return config


_configs: dict[str, SPConfig] = {}  # a few: with the aggregate, without (the SP's metadata)


def sp_config(metadata: FederationMetadata | mdq.Entity | None) -> SPConfig:
    """The SP's pysaml2 configuration over `metadata` (parsed once per process per
    aggregate and settings: a federation's aggregate takes a while)."""
    key = hashlib.sha256(repr((metadata.sha256 if metadata else "", settings.IBI_SAML_ENTITY_ID,
                               settings.IBI_SAML_BASE_URL, settings.IBI_SAML_KEY,
                               settings.IBI_SAML_CERT, settings.IBI_SAML_ORGANIZATION,
                               settings.IBI_SAML_CONTACTS)).encode()).hexdigest()
    if key not in _configs:
        if len(_configs) >= 4:
            _configs.clear()
        config = SPConfig().load(_settings(metadata))
        # pysaml2 asks whether a request *received* must be signed of its IdP settings only
        # (Entity._parse_request); an SP receives one kind, the IdP's LogoutRequest, and
        # takes none unsigned: anyone could sign a person out here otherwise.
        config._idp_want_authn_requests_signed = True
        _configs[key] = config
    return _configs[key]


def sp_metadata() -> str:
    """This service provider's metadata, for the federation's registry."""
    return str(entity_descriptor(sp_config(None)))


def usable_metadata() -> FederationMetadata:
    metadata = federation.current()
    if metadata is None:
        raise SamlUnavailable()
    return metadata


def providers(query: str = "", language: str = "en") -> list[tuple[str, str]]:
    """(entityID, display name in `language`, else English, else any) of the aggregate's
    identity providers whose name holds `query` (any case, any accent), by name."""
    metadata = federation.current()
    if metadata is None:
        return []
    wanted = _folded(query)
    found = []
    for provider in metadata.providers:
        names = provider["names"]
        lang = language.lower()
        name = (names.get(lang) or names.get(lang.split("-")[0]) or names.get("en")
                or next(iter(names.values()), provider["entity_id"]))
        if wanted in _folded(name) or wanted in _folded(" ".join(names.values())):
            found.append((provider["entity_id"], name))
    return sorted(found, key=lambda pair: _folded(pair[1]))


def _folded(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text.casefold())
                   if not unicodedata.combining(c))


def _provider(metadata: FederationMetadata, entity_id: str) -> dict:
    for provider in metadata.providers:
        if provider["entity_id"] == entity_id:
            return provider
    raise UnknownProvider()


def _of_provider(metadata: FederationMetadata,
                 entity_id: str) -> tuple[FederationMetadata | mdq.Entity, dict]:
    """(what pysaml2 reads, the provider) for talking to `entity_id`, one the federation
    lists: with IBI_SAML_MDQ, its own entity asked of the MDQ service (archive/accounts/mdq.py;
    SamlUnavailable when there is no good one); else the aggregate."""
    provider = _provider(metadata, entity_id)
    if not settings.IBI_SAML_MDQ:
        return metadata, provider
    try:
        entity = mdq.entity(entity_id)
    except federation.AggregateRefused:
        raise SamlUnavailable() from None
    return entity, entity.provider


def _issuer(root) -> str:
    """The issuer a response names (of the response, else of its assertion): which metadata
    to check it with, nothing more; pysaml2 then checks it was signed by that issuer's key."""
    for path in (f"{{{SAML_NS}}}Issuer", f"{ASSERTION}/{{{SAML_NS}}}Issuer"):
        found = root.find(path)
        if found is not None and (found.text or "").strip():
            return found.text.strip()
    raise ResponseRefused("no issuer")


# --- The request -------------------------------------------------------------------------

def begin(*, entity_id: str, relay_state: str, session) -> str:
    """The URL that sends the person to `entity_id` with an authentication request; the
    request's ID is remembered in `session` (djangosaml2's OutstandingQueriesCache)."""
    metadata, _found = _of_provider(usable_metadata(), entity_id)
    client = Saml2Client(sp_config(metadata))
    request_id, info = client.prepare_for_authenticate(
        entityid=entity_id, relay_state=relay_state, binding=saml2.BINDING_HTTP_REDIRECT,
        sign=bool(settings.IBI_SAML_KEY), sigalg=SIG_RSA_SHA256)
    queries = OutstandingQueriesCache(session)
    queries.set(request_id, relay_state)
    queries.sync()
    return dict(info["headers"])["Location"]


# --- The response ------------------------------------------------------------------------

@dataclass(frozen=True)
class SignedIn:
    user: object
    name_id: str  # for single logout, as saml2.ident.code writes it
    issuer: str  # the identity provider, whose metadata single logout needs
    next: str  # where the person was going when the request was sent


def _decoded(saml_response: str) -> bytes:
    if len(saml_response) > MAX_RESPONSE:
        raise ResponseRefused("the response is too large")
    try:
        return base64.b64decode(saml_response, validate=False)
    except (binascii.Error, ValueError):
        raise ResponseRefused("the response is not base64") from None


def precheck(xml: bytes):
    """The root of `xml`, or ResponseRefused unless it is plain XML with one assertion
    (module docstring, 1)."""
    try:
        root = federation.parse_strict(xml, comments=False)
    except federation.UnsafeXml as exc:
        raise ResponseRefused(str(exc)) from None
    assertions = [*root.iter(ASSERTION), *root.iter(ENCRYPTED_ASSERTION)]
    if len(assertions) != 1:
        raise ResponseRefused(f"the response holds {len(assertions)} assertions, not one")
    return root


def canonical_attributes(assertion) -> dict[str, list[str]]:
    """The attribute statement's values by the names used here (ATTRIBUTES; an attribute
    also known by its FriendlyName, as CAFe's brEduAffiliationType)."""
    found: dict[str, list[str]] = {}
    for statement in assertion.attribute_statement or ():
        for attribute in statement.attribute:
            name = ATTRIBUTES.get(attribute.name)
            if name is None:
                name = next((n for n in (attribute.friendly_name, attribute.name)
                             if n in KNOWN), None)
            if name is None:
                continue
            values = [" ".join((value.text or "").split())
                      for value in attribute.attribute_value]
            found.setdefault(name, []).extend(v for v in values if v)
    return found


def identifier_of(issuer: str) -> str:
    chosen = settings.IBI_SAML_IDENTIFIERS.get(issuer, EPPN)
    return chosen if chosen in IDENTIFIERS else EPPN


def missing_attributes(attributes: dict[str, list[str]], identifier: str) -> list[str]:
    """What this site needs that `attributes` lacks.

    >>> missing_attributes({"mail": ["a@uni.br"]}, "eduPersonPrincipalName")
    ['eduPersonPrincipalName']
    """
    return [name for name in (identifier, "mail") if not attributes.get(name)]


def vouched(email: str, scopes: list[str]) -> bool:
    """Whether a provider whose registered scopes are `scopes` speaks for `email`.

    >>> vouched("ana@ime.usp.br", ["usp.br"]), vouched("ana@evil.br", ["usp.br"])
    (True, False)
    """
    domain = email.rpartition("@")[2].lower()
    return any(domain == scope or domain.endswith(f".{scope}") for scope in scopes)


def groups_of(affiliations: list[str], mapping: dict[str, list[str]]) -> set[str]:
    """The group names `mapping` (IBI_SAML_AFFILIATION_GROUPS) gives the affiliations.

    >>> sorted(groups_of(["Student", "member"], {"student": ["Submitters"], "faculty": ["X"]}))
    ['Submitters']
    """
    wanted = {value.strip().lower() for value in affiliations}
    return {name for key, names in mapping.items() if key.lower() in wanted for name in names}


def _until(response) -> float:
    """Seconds the assertion stays valid (its latest NotOnOrAfter), at least a minute."""
    assertion = response.assertion
    times = [sc.subject_confirmation_data.not_on_or_after
             for sc in assertion.subject.subject_confirmation
             if sc.subject_confirmation_data is not None]
    if assertion.conditions is not None:
        times.append(assertion.conditions.not_on_or_after)
    ends = [datetime.fromisoformat(t.replace("Z", "+00:00")) for t in times if t]
    latest = max(ends, default=timezone.now())
    return max(60.0, (latest - timezone.now()).total_seconds() + 120)


def _sync_groups(user, names: set[str]) -> None:
    mapped = {name for names in settings.IBI_SAML_AFFILIATION_GROUPS.values() for name in names}
    groups = {group.name: group for group in Group.objects.filter(name__in=mapped)}
    for name in sorted(names - set(groups)):
        logger.warning("IBI_SAML_AFFILIATION_GROUPS names a group that does not exist: %s",
                       name)
    user.groups.remove(*[g for n, g in groups.items() if n not in names])
    user.groups.add(*[g for n, g in groups.items() if n in names])


def finish(*, saml_response: str, session) -> SignedIn:
    """The person a provider's response vouches for, signed in as `services.sign_in_external`
    says, or a Refusal (module docstring). `session` holds the requests sent."""
    metadata = usable_metadata()
    root = precheck(_decoded(saml_response))
    if settings.IBI_SAML_MDQ:
        metadata, provider = _of_provider(metadata, _issuer(root))
    queries = OutstandingQueriesCache(session)
    client = Saml2Client(sp_config(metadata), identity_cache=IdentityCache(session))
    try:
        response = client.parse_authn_request_response(
            saml_response, saml2.BINDING_HTTP_POST, queries.outstanding_queries(),
            conv_info={"entity_id": settings.IBI_SAML_ENTITY_ID})
    except Exception as exc:  # pysaml2 says "no" in many classes; each one is a refusal
        raise ResponseRefused(f"{type(exc).__name__}: {exc}"[:300]) from None
    if response is None or response.assertion is None:
        raise ResponseRefused("no assertion")
    # pysaml2 takes the SP's entityID for a Recipient too: here, the ACS's URL only.
    recipients = {sc.subject_confirmation_data.recipient
                  for sc in response.assertion.subject.subject_confirmation}
    if recipients != {acs_url()}:
        raise ResponseRefused(f"recipients {sorted(map(str, recipients))}")
    issuer = response.issuer()
    if not settings.IBI_SAML_MDQ:
        provider = _provider(metadata, issuer)
    elif issuer != provider["entity_id"]:
        raise ResponseRefused(f"issued by {issuer}, not {provider['entity_id']}")
    seen = hashlib.sha256(f"{issuer} {response.assertion.id}".encode()).hexdigest()
    if not cache.add(f"saml-assertion:{seen}", 1, timeout=_until(response)):
        raise Replayed()
    going = queries.outstanding_queries().get(response.session_id(), "")
    queries.delete(response.session_id())
    queries.sync()
    attributes = canonical_attributes(response.assertion)
    identifier = identifier_of(issuer)
    missing = missing_attributes(attributes, identifier)
    if missing:
        raise MissingAttributes(missing)
    email = attributes["mail"][0]
    given = [*attributes.get("givenName", [])[:1], *attributes.get("sn", [])[:1]]
    name = (attributes.get("displayName") or attributes.get("cn") or [" ".join(given)])[0]
    affiliations = [v for key in AFFILIATIONS for v in attributes.get(key, [])]
    with transaction.atomic():
        user = services.sign_in_external(
            provider=Identity.Provider.SAML, issuer=issuer, subject=attributes[identifier][0],
            email=email, email_verified=vouched(email, provider["scopes"]), name=name,
            attributes=attributes)
        _sync_groups(user, groups_of(affiliations, settings.IBI_SAML_AFFILIATION_GROUPS))
    return SignedIn(user=user, name_id=saml2.ident.code(response.name_id), issuer=issuer,
                    next=going)


# --- Single logout -----------------------------------------------------------------------

SESSION_SUBJECT = "saml_name_id"  # the session's NameID, as saml2.ident.code writes it
SESSION_ISSUER = "saml_issuer"  # the identity provider that signed the person in


def _logout_metadata(session) -> FederationMetadata | mdq.Entity:
    """What pysaml2 reads for the session's provider (the aggregate, or its MDQ entity)."""
    metadata = usable_metadata()
    if settings.IBI_SAML_MDQ:
        metadata, _found = _of_provider(metadata, session.get(SESSION_ISSUER, ""))
    return metadata


def logout_location(*, session) -> str | None:
    """Where to send the person to end their session at their provider too (a LogoutRequest
    by HTTP-Redirect), or None: not signed in by SAML, or the provider has no single logout.
    What the request needs to read the answer stays in `session`."""
    subject = session.get(SESSION_SUBJECT)
    if not subject:
        return None
    try:
        metadata = _logout_metadata(session)
    except Refusal as exc:
        logger.info("SAML single logout not started: %s", exc)
        return None
    client = Saml2Client(sp_config(metadata), state_cache=StateCache(session),
                         identity_cache=IdentityCache(session))
    try:
        result = client.global_logout(saml2.ident.decode(subject),
                                      sign=bool(settings.IBI_SAML_KEY), sign_alg=SIG_RSA_SHA256)
    except (LogoutError, UnsupportedBinding, SAMLError, KeyError, ValueError) as exc:
        logger.info("SAML single logout not started: %s", exc)
        return None
    StateCache(session).sync()
    for answer in result.values():
        if isinstance(answer, tuple) and answer[0] == saml2.BINDING_HTTP_REDIRECT:
            return dict(answer[1]["headers"])["Location"]
    return None


def logout_answer(*, data: dict, binding: str, session) -> str | None:
    """A provider's word at the single logout service: its answer to our LogoutRequest (None:
    nothing more to do), or its own LogoutRequest, answered by the URL returned (the person
    is to be signed out here either way). ResponseRefused when it does not verify."""
    metadata = _logout_metadata(session)
    client = Saml2Client(sp_config(metadata), state_cache=StateCache(session),
                         identity_cache=IdentityCache(session))
    try:
        if "SAMLResponse" in data:
            client.parse_logout_request_response(data["SAMLResponse"], binding)
            return None
        subject = session.get(SESSION_SUBJECT)
        if "SAMLRequest" not in data or not subject:
            raise ResponseRefused("no logout request for this session")
        info = client.handle_logout_request(
            data["SAMLRequest"], saml2.ident.decode(subject), binding,
            relay_state=data.get("RelayState"), sigalg=data.get("SigAlg"),
            signature=data.get("Signature"))
    except ResponseRefused:
        raise
    except Exception as exc:  # as in `finish`: every "no" of pysaml2 is a refusal
        raise ResponseRefused(f"{type(exc).__name__}: {exc}"[:300]) from None
    return dict(info["headers"])["Location"]
