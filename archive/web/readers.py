"""Who reads, as archive/access/policy.py's `Reader`: the request's user (its session, or an
API token in ``Authorization: Token …``, as the API reads it) and its secret link
(``?token=…``). A token is always looked up, and a link that opens the item is never refused,
whatever failed before from the same address (a campus behind one NAT shares it). Refused
tokens are counted (FailureThrottle "access_token_failure", IBI_ACCESS_TOKEN_FAILURES): per
link tried when the token is one (expired, revoked, another item's), per client address only
when it is no link at all; past the limit the refusal is 429 instead of 403."""
from __future__ import annotations

from dataclasses import dataclass

from django.http import HttpRequest
from rest_framework.exceptions import APIException

from ..access import policy, selectors
from ..models import AccessLink, Item
from .authentication import ThrottledTokenAuthentication
from .throttling import FailureThrottle


@dataclass(frozen=True)
class Reading:
    """A request's reader for one item; `user` (privileged) or `link` say who, for the audit
    trail. `refused`: why the request's token opens nothing (access/selectors.py: unknown,
    expired, revoked); `retry_after`: seconds, when wrong tokens from this address are
    throttled."""

    reader: policy.Reader = policy.PUBLIC
    user: object = None
    link: AccessLink | None = None
    refused: str | None = None
    retry_after: int | None = None


def has_token(request: HttpRequest) -> bool:
    return "token" in request.GET


def privileged_user(request: HttpRequest, user=None):
    """The privileged user of the request, or None: `user` (what DRF authenticated), else the
    session's, else an API token's."""
    for found in (user, getattr(request, "user", None)):
        if selectors.privileged(found):
            return found
    if request.META.get("HTTP_AUTHORIZATION", "").startswith("Token "):
        try:
            authenticated = ThrottledTokenAuthentication().authenticate(request)
        except APIException:
            return None
        if authenticated and selectors.privileged(authenticated[0]):
            return authenticated[0]
    return None


def reading(request: HttpRequest, item: Item, user=None) -> Reading:
    """Who reads `item` in this request."""
    privileged = privileged_user(request, user)
    if privileged is not None:
        return Reading(policy.LIBRARIAN, user=privileged)
    if not has_token(request):
        return Reading()
    link, why = selectors.link_for(request.GET.get("token", ""), item.pk)
    if why is None:
        return Reading(policy.Reader(link_item=item.pk), link=link)
    throttle = FailureThrottle("access_token_failure",
                               f"link:{link.pk}" if link is not None else None)
    wait = throttle.retry_after(request)
    if wait is None:
        throttle.record(request)
    return Reading(refused=why, retry_after=wait)
