"""Writes of access: secret links, requests for a copy and their answers, embargoes lifted,
reads of closed files recorded. An item's own level is set by deposit/services.py
`item_set_access` (every write to an item is there).

Every function is keyword-only and raises deposit.services' ServiceError (a 4xx for the
edges) with the reason, having changed nothing.
"""
from __future__ import annotations

import logging
import re
import unicodedata
from datetime import date, timedelta

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.core.validators import validate_email
from django.db import transaction
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from ..deposit import links
from ..deposit.services import Conflict, ServiceError
from ..models import AccessLink, AccessRead, AccessRequest, AccessRights, Item
from . import policy

logger = logging.getLogger(__name__)

_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def _text(what: str, value: str, limit: int, *, required: bool = False) -> str:
    text = (value or "").strip() if isinstance(value, str) else None
    if text is None:
        raise ServiceError(_("%(what)s is not a text") % {"what": what})
    if any(unicodedata.category(c) == "Cc" and c not in "\t\n\r" for c in text):
        raise ServiceError(_("%(what)s contains a control character") % {"what": what})
    if required and not text:
        raise ServiceError(_("%(what)s is required") % {"what": what})
    if len(text) > limit:
        raise ServiceError(_("%(what)s is limited to %(count)d characters")
                           % {"what": what, "count": limit})
    return text


def _day(value: date | str, today: date) -> date:
    if isinstance(value, str) and _DAY.fullmatch(value.strip()):
        try:
            value = date.fromisoformat(value.strip())
        except ValueError:
            pass
    if not isinstance(value, date):
        raise ServiceError(_("expires %(value)r is not a date: write it as YYYY-MM-DD")
                           % {"value": value})
    if value <= today:
        raise ServiceError(_("expires %(day)s is not after today (%(today)s): a link expires "
                             "on a day to come") % {"day": value.isoformat(),
                                                    "today": today.isoformat()})
    return value


def _opens_something(item: Item) -> None:
    """ServiceError unless a secret link would open something of the item."""
    if item.is_deleted:
        raise Conflict(_("%(ibi)s is deleted") % {"ibi": item.ibi})
    if item.access_rights == AccessRights.METADATA_ONLY:
        raise ServiceError(_("the files of %(ibi)s are for librarians only (metadata only): "
                             "no link opens them") % {"ibi": item.ibi})
    restricted = item.files.filter(restricted=True).exists()
    if not policy.opens_by_link(item.access_rights, [restricted]):
        raise ServiceError(_("every file of %(ibi)s is open to all: a link would open "
                             "nothing") % {"ibi": item.ibi})


# -- Secret links ------------------------------------------------------------------------------

def create_link(*, item: Item, expires: date | str, note: str = "",
                by: AbstractBaseUser | None = None, request: AccessRequest | None = None,
                today: date | None = None) -> tuple[AccessLink, str]:
    """A new secret link to the item's files until `expires` (the first day it no longer
    works, after today): the link, and its token, which is given once and never kept."""
    today = today or timezone.localdate()
    expires = _day(expires, today)
    note = _text(_("note"), note, AccessLink._meta.get_field("note").max_length)
    _opens_something(item)
    token = policy.new_token()
    link = AccessLink.objects.create(
        item=item, token_hash=policy.token_hash(token), note=note, expires=expires,
        created_by=by if by is not None and by.is_authenticated else None, request=request)
    return link, token


def revoke_link(*, link: AccessLink) -> AccessLink:
    """The link opens nothing from now on; revoking it again changes nothing."""
    if link.revoked_at is None:
        link.revoked_at = timezone.now()
        link.save(update_fields=["revoked_at"])
    return link


# -- Requests for a copy -----------------------------------------------------------------------

def request_access(*, item: Item, name: str, email: str, reason: str,
                   language: str = "") -> AccessRequest:
    """A reader's request for the item's closed files, for the librarians to answer."""
    name = _text(_("name"), name, AccessRequest._meta.get_field("name").max_length,
                 required=True)
    email = _text(_("email"), email, 254, required=True)
    try:
        validate_email(email)
    except ValidationError:
        raise ServiceError(_("%(email)r is not an email address") % {"email": email}) from None
    reason = _text(_("reason"), reason, AccessRequest._meta.get_field("reason").max_length,
                   required=True)
    _opens_something(item)
    return AccessRequest.objects.create(item=item, name=name, email=email, reason=reason,
                                        language=(language or "")[:8])


