"""Reads of access: who is privileged, what a secret link's token opens, an item's links."""
from __future__ import annotations

from datetime import date

from django.db.models import Q, QuerySet
from django.utils import timezone

from ..models import AccessLink, AccessRequest, Bundle, Item
from . import policy

# Why a token opens nothing (the 403 says which): a revoked or an expired link; anything else
# (garbage, a link of another item) is unknown, alike, so that no answer tells a token that
# opens another item from a guess.
UNKNOWN, EXPIRED, REVOKED = "unknown", "expired", "revoked"


def privileged(user) -> bool:
    """Whether a user reads everything: an active account with the view permission on items
    (librarians, staff in the Librarians group; and the account another Archive copies
    with, `manage.py createpeer`)."""
    return bool(user is not None and user.is_authenticated and user.is_active
                and user.has_perm("archive.view_item"))


def link_for(token: str, item_id: int, today: date | None = None
             ) -> tuple[AccessLink | None, str | None]:
    """(the secret link `token` is, None) when it opens the item `item_id` today; else (the
    link the token is, if any, why not: UNKNOWN, EXPIRED or REVOKED; another item's link is
    UNKNOWN, as a guess is, so that no answer tells it opens something else). One indexed
    query whatever the token, so that answering a guess takes as long as answering a link."""
    today = today or timezone.localdate()
    link = AccessLink.objects.filter(token_hash=policy.token_hash(token)).first()
    if link is None or link.item_id != item_id:
        return link, UNKNOWN
    if link.revoked_at is not None:
        return link, REVOKED
    if link.expires <= today:
        return link, EXPIRED
    return link, None


def links_of(item: Item) -> QuerySet[AccessLink]:
    """An item's secret links, newest first (their tokens are not kept)."""
    return AccessLink.objects.filter(item=item).order_by("-created", "-id")


def pending_requests() -> int:
    """How many requests for a copy wait for an answer (the admin's index and menu)."""
    return AccessRequest.objects.filter(status=AccessRequest.Status.PENDING,
                                        erased_at=None).count()


def open_to_all(prefix: str = "") -> Q:
    """The files open to all, as a query condition on ItemFile (or, with `prefix`, say
    "file__", on a model that points to one): `policy.is_open` and `policy.may_read_bundle`
    for the public reader, asked of every level, flag and bundle there is, not a rule of its
    own. What search may match and show of a file's text (archive/search/fulltext.py): a
    search's answer is kept for everyone, so it is built for the public reader."""
    levels = Q(pk__in=[])
    for level in policy.COAR_RIGHTS:
        for restricted in (False, True):
            if policy.is_open(level, restricted):
                levels |= Q(**{f"{prefix}item__access_rights": level,
                               f"{prefix}restricted": restricted})
    bundles = [bundle for bundle in Bundle.values
               if policy.may_read_bundle(policy.PUBLIC, None, policy.OPEN, False, bundle)]
    return levels & Q(**{f"{prefix}bundle__in": bundles})
