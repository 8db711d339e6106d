"""urlkeys (Table 7.1 grammar) and the acknowledgments that bring them back (Table 8.11).

A key is ``<unix seconds>-<item id><8-digit nonce><15-digit HMAC>``, signed with SECRET_KEY,
so a urlRequest writes nothing. An acknowledgment counts at most once, when its key is ours
(issued in an answer to a urlRequest), at most IBI_URLKEY_MAX_AGE seconds old and not
counted before (the AcknowledgedUrlkey rows, kept that long); and what it reports passes
COUNTER's filters as this Archive's own accesses do (archive/usage/filters.py): anyone
may ask for a key, so a key is no proof of a reader. The reader is the addresses the
acknowledgment reports and the address it came from, with the sender's User-Agent: the same
reader on the same URL within 30 s is a double click, and a sender on COUNTER's robots list (a
script such as curl, an empty User-Agent) counts nothing. Every well-formed acknowledgment is
answered alike.
"""
from __future__ import annotations

import functools
import hashlib
import hmac
import re
import secrets
import time
from collections.abc import Sequence

from django.conf import settings
from django.utils import timezone
from django.utils.crypto import constant_time_compare

from ..usage import counter as access_counter

_OUR_KEY = re.compile(r"([0-9]{10,})-([1-9][0-9]*)([0-9]{8})([0-9]{15})")


def _mac(seconds: str, item_id: str, nonce: str) -> str:
    """django.utils.crypto.salted_hmac("archive.urlkey", …, algorithm="sha256"), with the
    keyed HMAC made once per secret and copied: every urlRequest answer issues a key."""
    mac = _keyed(settings.SECRET_KEY).copy()
    mac.update(f"{seconds}-{item_id}-{nonce}".encode())
    return f"{int.from_bytes(mac.digest()[:8], 'big') % 10**15:015d}"


@functools.lru_cache(maxsize=4)  # one secret, another in a test's override_settings
def _keyed(secret: str) -> hmac.HMAC:
    return hmac.new(hashlib.sha256(b"archive.urlkey" + secret.encode()).digest(),
                    digestmod=hashlib.sha256)


def issue_urlkey(item_id: int, now: float | None = None) -> str:
    """A fresh key for one answer about item_id, e.g. ``1426203276-1284619307551928371640421``."""
    seconds = str(int(time.time() if now is None else now))
    nonce = f"{secrets.randbelow(10**8):08d}"
    return f"{seconds}-{item_id}{nonce}{_mac(seconds, str(item_id), nonce)}"


def read_urlkey(key: str, now: float | None = None) -> int | None:
    """The item id of a key this Archive issued less than IBI_URLKEY_MAX_AGE ago, else None."""
    match = _OUR_KEY.fullmatch(key)
    if not match:
        return None
    seconds, item_id, nonce, mac = match.groups()
    if not constant_time_compare(mac, _mac(seconds, item_id, nonce)):
        return None
    age = (time.time() if now is None else now) - int(seconds)
    if not -60 <= age <= settings.IBI_URLKEY_MAX_AGE:  # a minute of clock skew between workers
        return None
    return int(item_id)


def record_acknowledgment(*, urlkey: str, client_ips: Sequence[str], relation: str,
                          sender_ip: str = "", user_agent: str | None = None,
                          now: float | None = None) -> bool:
    """Count the access an acknowledgment reports, once per key we issued, through COUNTER's
    filters (the reader: `client_ips` as reported, then `sender_ip`, the address the
    acknowledgment came from; `user_agent`, the sender's, None: not known); False when the
    key is not ours or was counted before. No address is stored (filters.py)."""
    item_id = read_urlkey(urlkey, now)
    if item_id is None:
        return False
    reader = [*client_ips, sender_ip] if sender_ip else list(client_ips)
    return access_counter.count_acknowledgment(urlkey=urlkey, item_id=item_id,
                                               relation=relation, at=timezone.now(),
                                               client_ips=reader, user_agent=user_agent)
