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

A deposit sent without a key is recognised by its content (`repeated_deposit`,
`remember_deposit`, which the API and the admin call around services.item_deposit): the same
depositor, the same fields (title, language, target file, links, Dublin Core) and the same
files (names and checksums: those sent with it, then the pending uploads it names, by their
bytes and never by their ids, which are new each time the files are uploaded again;
`deposit_content`) within IBI_DEPOSIT_REPEAT_WINDOW seconds is the same deposit,
answered with the first item, never a second one. Its row is kept among the keys under a
name no client key can have (keys are ASCII), written in the deposit's own transaction: two
identical deposits at once both reach that insert, and the second waits for the first's
commit, then gives way to it. A deposit of the same content meant twice sends an
Idempotency-Key with each.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from ..models import Collection, Community, IdempotencyKey, Item
from . import pending
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


def deposit_content(user, fields: object, files: list[tuple[str, str]],
                    upload_ids: Iterable) -> str:
    """The fingerprint of a deposit as a repeat of it is recognised, whichever edge it came
    through: its fields (without the uploads' ids), the files sent with it (name, sha256), then
    the user's pending uploads it names, each as its name and sha256. An id that names no
    complete upload of the user's stays as written (the deposit will refuse it)."""
    named = []
    for upload_id in upload_ids:
        try:
            upload = pending.find(user, upload_id)
        except pending.NotFound:
            upload = None
        named.append((upload.name, upload.sha256) if upload is not None and upload.complete
                     else (str(upload_id), ""))
    return fingerprint("POST", "deposit", fields, [*files, *named])


# The name of a deposit recognised by its content: "§" never starts a client's (ASCII) key.
CONTENT_KEY = "§deposit "


class Raced(Exception):
    """An identical deposit committed first, while this one was at work: it is the deposit."""


def _window() -> timedelta:
    return timedelta(seconds=settings.IBI_DEPOSIT_REPEAT_WINDOW)


def repeated_deposit(user, content: str) -> Item | None:
    """The live item `user` deposited with this content fingerprint within the window."""
    if not settings.IBI_DEPOSIT_REPEAT_WINDOW or user is None:
        return None
    row = (IdempotencyKey.objects.filter(user=user, key=CONTENT_KEY + content,
                                         created__gte=timezone.now() - _window())
           .exclude(item=None).exclude(item__state=Item.State.DELETED)
           .select_related("item").first())
    return row.item if row is not None else None


def remember_deposit(user, content: str, item: Item) -> None:
    """In the deposit's transaction (the services' `on_saved`): `item` is the deposit of this
    content. Raced when an identical deposit committed first (this insert waited for that
    commit): the caller rolls back and answers with that one (`repeated_deposit`)."""
    if not settings.IBI_DEPOSIT_REPEAT_WINDOW or user is None:
        return
    now = timezone.now()
    key = CONTENT_KEY + content
    # What is past the window, or was deleted since, is no deposit to answer with any more.
    IdempotencyKey.objects.filter(user=user, key=key).filter(
        Q(created__lt=now - _window()) | Q(item__state=Item.State.DELETED)).delete()
    IdempotencyKey.objects.filter(created__lt=now - IDEMPOTENCY_TTL).delete()
    try:
        with transaction.atomic():
            IdempotencyKey.objects.create(user=user, key=key, fingerprint=content, item=item,
                                          created=now, status=201)
    except IntegrityError:
        raise Raced from None


# What a keyed write wrote: an item, or (POST /api/communities/, /api/collections/) a node of
# the tree; the row's field that holds each.
Written = Item | Community | Collection
_FIELDS = {Item: "item", Community: "community", Collection: "collection"}
NOTHING_WRITTEN = Q(item=None, community=None, collection=None)


def check_key(key: str) -> str:
    if not key or len(key) > MAX_KEY_LENGTH or not key.isascii() or not key.isprintable():
        raise ServiceError(_("Idempotency-Key must be 1 to %(count)d printable ASCII characters")
                           % {"count": MAX_KEY_LENGTH})
    return key


@dataclass
class Claim:
    """A key held by the request at work on it, or found done (`replay`: the item, community
    or collection it wrote, and `status`, the HTTP status of the first answer)."""

    pk: int
    since: datetime  # the claim's timestamp is its owner's token (see `link`)
    status: int
    replay: Written | None = None

    def link(self, item: Written) -> None:
        """Record the item (community, collection) written, in the write's own transaction
        (the services' `on_saved`): a claim taken over meanwhile by a retry is not ours any
        more, and the write rolls back."""
        if not IdempotencyKey.objects.filter(NOTHING_WRITTEN, pk=self.pk,
                                             created=self.since).update(
                **{_FIELDS[type(item)]: item}):
            raise Conflict(_("another request with this Idempotency-Key took it over; retry "
                             "to get its answer"))

    def release(self) -> None:
        """The write failed: the key is free again (unless a retry took it over meanwhile, or
        the write was linked)."""
        IdempotencyKey.objects.filter(NOTHING_WRITTEN, pk=self.pk, created=self.since).delete()


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
        existing = IdempotencyKey.objects.select_related("item", "community", "collection").get(
            user=user, key=key)
    if existing.fingerprint != request_fingerprint:
        raise Conflict(_("this Idempotency-Key was used for another request; use a new key "
                         "for a new request"))
    written = existing.item or existing.community or existing.collection
    if written is not None:
        return Claim(existing.pk, existing.created, existing.status, replay=written)
    # No item yet: still at work, or its process was killed (then take the claim over, once,
    # by the claim's own timestamp: two retries cannot both win it).
    taken = IdempotencyKey.objects.filter(
        NOTHING_WRITTEN, pk=existing.pk, created=existing.created,
        created__lt=now - IDEMPOTENCY_ABANDONED).update(created=now)
    if not taken:
        raise Conflict(_("a request with this Idempotency-Key is in progress; retry it later"))
    return Claim(existing.pk, now, existing.status)
