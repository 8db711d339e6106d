"""Signing in with ORCID (issue 36, 2): OAuth 2's authorization-code flow with the
`/authenticate` scope, by authlib, against ORCID's base URL (settings.IBI_ORCID_BASE_URL:
production or the sandbox). What a sign-in proves is an ORCID iD: the token endpoint names it
(`orcid`, with the holder's `name`), for this site's client only; the record at
`/v3.0/{iD}/record` adds the addresses ORCID verified that its holder made public.

- `configured()`: the client, or None when the settings are not all set (then ORCID sign-in is
  not offered);
- `authorization_url()`: where the browser goes, with the state the callback checks;
- `exchange()`: the code the browser came back with, traded for the iD (a `SignIn`), or an
  `OrcidRefused` (ORCID refused the code: replayed, expired, another client's; or answered
  something that is not a sign-in of this client).

The base URL is the operator's, never a visitor's: requests go to it directly, not through
protocol/outgoing.py's guard against addresses a visitor names.
"""
from __future__ import annotations

import logging
import ssl
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.conf import settings
from django.utils.translation import gettext_lazy

from ..identifiers import orcid as orcid_ids
from ..refusals import Refusal

if TYPE_CHECKING:  # authlib imported where ORCID is asked: its JOSE and cryptography were a
    from authlib.integrations.httpx_client import OAuth2Client  # sixth of Django's start

try:  # the HTTP client authlib's httpx integration uses: httpx2 when installed, else httpx
    import httpx2 as httpx
except ImportError:  # pragma: no cover (httpx2 comes with the dev dependencies)
    import httpx

logger = logging.getLogger(__name__)

SCOPE = "/authenticate"
TIMEOUT = 10.0  # seconds for each request to ORCID


class OrcidRefused(Refusal):
    message = gettext_lazy("ORCID did not confirm the sign-in: try again from the start")


@dataclass(frozen=True)
class Client:
    base_url: str  # https://orcid.org or https://sandbox.orcid.org: the identity's issuer
    api_url: str  # where /v3.0/{iD}/record is read
    client_id: str
    client_secret: str
    ca_file: str = ""


@dataclass(frozen=True)
class SignIn:
    """What ORCID vouched for: the iD, its holder's name, a verified address (or "")."""

    orcid: str
    name: str = ""
    email: str = ""


def api_url_of(base_url: str) -> str:
    """ORCID's public API beside its site, where a record is read with any token.

    >>> api_url_of("https://orcid.org"), api_url_of("https://sandbox.orcid.org")
    ('https://pub.orcid.org', 'https://pub.sandbox.orcid.org')
    >>> api_url_of("https://127.0.0.1:8443")
    'https://127.0.0.1:8443'
    """
    scheme, _, host = base_url.partition("://")
    return f"{scheme}://pub.{host}" if host in ("orcid.org", "sandbox.orcid.org") else base_url


def configured() -> Client | None:
    """The ORCID client of this site, or None when ORCID sign-in is not set up."""
    base = settings.IBI_ORCID_BASE_URL
    if not (base and settings.IBI_ORCID_CLIENT_ID and settings.IBI_ORCID_CLIENT_SECRET):
        return None
    return Client(base_url=base, api_url=settings.IBI_ORCID_API_URL or api_url_of(base),
                  client_id=settings.IBI_ORCID_CLIENT_ID,
                  client_secret=settings.IBI_ORCID_CLIENT_SECRET,
                  ca_file=settings.IBI_ORCID_CA_FILE)


def _session(client: Client, redirect_uri: str) -> OAuth2Client:
    from authlib.integrations.httpx_client import OAuth2Client

    verify: ssl.SSLContext | bool = (ssl.create_default_context(cafile=client.ca_file)
                                     if client.ca_file else True)
    return OAuth2Client(client.client_id, client.client_secret, scope=SCOPE,
                        redirect_uri=redirect_uri, token_endpoint_auth_method="client_secret_post",
                        verify=verify, timeout=TIMEOUT, trust_env=False)


def authorization_url(client: Client, redirect_uri: str) -> tuple[str, str]:
    """(the URL of ORCID's authorization page, the state it sends back)."""
    with _session(client, redirect_uri) as session:
        url, state = session.create_authorization_url(f"{client.base_url}/oauth/authorize")
    return url, state


def exchange(client: Client, code: str, redirect_uri: str) -> SignIn:
    """The iD ORCID signed in for `code`; OrcidRefused when ORCID refuses the code or answers
    a token that is not this client's `/authenticate` sign-in of a valid iD."""
    from authlib.integrations.base_client import OAuthError

    with _session(client, redirect_uri) as session:
        try:
            token = session.fetch_token(f"{client.base_url}/oauth/token", code=code)
        except (OAuthError, httpx.HTTPError, ValueError) as exc:
            logger.warning("orcid: the token endpoint refused a code: %s", exc)
            raise OrcidRefused() from None
        orcid = str(token.get("orcid") or "")
        try:
            if orcid_ids.normalize(orcid) != orcid:
                raise orcid_ids.OrcidError(orcid, "form")
        except orcid_ids.OrcidError:
            logger.warning("orcid: a token names no valid iD: %r", orcid)
            raise OrcidRefused() from None
        # ORCID names the client a token is for only in some answers (an OpenID one); when
        # it does, it must be this site's.
        named = token.get("client_id") or token.get("aud")
        if named is not None and named != client.client_id:
            logger.warning("orcid: a token for another client (%r)", named)
            raise OrcidRefused()
        if SCOPE not in str(token.get("scope", SCOPE)).split():
            logger.warning("orcid: a token without the %s scope", SCOPE)
            raise OrcidRefused()
        return SignIn(orcid=orcid, name=" ".join(str(token.get("name") or "").split()),
                      email=_verified_email(session, client, orcid))


def _verified_email(session: OAuth2Client, client: Client, orcid: str) -> str:
    """The record's primary verified address (else its first verified one), "" when it shows
    none or cannot be read: signing in does not need it, it only links a known account."""
    try:
        response = session.get(f"{client.api_url}/v3.0/{orcid}/record",
                               headers={"Accept": "application/json"})
        response.raise_for_status()
        emails = ((response.json().get("person") or {}).get("emails") or {}).get("email") or []
    except (httpx.HTTPError, ValueError, AttributeError) as exc:
        logger.info("orcid: the record of %s not read: %s", orcid, exc)
        return ""
    verified = [e for e in emails if isinstance(e, dict) and e.get("verified")
                and isinstance(e.get("email"), str) and "@" in e["email"]]
    verified.sort(key=lambda e: not e.get("primary"))
    return verified[0]["email"].strip() if verified else ""
