"""Idempotency-Key: a client that lost an answer sends the write again without doing it twice.

Every write of the API takes the header (archive/api/idempotency.py); this module keeps the
keys. A key belongs to one user and is kept for IDEMPOTENCY_TTL. Its first request claims it
(a row committed before the write starts), writes, and records the item it wrote:

- the same key and the same request again → the item as it is now, with the first answer's
  status (the API says ``Idempotent-Replayed: true``), and nothing written twice;
- the same key and another request (another method, path, fields or files) → 409;
- the same key while its first request is still at work → 409 "in progress": the second request
  does not wait (a deposit may take minutes of upload), the client retries later;
- a write that fails releases the key, so that the corrected request may use it;
- the item is linked to its key in the write's own transaction (the services' `on_saved`), so a
  process killed at any point leaves either the write with its key (a retry replays it) or
  neither; a claim left without an item by a killed process is taken over by the next retry
  once it is IDEMPOTENCY_ABANDONED old. Should the first request still be at work (a write
  slower than that), it has lost the key: its write is rolled back and it answers 409.

"The same request" is its fingerprint: the sha256 of its method, path, fields and files' names
and checksums (`fingerprint`), so a retry need not send byte-identical multipart framing.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from ..models import IdempotencyKey, Item
from .services import Conflict, ServiceError

IDEMPOTENCY_TTL = timedelta(hours=24)
IDEMPOTENCY_ABANDONED = timedelta(minutes=15)
MAX_KEY_LENGTH = 255


def fingerprint(method: str, path: str, fields: object, files: list[tuple[str, str]]) -> str:
    """sha256 of a request: its method and path, its fields (any JSON value: a form's names
    with their lists of values, a JSON body as sent) and its files (name, sha256), in order;
    the order of an object's keys does not matter.

    >>> a = fingerprint("POST", "/api/items/", {"title": ["T"]}, [("a.pdf", "0" * 64)])
    >>> a == fingerprint("POST", "/api/items/", {"title": ["T"]}, [("a.pdf", "0" * 64)])
    True
    >>> a == fingerprint("PATCH", "/api/items/", {"title": ["T"]}, [("a.pdf", "0" * 64)])
    False
    """
    canonical = json.dumps({"method": method, "path": path, "fields": fields, "files": files},
                           ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


def check_key(key: str) -> str:
    if not key or len(key) > MAX_KEY_LENGTH or not key.isascii() or not key.isprintable():
        raise ServiceError(_("Idempotency-Key must be 1 to %(count)d printable ASCII characters")
                           % {"count": MAX_KEY_LENGTH})
    return key


@dataclass
class Claim:
    """A key held by the request at work on it, or found done (`replay`: the item it wrote,
    and `status`, the HTTP status of the first answer)."""

    pk: int
    since: datetime  # the claim's timestamp is its owner's token (see `link`)
    status: int
    replay: Item | None = None

    def link(self, item: Item) -> None:
        """Record the item written, in the write's own transaction (the services' `on_saved`):
        a claim taken over meanwhile by a retry is not ours any more, and the write rolls back."""
        if not IdempotencyKey.objects.filter(pk=self.pk, created=self.since,
                                             item=None).update(item=item):
            raise Conflict(_("another request with this Idempotency-Key took it over; retry "
                             "to get its answer"))

    def release(self) -> None:
        """The write failed: the key is free again (unless a retry took it over meanwhile, or
        the write was linked)."""
        IdempotencyKey.objects.filter(pk=self.pk, created=self.since, item=None).delete()


def claim(*, user, key: str, request_fingerprint: str, status: int) -> Claim:
    """The key for this request (Conflict: another request's, or at work); `replay` set when
    the same request was done before. `status` is what this request answers when it succeeds."""
    key = check_key(key)
    now = timezone.now()
    # Expired keys go on any keyed write: no task to schedule, and the table stays small.
    IdempotencyKey.objects.filter(created__lt=now - IDEMPOTENCY_TTL).delete()
    try:
        with transaction.atomic():
            row = IdempotencyKey.objects.create(user=user, key=key, created=now, status=status,
                                                fingerprint=request_fingerprint)
        return Claim(row.pk, now, status)
    except IntegrityError:
        existing = IdempotencyKey.objects.select_related("item").get(user=user, key=key)
    if existing.fingerprint != request_fingerprint:
        raise Conflict(_("this Idempotency-Key was used for another request; use a new key "
                         "for a new request"))
    if existing.item is not None:
        return Claim(existing.pk, existing.created, existing.status, replay=existing.item)
    # No item yet: still at work, or its process was killed (then take the claim over, once,
    # by the claim's own timestamp: two retries cannot both win it).
    taken = IdempotencyKey.objects.filter(
        pk=existing.pk, item=None, created=existing.created,
        created__lt=now - IDEMPOTENCY_ABANDONED).update(created=now)
    if not taken:
        raise Conflict(_("a request with this Idempotency-Key is in progress; retry it later"))
    return Claim(existing.pk, now, existing.status)
