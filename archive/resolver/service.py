"""The resolver service (RTC-11 §7): Archives are registered, then switch themselves on and off.

Registration (§7.1) is an administrative act: `register_archive` (the ``registerarchive``
command and the admin page) keeps the archive service IBI and a hash of the registration key.
Then an Archive sends, to ``/J8LNKB5R7W/3FUQHC5`` (Example 7.2), the eight pairs of Table 7.2::

    servicesubject=inclusionRequest&archiveaddress=mtc-m21.sid.inpe.br&
    archiveserviceibi=sid.inpe.br/mtc-m21/2012/06.05.15.34.39&archiveip=150.163.34.239&
    archiveprotocol=HTTP&archiveplatformversion=2014:11.09.02.16.15&
    archiveadmemailaddress=banon@dpi.inpe.br&registrationkey=1234567890

`answer` checks the key (a wrong or missing one: `Refused` 403, nothing changes), includes
the Archive at the address it gives, asks it for its ``inclusionConfirmationRequest``
(Example 7.4) and answers::

    status.archive included
    status.confirmation successful

or ``status.confirmation unsuccessful`` when no ``confirmation yes`` came: §7.2 includes the
Archive all the same. The registration key is the authentication; the confirmation only checks
that the address answers, which it may not ("nem sempre o acesso é possível, como em alguns
casos de IP dinâmico"). ``exclusionRequest`` answers ``status.archive excluded``. An address in
IBI_RESOLVER_DENY_NETWORKS is refused whatever the key.

Keys: only ``p2$<salt>$<PBKDF2-SHA256>`` is stored (fits RegisteredArchive.key_hash), compared
with ``hmac.compare_digest``; an unknown Archive costs the same hashing time as a known one.
Keys are never logged, and the resolver's own logs never carry query strings.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import logging
import os
import re
import socket

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from ..archive_service import requests as service_requests
from ..deposit import selectors
from ..identifiers import ibi as ibilib
from ..models import RegisteredArchive
from ..protocol import client
from ..protocol.pairs import Pair, PairListError, to_dict
from ..refusals import Refusal
from . import health, memory

logger = logging.getLogger(__name__)

SERVICE_IBI = "J8LNKB5R7W/3FUQHC5"  # the resolver service's own IBI (§6.1)
SUBJECTS = ("inclusionRequest", "exclusionRequest")
KEY = re.compile(r"[0-9]{10,}(?:-[0-9]{10,})?")  # Table 7.1
MAX_KEY_LENGTH = 200
_ITERATIONS = 60_000  # part of the "p2" format: changing it would void every stored hash
_DUMMY = "p2$AAAAAAAAAAAAAAAA$" + "A" * 43
_PRINTABLE = re.compile(r"[\x21-\x7e]+")


class Refused(Refusal):
    """A request the resolver service refuses: status 400 (malformed) or 403 (the key). Its
    message is the protocol's, in English (an ``error`` pair, Table 6.2)."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


# -- Registration keys ------------------------------------------------------------------------

def valid_key(key: str) -> bool:
    return isinstance(key, str) and len(key) <= MAX_KEY_LENGTH and bool(KEY.fullmatch(key))


def _derive(key: str, salt: bytes) -> bytes:
    return hashlib.pbkdf2_hmac("sha256", key.encode("ascii"), salt, _ITERATIONS)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def hash_key(key: str) -> str:
    """``p2$<16 chars of salt>$<43 chars of derived key>``: 63 characters."""
    if not valid_key(key):
        raise ValueError("a registration key is 10 or more digits, optionally '-' and 10 or "
                         "more digits again (Table 7.1), e.g. 1234567890-1234567890")
    salt = os.urandom(12)
    return f"p2${_b64(salt)}${_b64(_derive(key, salt))}"


def key_matches(key: str, stored: str) -> bool:
    """Constant time for a given key length, whatever is stored (even nothing usable)."""
    scheme, _sep, rest = (stored or _DUMMY).partition("$")
    salt_text, _sep, digest_text = rest.partition("$")
    try:
        salt = base64.urlsafe_b64decode(salt_text + "=" * (-len(salt_text) % 4))
        digest = base64.urlsafe_b64decode(digest_text + "=" * (-len(digest_text) % 4))
    except ValueError:
        salt, digest = b"\0" * 12, b""
    derived = _derive(key if valid_key(key) else "0" * 10, salt)
    return hmac.compare_digest(derived, digest) and scheme == "p2" and valid_key(key)


# -- Registration (§7.1) ----------------------------------------------------------------------

def canonical_ibi(text: str) -> str:
    try:
        return ibilib.canonical(text)
    except ValueError as exc:
        raise ValueError(f"{text!r} is not an IBI: {exc}") from None


def registered(service_ibi: str) -> RegisteredArchive | None:
    """The registration of this archive service IBI, whatever its spelling (legacy ``@``)."""
    try:
        parsed = ibilib.parse(service_ibi)
    except ValueError:
        return None
    return RegisteredArchive.objects.filter(
        archive_service_ibi__in=selectors.spellings(parsed)).first()


