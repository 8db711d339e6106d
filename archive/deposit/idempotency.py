"""Idempotency-Key for deposits: a client that lost the answer retries without a duplicate.

A key belongs to one user and is kept for IDEMPOTENCY_TTL. Its first request claims it (a row
committed before the deposit starts), deposits, and records the item:

- the same key and the same request again → the same item (the API replays its 201);
- the same key and another request (other fields or files) → 409;
- the same key while its first request is still depositing → 409 "in progress": the second
  request does not wait (a deposit may take minutes of upload), the client retries later;
- a deposit that fails releases the key, so that the corrected request may use it;
- the item is linked to its key in the deposit's own transaction, so a process killed at any
  point leaves either the item with its key (a retry replays it) or neither; a claim left
  without an item by a killed process is taken over by the next retry once it is
  IDEMPOTENCY_ABANDONED old. Should the first request still be at work (a deposit slower
  than that), it has lost the key: its item is rolled back and it answers 409.

"The same request" is its fingerprint: the sha256 of its fields and of its files' names and
checksums (`fingerprint`), so a retry need not send byte-identical multipart framing.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from ..models import IdempotencyKey, Item
from .services import Conflict, ServiceError

IDEMPOTENCY_TTL = timedelta(hours=24)
IDEMPOTENCY_ABANDONED = timedelta(minutes=15)
MAX_KEY_LENGTH = 255


def fingerprint(fields: dict[str, list[str]], files: list[tuple[str, str]]) -> str:
    """sha256 of a request: its fields (each name's values, in order) and its files (name,
    sha256), in order; the order of the field names does not matter.

    >>> fingerprint({"title": ["T"]}, [("a.pdf", "0" * 64)]) == fingerprint(
    ...     {"title": ["T"]}, [("a.pdf", "0" * 64)])
    True
    """
    canonical = json.dumps({"fields": sorted(fields.items()), "files": files},
                           ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def check_key(key: str) -> str:
    if not key or len(key) > MAX_KEY_LENGTH or not key.isascii() or not key.isprintable():
        raise ServiceError(_("Idempotency-Key must be 1 to %(count)d printable ASCII characters")
                           % {"count": MAX_KEY_LENGTH})
    return key


def once(*, user, key: str, request_fingerprint: str,
         deposit: Callable[[Callable[[Item], None]], Item]) -> tuple[Item, bool]:
    """(item, replayed): `deposit(on_saved)` run at most once per (user, key) within the TTL;
    it calls `on_saved(item)` in the transaction that saves the item."""
    key = check_key(key)
    now = timezone.now()
    # Expired keys go on any keyed write: no task to schedule, and the table stays small.
    IdempotencyKey.objects.filter(created__lt=now - IDEMPOTENCY_TTL).delete()
    try:
        with transaction.atomic():
            claim = IdempotencyKey.objects.create(user=user, key=key, created=now,
                                                  fingerprint=request_fingerprint)
    except IntegrityError:
        existing = IdempotencyKey.objects.select_related("item").get(user=user, key=key)
        if existing.fingerprint != request_fingerprint:
            raise Conflict(_("this Idempotency-Key was used for another request; use a new "
                             "key for a new deposit")) from None
        if existing.item is not None:
            return existing.item, True
        # No item yet: still depositing, or its process was killed (then take the claim over,
        # once, by the claim's own timestamp: two retries cannot both win it).
        taken = IdempotencyKey.objects.filter(
            pk=existing.pk, item=None, created=existing.created,
            created__lt=now - IDEMPOTENCY_ABANDONED).update(created=now)
        if not taken:
            raise Conflict(_("a request with this Idempotency-Key is in progress; retry it "
                             "later")) from None
        claim = existing
    # The claim's timestamp is its owner's token: a first request slower than
    # IDEMPOTENCY_ABANDONED, whose claim was taken over, can neither link its item (its
    # deposit rolls back with a 409) nor release the claim of the request that took it.
    mine = IdempotencyKey.objects.filter(pk=claim.pk, created=now, item=None)

    def link(item: Item) -> None:
        if not mine.update(item=item):
            raise Conflict(_("another request with this Idempotency-Key took it over; retry "
                             "to get its answer"))

    try:
        item = deposit(link)
    except BaseException:
        mine.delete()
        raise
    return item, False
