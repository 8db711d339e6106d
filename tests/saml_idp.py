"""A faithful stand-in for a CAFe identity provider and its federation, in-process: keys and
self-signed certificates made here, an identity provider built on pysaml2's own IdP role
(`saml2.server.Server`), and the federation's metadata aggregate signed by Debian's xmlsec1
with the federation's key (as RNP signs CAFe's).

Nothing here talks to a network: the browser's hops are the test client's, the identity
provider's answer is posted to the service provider's ACS as a browser would.
"""
from __future__ import annotations

import base64
import re
import subprocess
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import saml2
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID
from saml2.config import IdPConfig
from saml2.saml import AUTHN_PASSWORD_PROTECTED, NAME_FORMAT_URI, NAMEID_FORMAT_PERSISTENT, NameID
from saml2.server import Server

XMLSEC1 = "/usr/bin/xmlsec1"
MD = "urn:oasis:names:tc:SAML:2.0:metadata"
ASSERTION_NODE = "urn:oasis:names:tc:SAML:2.0:assertion:Assertion"


@dataclass(frozen=True)
class KeyPair:
    key: Path
    cert: Path

    @property
    def cert_base64(self) -> str:
        return "".join(self.cert.read_text().strip().splitlines()[1:-1])


def keypair(folder: Path, name: str) -> KeyPair:
    """An RSA key and a self-signed certificate for it, as PEM files in `folder`."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.now(UTC)
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - timedelta(days=1)).not_valid_after(now + timedelta(days=365))
            .sign(key, hashes.SHA256()))
    pair = KeyPair(folder / f"{name}.key", folder / f"{name}.crt")
    pair.key.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.TraditionalOpenSSL,
                                           serialization.NoEncryption()))
    pair.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return pair


def idp_descriptor(entity_id: str, keys: KeyPair, *, names: dict[str, str],
                   scope: str) -> str:
    """An identity provider's EntityDescriptor as a federation registers it: its signing
    key, its SSO and SLO endpoints, its display names (mdui) and scope (shibmd)."""
    display = "".join(f'<mdui:DisplayName xml:lang="{lang}">{name}</mdui:DisplayName>'
                      for lang, name in names.items())
    return f"""<md:EntityDescriptor entityID="{entity_id}">
  <md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:Extensions><shibmd:Scope regexp="false">{scope}</shibmd:Scope>
      <mdui:UIInfo>{display}</mdui:UIInfo></md:Extensions>
    <md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data>
      <ds:X509Certificate>{keys.cert_base64}</ds:X509Certificate>
    </ds:X509Data></ds:KeyInfo></md:KeyDescriptor>
    <md:SingleLogoutService Binding="{saml2.BINDING_HTTP_REDIRECT}" Location="{entity_id}/slo"/>
    <md:SingleSignOnService Binding="{saml2.BINDING_HTTP_REDIRECT}" Location="{entity_id}/sso"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>"""


SIGNATURE_TEMPLATE = """<ds:Signature>
  <ds:SignedInfo>
    <ds:CanonicalizationMethod Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/>
    <ds:SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"/>
    <ds:Reference URI="#{id}">
      <ds:Transforms>
        <ds:Transform Algorithm="http://www.w3.org/2000/09/xmldsig#enveloped-signature"/>
        <ds:Transform Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/>
      </ds:Transforms>
      <ds:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/>
      <ds:DigestValue/>
    </ds:Reference>
  </ds:SignedInfo>
  <ds:SignatureValue/>
  <ds:KeyInfo><ds:X509Data><ds:X509Certificate/></ds:X509Data></ds:KeyInfo>
</ds:Signature>"""


NAMESPACES = (f'xmlns:md="{MD}" xmlns:ds="http://www.w3.org/2000/09/xmldsig#"'
              ' xmlns:mdui="urn:oasis:names:tc:SAML:metadata:ui"'
              ' xmlns:shibmd="urn:mace:shibboleth:metadata:1.0"')


def _written(text: str, node: str, *, signer: KeyPair | None, path: Path) -> Path:
    path.write_text(text)
    if signer is not None:
        subprocess.run([XMLSEC1, "--sign", "--privkey-pem", f"{signer.key},{signer.cert}",
                        "--id-attr:ID", f"{MD}:{node}", "--output", str(path), str(path)],
                       check=True, capture_output=True)
    return path


def _until(valid_until: datetime) -> str:
    return valid_until.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def aggregate(descriptors: list[str], *, valid_until: datetime, signer: KeyPair | None,
              folder: Path, name: str = "aggregate") -> Path:
    """The federation's aggregate of `descriptors`, signed by `signer` with xmlsec1 (unsigned
    when None), written to `folder`."""
    text = (f'<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<md:EntitiesDescriptor {NAMESPACES}'
            f' ID="fed-{name}" Name="https://fed.example.org" validUntil="{_until(valid_until)}">'
            f'{SIGNATURE_TEMPLATE.format(id=f"fed-{name}") if signer else ""}'
            f'{"".join(descriptors)}</md:EntitiesDescriptor>')
    return _written(text, "EntitiesDescriptor", signer=signer, path=folder / f"{name}.xml")


def entity(descriptor: str, *, valid_until: datetime, signer: KeyPair | None, folder: Path,
           name: str, cache_duration: str = "") -> bytes:
    """One entity (`descriptor`, as idp_descriptor writes it) as an MDQ service answers for
    it: on its own, with its validUntil (and cacheDuration), signed by `signer` (or not)."""
    head, _, rest = descriptor.partition(">")
    duration = f' cacheDuration="{cache_duration}"' if cache_duration else ""
    text = (f'<?xml version="1.0" encoding="UTF-8"?>\n'
            f'{head} {NAMESPACES} ID="mdq-{name}" validUntil="{_until(valid_until)}"{duration}>'
            f'{SIGNATURE_TEMPLATE.format(id=f"mdq-{name}") if signer else ""}{rest}')
    return _written(text, "EntityDescriptor", signer=signer,
                    path=folder / f"mdq-{name}.xml").read_bytes()


def sign_assertion(xml: str, keys: KeyPair) -> str:
    """`xml` (a Response) with its assertion signed anew by `keys`: the template that pysaml2
    left in it filled again, so a change made to the assertion is signed as the IdP would."""
    assertion_id = re.search(r'<(?:\w+:)?Assertion[^>]* ID="([^"]+)"', xml).group(1)
    source = keys.key.parent / "to-sign.xml"
    source.write_text(xml)
    done = subprocess.run([XMLSEC1, "--sign", "--privkey-pem", f"{keys.key},{keys.cert}",
                           "--id-attr:ID", ASSERTION_NODE, "--node-id", assertion_id,
                           str(source)], check=True, capture_output=True)
    return done.stdout.decode()


# CAFe's own affiliation attribute, sent with its FriendlyName, as Shibboleth does; its Name
# here is an example's (the service provider reads the FriendlyName).
BR_EDU_AFFILIATION_TYPE = "urn:example:cafe:brEduAffiliationType"
CAFE_MAP = f"""
import saml2.attributemaps.saml_uri as uri