@transaction.atomic
def register_archive(*, archive_service_ibi: str, key: str, email: str = "",
                     replace: bool = False) -> tuple[RegisteredArchive, bool]:
    """Register an Archive (or, with replace, give a registered one a new key); returns
    (registration, created). Raises ValueError with a message for the administrator."""
    service_ibi = canonical_ibi(archive_service_ibi)
    if email:
        validate_email(email)
    key_hash = hash_key(key)
    found = registered(service_ibi)
    if found is not None:
        if not replace:
            raise ValueError(_("%(ibi)s is registered already (give --replace to set a new key)")
                             % {"ibi": found.archive_service_ibi})
        found.key_hash = key_hash
        found.email = email or found.email
        found.save(update_fields=["key_hash", "email"])
        return found, False
    return RegisteredArchive.objects.create(archive_service_ibi=service_ibi, key_hash=key_hash,
                                            email=email), True


# -- inclusionRequest / exclusionRequest (§7.2, Table 7.2) ------------------------------------

def _field(fields: dict[str, str], name: str) -> str:
    value = fields.get(name)
    if value is None or value == "":
        raise Refused(f"{name} is missing (Table 7.2 asks for all eight pairs)")
    return value


def check_address(address: str) -> str:
    """The address in canonical form, once it is host[:port] outside the denied networks."""
    host, port = client.split_address(address)
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError:
        raise client.AddressError(f"{host} does not resolve") from None
    if any(client.denied(info[4][0], settings.IBI_RESOLVER_DENY_NETWORKS) for info in infos):
        raise client.AddressError(f"{host} is in a network this resolver never contacts")
    return client.canonical_address(address)


def _read(query: str) -> tuple[str, dict[str, str]]:
    try:
        fields = service_requests.read_query(query)
    except service_requests.ProtocolError as exc:
        raise Refused(str(exc)) from None
    subject = fields.get("servicesubject")
    if subject not in SUBJECTS:
        raise Refused(f"servicesubject {subject!r}: the resolver service answers "
                      f"{' and '.join(SUBJECTS)}")
    key = fields.get("registrationkey", "")
    if not valid_key(key):
        raise Refused("registrationkey is missing or not a key of Table 7.1", 403)
    try:
        canonical_ibi(_field(fields, "archiveserviceibi"))
        client.split_address(_field(fields, "archiveaddress"))
        ipaddress.ip_address(_field(fields, "archiveip"))
    except (ValueError, client.AddressError) as exc:
        raise Refused(f"{exc}") from None
    if _field(fields, "archiveprotocol") != "HTTP":
        raise Refused("archiveprotocol: only HTTP (§7.2)")
    version = _field(fields, "archiveplatformversion")
    if len(version) > 100 or not _PRINTABLE.fullmatch(version):
        raise Refused("archiveplatformversion: up to 100 printable ASCII characters")
    email = _field(fields, "archiveadmemailaddress")
    try:
        validate_email(email)
    except ValidationError:
        raise Refused("archiveadmemailaddress is not an e-mail address") from None
    return subject, fields


def confirm(address: str, service_ibi: str) -> bool:
    """Example 7.4: the Archive at address answers ``confirmation yes``."""
    reply = client.get_pairs(client.archive_base(address, service_ibi),
                             {"servicesubject": "inclusionConfirmationRequest"})
    try:
        return reply.ok and to_dict(reply.pairs).get("confirmation") == "yes"
    except PairListError:
        return False


def switch_off(archives) -> int:
    """The administrator switches Archives off (a queryset): no longer asked, and what they
    answered forgotten (memory.py). Returns how many were on."""
    ids = list(archives.filter(included=True).values_list("pk", flat=True))
    RegisteredArchive.objects.filter(pk__in=ids).update(included=False,
                                                        excluded_at=timezone.now())
    if ids:
        memory.forget_all()
    return len(ids)


def answer(query: str) -> list[Pair]:
    """The resolver service's answer to a raw query string; raises Refused."""
    subject, fields = _read(query)
    archive = registered(fields["archiveserviceibi"])
    if not key_matches(fields["registrationkey"], archive.key_hash if archive else ""):
        raise Refused("registration key refused: this Archive is not registered with this key",
                      403)
    now = timezone.now()
    if subject == "exclusionRequest":
        RegisteredArchive.objects.filter(pk=archive.pk).update(included=False, excluded_at=now)
        memory.forget_all()
        return [("status.archive", "excluded")]
    # The key is the authentication (§7.2); the confirmation only says whether the Archive
    # can be reached now ("nem sempre o acesso é possível, como em alguns casos de IP
    # dinâmico"). An address that does not resolve, or resolves into a network this resolver
    # never contacts, is included all the same and never called: no confirmation is asked of
    # it, and the urlRequests it is due fail at once, as to an Archive that is down.
    try:
        address, reachable = check_address(fields["archiveaddress"]), True
    except client.AddressError as exc:
        logger.warning("resolver service: %s included, not called: %s",
                       archive.archive_service_ibi, exc)
        address, reachable = client.canonical_address(fields["archiveaddress"]), False
    RegisteredArchive.objects.filter(pk=archive.pk).update(
        included=True, included_at=now, address=address, ip=fields["archiveip"],
        platform_version=fields["archiveplatformversion"],
        email=fields["archiveadmemailaddress"][:254])
    memory.forget_all()
    health.forget(archive.pk)
    confirmed = reachable and confirm(address, archive.archive_service_ibi)
    return [("status.archive", "included"),
            ("status.confirmation", "successful" if confirmed else "unsuccessful")]
