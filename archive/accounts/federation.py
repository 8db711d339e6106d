"""The SAML federation's metadata aggregate (CAFe's, or any other): fetched from a file or an
https URL (IBI_SAML_METADATA), checked, and kept as the last good one (FederationMetadata).

An aggregate is taken only when

1. it parses as plain XML: no DOCTYPE, so no entity of any kind (an XXE, a billion laughs);
2. its root is an EntitiesDescriptor (or one EntityDescriptor) carrying `validUntil`, still
   to come;
3. its root holds one enveloped signature whose one reference names the root itself
   (URI "" or "#<its ID>"): a signature over something else proves nothing about the rest;
4. Debian's `xmlsec1` verifies that signature with the federation's certificate
   (IBI_SAML_METADATA_CERT) and none other: the key the document names is not trusted.

Anything else is `AggregateRefused`, logged, and the last good aggregate stays. The beat
refreshes it every IBI_SAML_METADATA_EVERY seconds (`refresh_saml_metadata`), as does
`manage.py refreshsamlmetadata`.
"""
from __future__ import annotations

import hashlib
import logging
import subprocess
import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext_lazy
from lxml import etree

from ..models import FederationMetadata
from ..protocol import outgoing
from ..protocol.client import AddressError
from ..refusals import Refusal

logger = logging.getLogger(__name__)

MD = "urn:oasis:names:tc:SAML:2.0:metadata"
DS = "http://www.w3.org/2000/09/xmldsig#"
MDUI = "urn:oasis:names:tc:SAML:metadata:ui"
SHIBMD = "urn:mace:shibboleth:metadata:1.0"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
NS = {"md": MD, "ds": DS, "mdui": MDUI, "shibmd": SHIBMD}


class AggregateRefused(Refusal):
    status = 502
    message = gettext_lazy("the federation's metadata was refused")


class UnsafeXml(Refusal):
    message = gettext_lazy("the XML is not acceptable")


def parse_strict(data: bytes, *, comments: bool = True) -> etree._Element:
    """The root of `data`, parsed with no DTD, entity, network or huge tree; UnsafeXml when
    it declares a DOCTYPE (the door of every XXE and entity expansion), fails to parse, or,
    unless `comments`, holds a comment or a processing instruction (SAML messages need
    neither, and a comment inside a value is how a signed value is cut short).

    >>> parse_strict(b'<!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>')
    Traceback (most recent call last):
    archive.accounts.federation.UnsafeXml: a DOCTYPE is not accepted
    """
    if b"<!DOCTYPE" in data.upper() or b"<!ENTITY" in data.upper():
        raise UnsafeXml("a DOCTYPE is not accepted")
    parser = etree.XMLParser(resolve_entities=False, load_dtd=False, no_network=True,
                             huge_tree=False, remove_comments=False, remove_pis=False)
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as exc:
        raise UnsafeXml(f"not well-formed XML: {exc}") from None
    tree = root.getroottree()
    if tree.docinfo.doctype or tree.docinfo.internalDTD is not None:
        raise UnsafeXml("a DOCTYPE is not accepted")
    if not comments and (root.xpath("//comment()") or root.xpath("//processing-instruction()")):
        raise UnsafeXml("a comment or a processing instruction is not accepted")
    return root


@dataclass(frozen=True)
class Aggregate:
    xml: str
    sha256: str
    valid_until: datetime
    providers: list


def verify_signature(data: bytes, cert_file: str, id_nodes: list[str]) -> None:
    """UnsafeXml unless xmlsec1 verifies the enveloped signature of `data` with the
    certificate in `cert_file` (X.509 data in the document is not loaded as a key)."""
    with tempfile.NamedTemporaryFile(suffix=".xml") as document:
        document.write(data)
        document.flush()
        command = [settings.XMLSEC1, "--verify", "--enabled-reference-uris", "empty,same-doc",
                   "--enabled-key-data", "rsa,ecdsa,key-name", "--pubkey-cert-pem", cert_file]
        for node in id_nodes:
            command += ["--id-attr:ID", node]
        done = subprocess.run([*command, document.name], capture_output=True, timeout=60,
                              check=False)
    if done.returncode != 0:
        reason = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise UnsafeXml(f"the signature does not verify ({(reason or ['?'])[-1][:200]})")


def _names(entity: etree._Element, idp: etree._Element) -> dict[str, str]:
    names = {}
    for element in idp.findall("md:Extensions/mdui:UIInfo/mdui:DisplayName", NS):
        names.setdefault(element.get(XML_LANG, "en").lower(), " ".join(element.text.split())
                         if element.text else "")
    if not any(names.values()):
        for element in entity.findall("md:Organization/md:OrganizationDisplayName", NS):
            names.setdefault(element.get(XML_LANG, "en").lower(),
                             " ".join((element.text or "").split()))
    return {lang: name for lang, name in names.items() if name}