def _decide(request: AccessRequest, by, status: str, message: str) -> None:
    if request.status != AccessRequest.Status.PENDING:
        raise Conflict(_("this request was answered already (%(status)s)")
                       % {"status": request.get_status_display()})
    request.status = status
    request.decided_at = timezone.now()
    request.decided_by = by if by is not None and by.is_authenticated else None
    request.message = _text(_("message"), message, 5000)


@transaction.atomic
def approve(*, request: AccessRequest, by: AbstractBaseUser | None = None, message: str = "",
            base: str | None = None) -> tuple[AccessRequest, str]:
    """Approve a pending request: a secret link valid IBI_ACCESS_LINK_DAYS days is made for
    it. The request, and the link's URL for `mail_answer` (the edge enqueues it after the
    commit: archive/access/tasks.py `mail_after_commit`)."""
    request = AccessRequest.objects.select_for_update().select_related("item").get(
        pk=request.pk)
    _decide(request, by, AccessRequest.Status.APPROVED, message)
    today = timezone.localdate()
    _link, token = create_link(item=request.item, by=by, request=request, today=today,
                               expires=today + timedelta(days=settings.IBI_ACCESS_LINK_DAYS),
                               note=_("request of %(name)s") % {"name": request.name})
    request.save()
    return request, links.secret_link_url(request.item.ibi, token, base)


@transaction.atomic
def refuse(*, request: AccessRequest, by: AbstractBaseUser | None = None,
           message: str = "") -> AccessRequest:
    """Refuse a pending request; the reader is told so (`mail_answer`), with the librarian's
    message."""
    request = AccessRequest.objects.select_for_update().select_related("item").get(
        pk=request.pk)
    _decide(request, by, AccessRequest.Status.REFUSED, message)
    request.save()
    return request


def mail_answer(*, request_id: int, url: str | None) -> None:
    """Mail the reader the answer to their request, in the language they asked in: the
    secret link (`url`) when approved. Raises what the mail server raises."""
    request = AccessRequest.objects.select_related("item").get(pk=request_id)
    approved = request.status == AccessRequest.Status.APPROVED
    with translation.override(request.language or settings.LANGUAGE_CODE):
        context = {"request": request, "item": request.item, "url": url,
                   "expires": getattr(getattr(request, "link", None), "expires", None),
                   "persistent_url": links.persistent_url(request.item.ibi)}
        template = "archive/access/mail_approved.txt" if approved else (
            "archive/access/mail_refused.txt")
        body = render_to_string(template, context)
        subject = (_("Your request for %(title)s") % {"title": request.item.title})[:200]
    send_mail(" ".join(subject.split()), body, None, [request.email])
    AccessRequest.objects.filter(pk=request.pk).update(mailed_at=timezone.now())


# -- Embargoes lifted --------------------------------------------------------------------------

def lift_embargoes(*, today: date | None = None) -> list[str]:
    """Open every Original whose embargo's first open day has come (today in TIME_ZONE, or
    before): its level becomes open, its datestamp moves, so harvesters and every kept answer
    see it at once. Idempotent, safe at any time. A Copy is left to follow its Original (a
    refresh brings the Original's level). The IBIs opened."""
    today = today or timezone.localdate()
    opened = []
    due = (Item.objects.filter(access_rights=AccessRights.EMBARGOED, embargo_until__lte=today)
           .exclude(state__in=[Item.State.COPY, Item.State.DELETED]).order_by("pk"))
    for item in due:
        with transaction.atomic():
            locked = Item.objects.select_for_update().get(pk=item.pk)
            if not policy.lifted(locked.access_rights, locked.embargo_until, today):
                continue  # changed meanwhile
            locked.access_rights, locked.embargo_until = AccessRights.OPEN, None
            locked.access_reason = ""
            locked.save(update_fields=["access_rights", "embargo_until", "access_reason",
                                       "updated"])
        opened.append(item.ibi)
        logger.info("access: the embargo of %s is over, its files are open", item.ibi)
    return opened


# -- The audit trail ---------------------------------------------------------------------------

def record_read(*, item: Item, file_name: str, user: AbstractBaseUser | None = None,
                link: AccessLink | None = None) -> AccessRead:
    """One read of a closed file: by whom or through which link, when. No IP address."""
    who = user.get_username() if user is not None and user.is_authenticated else ""
    return AccessRead.objects.create(item=item, file_name=file_name, at=timezone.now(),
                                     user=user if who else None, who=who, link=link)
