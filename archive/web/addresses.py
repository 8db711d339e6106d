"""Where this Archive was reached, for the links an edge hands out (deposit/links.py), and who
reached it, for the resolver's urlRequests (`client_ips`).

ARCHIVE_ADDRESS, when configured, is the address every link names (over plain http, as RTC-11's
``archiveaddress`` is a host and port); otherwise the scheme and host the request came with,
which Django checked against ALLOWED_HOSTS.
"""
from __future__ import annotations

import functools
import ipaddress
import re

from django.conf import settings
from django.http import HttpRequest

from ..deposit import links

MAX_CLIENT_IPS = 8


def base_url(request: HttpRequest | None) -> str:
    """``scheme://host[:port]`` of the links answered to this request."""
    if settings.ARCHIVE_ADDRESS or request is None:
        return links.base_url()
    return f"{request.scheme}://{request.get_host()}"


def client_ips(request: HttpRequest) -> list[str]:
    """Table 8.10: the client first, then its proxies (X-Forwarded-For, then REMOTE_ADDR).
    Only valid IPs are passed on; the list only informs the Archives' statistics."""
    return list(_valid_ips(request.META.get("HTTP_X_FORWARDED_FOR", ""),
                           request.META.get("REMOTE_ADDR", "")))


# An IPv4 address as ipaddress writes it (no leading zeros, which it refuses): itself.
_IPV4 = re.compile(r"(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.){3}"
                   r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])")


@functools.lru_cache(maxsize=1024)  # the same readers and proxies come back
def _valid_ips(forwarded_for: str, remote_addr: str) -> tuple[str, ...]:
    ips = []
    for text in [*forwarded_for.split(","), remote_addr]:
        text = text.strip()
        if _IPV4.fullmatch(text):  # most: a new reader's address costs no ipaddress object
            ips.append(text)
            continue
        try:
            ips.append(str(ipaddress.ip_address(text)))
        except ValueError:
            continue
    return tuple(ips[:MAX_CLIENT_IPS]) or ("0.0.0.0",)