def providers_of(root: etree._Element) -> list[dict]:
    """The identity providers an aggregate names: entityID, display names per language
    (mdui:DisplayName, else the organization's), the scopes they may assert (shibmd:Scope,
    literal ones only)."""
    entities = [root] if root.tag == f"{{{MD}}}EntityDescriptor" else root.iter(
        f"{{{MD}}}EntityDescriptor")
    found = []
    for entity in entities:
        idp = entity.find("md:IDPSSODescriptor", NS)
        if idp is None or not entity.get("entityID"):
            continue
        scopes = sorted({(s.text or "").strip().lower()
                         for s in [*idp.findall("md:Extensions/shibmd:Scope", NS),
                                   *entity.findall("md:Extensions/shibmd:Scope", NS)]
                         if s.get("regexp", "false") in ("false", "0") and (s.text or "").strip()})
        found.append({"entity_id": entity.get("entityID"), "names": _names(entity, idp),
                      "scopes": scopes})
    return found


def check_aggregate(data: bytes, *, cert_file: str, now: datetime | None = None) -> Aggregate:
    """`data` as an Aggregate, or AggregateRefused saying why (module docstring)."""
    now = now or timezone.now()
    try:
        root = parse_strict(data)
    except UnsafeXml as exc:
        raise AggregateRefused(str(exc)) from None
    if root.tag not in (f"{{{MD}}}EntitiesDescriptor", f"{{{MD}}}EntityDescriptor"):
        raise AggregateRefused("the root is not SAML metadata")
    valid_until = parse_datetime(root.get("validUntil") or "")
    if valid_until is None or timezone.is_naive(valid_until):
        raise AggregateRefused("the aggregate has no validUntil")
    if valid_until <= now:
        raise AggregateRefused(f"the aggregate expired at {valid_until.isoformat()}")
    signatures = root.findall("ds:Signature", NS)
    references = [r.get("URI") for s in signatures for r in s.iterfind(".//ds:Reference", NS)]
    if len(signatures) != 1 or len(references) != 1:
        raise AggregateRefused("the aggregate is not signed (one signature of the root)")
    if references[0] not in ("", f"#{root.get('ID')}") or (
            references[0] and len(root.getroottree().xpath("//*[@ID=$id]", id=root.get("ID")))
            != 1):
        raise AggregateRefused("the aggregate's signature does not sign its root")
    try:
        verify_signature(data, cert_file, [f"{MD}:EntitiesDescriptor", f"{MD}:EntityDescriptor"])
    except UnsafeXml as exc:
        raise AggregateRefused(str(exc)) from None
    return Aggregate(xml=data.decode("utf-8"), sha256=hashlib.sha256(data).hexdigest(),
                     valid_until=valid_until, providers=providers_of(root))


def fetch(source: str) -> bytes:
    """The aggregate's bytes from a file or an http(s) URL (through the guarded client)."""
    limit = settings.IBI_SAML_METADATA_MAX_BYTES
    if source.startswith(("https://", "http://")):
        try:
            return outgoing.get_document(source, accept="application/samlmetadata+xml",
                                         max_bytes=limit)
        except AddressError as exc:
            raise AggregateRefused(f"not fetched: {exc}") from None
    try:
        with Path(source).open("rb") as handle:
            data = handle.read(limit + 1)
    except OSError as exc:
        raise AggregateRefused(f"not read: {exc}") from None
    if len(data) > limit:
        raise AggregateRefused(f"longer than {limit} bytes")
    return data


def refresh(*, now: datetime | None = None) -> FederationMetadata | None:
    """The aggregate of IBI_SAML_METADATA fetched, checked and kept; None when SAML is off.
    AggregateRefused (logged) leaves the last good one as it was."""
    if not settings.IBI_SAML_METADATA:
        return None
    now = now or timezone.now()
    try:
        aggregate = check_aggregate(fetch(settings.IBI_SAML_METADATA),
                                    cert_file=settings.IBI_SAML_METADATA_CERT, now=now)
    except AggregateRefused as exc:
        logger.warning("SAML metadata aggregate of %s refused, the last good one kept: %s",
                       settings.IBI_SAML_METADATA, exc)
        raise
    with transaction.atomic():
        kept = FederationMetadata.objects.select_for_update().order_by("pk").first()
        if kept is None:
            kept = FederationMetadata()
        kept.xml, kept.sha256 = aggregate.xml, aggregate.sha256
        kept.valid_until, kept.fetched = aggregate.valid_until, now
        kept.providers = aggregate.providers
        kept.save()
        FederationMetadata.objects.exclude(pk=kept.pk).delete()
    logger.info("SAML metadata aggregate %s kept: %d identity providers, valid until %s",
                aggregate.sha256[:12], len(aggregate.providers), aggregate.valid_until)
    return kept


def current(*, now: datetime | None = None) -> FederationMetadata | None:
    """The last good aggregate while it is valid; None before the first or past its
    validUntil (no login is vouched for by metadata that expired)."""
    if not settings.IBI_SAML_METADATA:
        return None
    # The XML (megabytes, for CAFe) is read only where a configuration is parsed anew.
    return (FederationMetadata.objects.filter(valid_until__gt=now or timezone.now())
            .defer("xml").order_by("pk").first())
