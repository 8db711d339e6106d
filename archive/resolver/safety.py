"""The URLs the resolver may redirect to: only ones on the Archive that gave them.

A URL is only ever taken when it points at the Archive that gave it (`safe_url`). Its host
must be one of that Archive's spellings the resolver knows before it asks: the registered
address (the ``archiveaddress`` its inclusion gave, which the resolver confirmed by calling
it back), the ``archiveip`` of that inclusion, or the IP the resolver reached it at. The port
is the registered address's (80 may be written or left out, 443 too for https), or the port
of the answer's own ``archiveaddress`` pair when that names one of those hosts: an Archive
may move to another port of its own host, never to another host. A host name the Archive
did not register is not looked up (no DNS on an answer's say-so): an Archive whose URLs use
another name includes itself under that name. Our own answers use our address. Other URLs
are dropped, logged.
"""
from __future__ import annotations

import logging
import re
from collections.abc import Sequence

from django.utils.http import url_has_allowed_host_and_scheme

from ..protocol import client
from ..protocol.pairs import Value
from .reading import is_url

logger = logging.getLogger(__name__)

_URL_CHARS = re.compile(r"[\x21-\x7e]+")  # printable ASCII: what a word of Table 6.2 holds


def allowed_netlocs(address: str, hosts: Sequence[str] = (), vouched: str | None = None
                    ) -> set[str]:
    """The host[:port] a URL from the Archive at address may name (see the module docstring):
    address's host and the other hosts on address's port, plus vouched's port (the answer's
    ``archiveaddress``) when vouched names one of those hosts::

        >>> sorted(allowed_netlocs("mtc-m16d.sid.inpe.br", ["150.163.2.174"]))
        ['150.163.2.174', '150.163.2.174:80', 'mtc-m16d.sid.inpe.br', 'mtc-m16d.sid.inpe.br:80']
        >>> sorted(allowed_netlocs("a.example:8001", [], vouched="a.example:8002"))
        ['a.example:8001', 'a.example:8002']
        >>> allowed_netlocs("a.example:8001", [], vouched="evil.example:8001")
        {'a.example:8001'}
    """
    try:
        host, port = client.split_address(address)
    except client.AddressError:
        return set()
    names = {host}
    for other in hosts:
        try:
            names.add(client.split_address(f"[{other}]" if ":" in other else other)[0])
        except client.AddressError:
            continue
    ports = {port}
    if vouched:
        try:
            vouched_host, vouched_port = client.split_address(vouched)
        except client.AddressError:
            vouched_host = ""
        if vouched_host in names:
            ports.add(vouched_port)
    allowed = set()
    for name in names:
        shown = f"[{name}]" if ":" in name else name
        allowed |= {f"{shown}:{p}" for p in ports}
        allowed |= {shown} if ports & {80, 443} else set()
    return allowed


def safe_url(url: str, address: str, hosts: Sequence[str] = (), vouched: str | None = None
             ) -> bool:
    """Whether url is an absolute http(s) URL on one of `allowed_netlocs` (Django's own check
    refuses scheme-relative, backslash, control-character and userinfo tricks)::

        >>> safe_url("http://a.example:8001/col/x/doc/f.pdf", "a.example:8001")
        True
        >>> safe_url("http://a.example:8001@evil.example/", "a.example:8001")
        False
        >>> safe_url("http://127.0.0.1:8001/col/x/doc/f.pdf", "localhost:8001", ["127.0.0.1"])
        True
    """
    allowed = allowed_netlocs(address, hosts, vouched)
    if (not isinstance(url, str) or len(url) > 4096 or not _URL_CHARS.fullmatch(url)
            or not url.lower().startswith(("http://", "https://"))):
        return False
    lowered = re.sub(r"^(https?://)([^/?#]*)", lambda m: m[1] + m[2].lower(), url)
    return url_has_allowed_host_and_scheme(lowered, allowed_hosts=allowed)


def sanitized(source, pairs: dict[str, Value]) -> dict[str, Value]:
    kept = {}
    vouched = pairs.get("archiveaddress")
    vouched = vouched if isinstance(vouched, str) else None
    for name, value in pairs.items():
        if is_url(name) and not (isinstance(value, str) and safe_url(
                value, source.address, source.hosts, vouched)):
            logger.warning("resolver: dropped %s from %s: not a URL on its address %s",
                           name, source.service_ibi, source.address)
            continue
        kept[name] = value
    return kept