MAP = {{"identifier": uri.MAP["identifier"],
       "fro": {{**uri.MAP["fro"], "{BR_EDU_AFFILIATION_TYPE}": "brEduAffiliationType"}},
       "to": {{**uri.MAP["to"], "brEduAffiliationType": "{BR_EDU_AFFILIATION_TYPE}"}}}}
"""


class IdentityProvider:
    """An identity provider on pysaml2's Server, trusting the SP whose metadata it is given."""

    def __init__(self, entity_id: str, keys: KeyPair, sp_metadata: list[str], *,
                 signed_requests: bool = True) -> None:
        """`signed_requests`: whether it takes only requests signed by the SP's key."""
        self.entity_id, self.keys = entity_id, keys
        maps = keys.key.parent / "attribute-maps"
        maps.mkdir(exist_ok=True)
        (maps / "cafe.py").write_text(CAFE_MAP)
        # As the federation's registry asks for it on the SP's behalf: the IdP releases what
        # the SP's metadata requests.
        requested = (f'<md:RequestedAttribute xmlns:md="{MD}" Name="{BR_EDU_AFFILIATION_TYPE}" '
                     f'NameFormat="{NAME_FORMAT_URI}" FriendlyName="brEduAffiliationType" '
                     f'isRequired="false"/>')
        sp_metadata = [re.sub(r"(</(\w+:)?AttributeConsumingService>)",
                              lambda m: requested + m.group(1), text, count=1)
                       for text in sp_metadata]
        self.server = Server(config=IdPConfig().load({
            "entityid": entity_id,
            "attribute_map_dir": str(maps),
            "xmlsec_binary": XMLSEC1,
            "key_file": str(keys.key), "cert_file": str(keys.cert),
            "metadata": {"inline": sp_metadata},
            "service": {"idp": {
                "endpoints": {
                    "single_sign_on_service": [(f"{entity_id}/sso", saml2.BINDING_HTTP_REDIRECT)],
                    "single_logout_service": [(f"{entity_id}/slo", saml2.BINDING_HTTP_REDIRECT)],
                },
                "policy": {"default": {"lifetime": {"minutes": 5},
                                       "attribute_restrictions": None,
                                       "name_form": NAME_FORMAT_URI}},
                "name_id_format": [NAMEID_FORMAT_PERSISTENT],
                "want_authn_requests_signed": signed_requests,
            }},
        }))

    def request_id(self, location: str) -> str:
        """The ID of the AuthnRequest that a redirect to this IdP carries."""
        query = {key: values[0] for key, values in parse_qs(urlsplit(location).query,
                                                               keep_blank_values=True).items()}
        request = self.server.parse_authn_request(
            query["SAMLRequest"], saml2.BINDING_HTTP_REDIRECT,
            relay_state=query.get("RelayState"), sigalg=query.get("SigAlg"),
            signature=query.get("Signature"))
        return request.message.id

    def response(self, identity: dict, *, in_response_to: str, destination: str,
                 audience: str, sign: bool = True, sign_response: bool = False,
                 encrypt_for: KeyPair | None = None, subject: str = "opaque-1") -> str:
        """The Response XML to `in_response_to`, its assertion signed (or not), or the whole
        response (as Shibboleth does by default); the assertion encrypted for `encrypt_for`'s
        certificate (as Shibboleth does for an SP whose metadata names one)."""
        encryption = {} if encrypt_for is None else {
            "encrypt_assertion": True, "encrypt_cert_assertion": encrypt_for.cert.read_text()}
        return str(self.server.create_authn_response(
            identity, in_response_to=in_response_to, destination=destination,
            sp_entity_id=audience, userid=subject,
            name_id=NameID(format=NAMEID_FORMAT_PERSISTENT, text=subject,
                           sp_name_qualifier=audience, name_qualifier=self.entity_id),
            authn={"class_ref": AUTHN_PASSWORD_PROTECTED, "authn_auth": self.entity_id},
            sign_assertion=sign, sign_response=sign_response, **encryption))


def encoded(xml: str) -> str:
    return base64.b64encode(xml.encode()).decode()
