"""The Archive's side of §7.2: switching itself on and off at a resolver (Examples 7.2, 7.3).

`switch` sends ``inclusionRequest`` or ``exclusionRequest`` with the pairs of Table 7.2, read
from the settings: ``archiveaddress`` is ARCHIVE_ADDRESS (required: the resolver will call it
back), ``archiveserviceibi`` this Archive's archive service, ``archiveip`` IBI_IP,
``archiveplatformversion`` this software's version, ``archiveadmemailaddress``
IBI_ARCHIVE_ADMIN_EMAIL (default admin@IBI_HOSTNAME).
"""
from __future__ import annotations

from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version

from django.conf import settings
from django.utils.translation import gettext as _

from ..deposit import selectors
from ..protocol import client as resolver_client
from ..protocol.pairs import dumps
from .service import SERVICE_IBI, valid_key


class SwitchError(RuntimeError):
    """The request could not be made or was refused; the message says why."""


@dataclass(frozen=True)
class Switched:
    status: int | None
    text: str  # the resolver's answer as a pair list, or the reason there is none
    ok: bool


def platform_version() -> str:
    try:
        return f"ibirepo-{version('ibirepo')}"
    except PackageNotFoundError:
        return "ibirepo"


def request_pairs(subject: str, key: str, *, email: str = "", ip: str = "") -> dict[str, str]:
    """Table 7.2, in its order."""
    if not settings.ARCHIVE_ADDRESS:
        raise SwitchError(_("ARCHIVE_ADDRESS is not set: the resolver needs the host[:port] at "
                            "which it can reach this Archive (e.g. ARCHIVE_ADDRESS=repo.example"
                            ".org or 203.0.113.7:8000)"))
    if not valid_key(key):
        raise SwitchError(_("the registration key is 10 or more digits, optionally '-' and 10 "
                            "or more digits (Table 7.1)"))
    service = selectors.archive_service_or_none()
    if service is None:
        raise SwitchError(_("this Archive has no archive service yet: run `manage.py migrate`"))
    return {"servicesubject": subject, "archiveaddress": settings.ARCHIVE_ADDRESS,
            "archiveserviceibi": service.ibi, "archiveip": ip or settings.IBI_IP,
            "archiveprotocol": "HTTP", "archiveplatformversion": platform_version(),
            "archiveadmemailaddress": email or settings.IBI_ARCHIVE_ADMIN_EMAIL
            or f"admin@{settings.IBI_HOSTNAME}",
            "registrationkey": key}


def switch(subject: str, resolver: str, key: str, *, email: str = "", ip: str = "",
           timeout: float = 30.0) -> Switched:
    """Send the request to ``<resolver>/J8LNKB5R7W/3FUQHC5`` and return its answer.

    The resolver calls this Archive back before answering an inclusion, hence the generous
    timeout. Its URL is the administrator's (http or https); redirects are not followed.
    """
    if not resolver.lower().startswith(("http://", "https://")):
        raise SwitchError(_("--resolver %(resolver)r: give the resolver's base URL, e.g. "
                            "http://urlib.net") % {"resolver": resolver})
    pairs = request_pairs(subject, key, email=email, ip=ip)
    reply = resolver_client.get_pairs(f"{resolver.rstrip('/')}/{SERVICE_IBI}", pairs,
                                      pin=False, timeout=timeout)
    if reply.pairs is not None:
        return Switched(reply.status, dumps(reply.pairs), True)
    return Switched(reply.status, reply.error, False)
