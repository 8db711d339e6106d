"""Writes of access: secret links, requests for a copy and their answers, embargoes lifted,
reads of closed files recorded. An item's own level is set by deposit/services.py
`item_set_access` (every write to an item is there).

Every function is keyword-only and raises deposit.services' ServiceError (a 4xx for the
edges) with the reason, having changed nothing.
"""
from __future__ import annotations

import logging
import re
import smtplib
import unicodedata
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from django.apps import apps
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.core.validators import validate_email
from django.db import transaction
from django.db.models import F
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from ..db import leases
from ..deposit import links
from ..deposit.services import Conflict, ServiceError
from ..models import AccessLink, AccessRead, AccessRequest, AccessRights, Item, PremisEvent
from . import notices, policy

logger = logging.getLogger(__name__)

_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


# Unicode's bidirectional formatting characters: invisible, they reorder the text around
# them, so a name or a reason holding one reads to a librarian otherwise than it is written.
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
                          "\u2066\u2067\u2068\u2069")


def clean_text(what: str, value: str, limit: int, *, required: bool = False,
               lines: bool = True) -> str:
    """`value` stripped, or ServiceError saying what is wrong with it: not a text, a control
    character (but a line break or a tab where `lines` are allowed), a bidirectional
    formatting character, empty when `required`, longer than `limit`."""
    text = (value or "").strip() if isinstance(value, str) else None
    if text is None:
        raise ServiceError(_("%(what)s is not a text") % {"what": what})
    for c in text:
        if c in BIDI_CONTROLS:
            raise ServiceError(_("%(what)s holds %(code)s, an invisible character that changes "
                                 "the direction of the text around it: write it without")
                               % {"what": what, "code": f"U+{ord(c):04X}"})
        if unicodedata.category(c) == "Cc" and not (lines and c in "\t\n\r"):
            raise ServiceError(_("%(what)s holds %(code)s, a control character: write it "
                                 "without") % {"what": what, "code": f"U+{ord(c):04X}"})
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
    note = clean_text(_("note"), note, AccessLink._meta.get_field("note").max_length)
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

@transaction.atomic
def request_access(*, item: Item, name: str, email: str, reason: str,
                   language: str = "", base: str | None = None) -> AccessRequest:
    """A reader's request for the item's closed files, for the librarians to answer: its
    handlers are owed a notice (notices.py, mailed by the task `mail_request_notices`, which
    the edge nudges after the commit); `base` is the site's address the reader reached, which
    the notices' links name."""
    name = clean_text(_("name"), name, AccessRequest._meta.get_field("name").max_length,
                      required=True, lines=False)
    email = clean_text(_("email"), email, 254, required=True, lines=False)
    try:
        validate_email(email)
    except ValidationError:
        raise ServiceError(_("%(email)r is not an email address") % {"email": email}) from None
    reason = clean_text(_("reason"), reason,
                        AccessRequest._meta.get_field("reason").max_length, required=True)
    _opens_something(item)
    request = AccessRequest.objects.create(item=item, name=name, email=email, reason=reason,
                                           language=(language or "")[:8],
                                           mail_base=(base or "")[:255])
    notices.announce(request)
    return request


def _decide(request: AccessRequest, by, status: str, message: str) -> None:
    if request.erased_at is not None:
        raise Conflict(_("this request's personal data were erased (IBI_ACCESS_REQUEST_DAYS): "
                         "there is nobody to answer"))
    if request.status != AccessRequest.Status.PENDING:
        raise Conflict(_("this request was answered already (%(status)s)")
                       % {"status": request.get_status_display()})
    request.status = status
    request.decided_at = timezone.now()
    request.decided_by = by if by is not None and by.is_authenticated else None
    request.message = clean_text(_("message"), message, 5000)
    request.mail_due = request.decided_at  # the answer's mail is owed from now (`mail_owed`)


@transaction.atomic
def approve(*, request: AccessRequest, by: AbstractBaseUser | None = None, message: str = "",
            base: str | None = None) -> AccessRequest:
    """Approve a pending request: its answer is owed to the reader, a mail with a secret link
    valid IBI_ACCESS_LINK_DAYS days, made when the mail is written (`mail_owed`); `base` is
    the site's address the link names."""
    request = AccessRequest.objects.select_for_update().select_related("item").get(
        pk=request.pk)
    _decide(request, by, AccessRequest.Status.APPROVED, message)
    _opens_something(request.item)
    request.mail_base = (base or "")[:255]
    request.save()
    return request


@transaction.atomic
def refuse(*, request: AccessRequest, by: AbstractBaseUser | None = None,
           message: str = "") -> AccessRequest:
    """Refuse a pending request; the reader is told so by mail (`mail_owed`), with the
    librarian's message."""
    request = AccessRequest.objects.select_for_update().select_related("item").get(
        pk=request.pk)
    _decide(request, by, AccessRequest.Status.REFUSED, message)
    request.save()
    return request


def mail_answer(*, request: AccessRequest, url: str | None) -> None:
    """Mail the reader the answer to their request, in the language they asked in: the
    secret link (`url`) when approved. Raises what the mail server raises."""
    approved = request.status == AccessRequest.Status.APPROVED
    with translation.override(request.language or settings.LANGUAGE_CODE):
        context = {"request": request, "item": request.item, "url": url,
                   "expires": getattr(getattr(request, "link", None), "expires", None),
                   "persistent_url": links.persistent_url(request.item.ibi,
                                                          request.mail_base or None)}
        template = "archive/access/mail_approved.txt" if approved else (
            "archive/access/mail_refused.txt")
        body = render_to_string(template, context)
        subject = (_("Your request for %(title)s") % {"title": request.item.title})[:200]
    send_mail(" ".join(subject.split()), body, None, [request.email])
    AccessRequest.objects.filter(pk=request.pk).update(mailed_at=timezone.now(), mail_due=None)


# -- Answers mailed ------------------------------------------------------------------------------
# An answer decided is a mail owed (`AccessRequest.mail_due`, set by `_decide`), kept in the
# database until it is sent: a broker that is down or hangs, a mail server that refuses, a
# worker killed mid-send delay the mail and lose none (#30, 4). A worker takes what is due,
# out of reach for MAIL_LEASE (archive/db/leases.py), and tries each: sent → mailed; the mail
# server failed → due again after a backoff (a minute, doubling, at most an hour), given up
# after MAIL_ATTEMPTS tries (logged; the admin shows the answer as not mailed). An approval's
# secret link is made as its mail is written, its token only in the mail: a mail tried again
# carries a new token (the request has one link; a mail sent just before its worker was
# killed, and sent again, leaves the first token dead and the second one working).

# Longer than one mail may take (EMAIL_TIMEOUT for each step of SMTP); renewed for the rest
# while a batch is mailed.
MAIL_LEASE = timedelta(minutes=3)
MAIL_ATTEMPTS = 8
MAIL_FIRST_RETRY = timedelta(minutes=1)
MAIL_LONGEST_RETRY = timedelta(hours=1)


@dataclass
class Mailed:
    """What one `mail_owed` did, for the worker's log."""

    mailed: int = 0
    retried: int = 0
    given_up: int = 0

    def __str__(self) -> str:
        return f"{self.mailed} mailed, {self.retried} to retry, {self.given_up} given up"


def _due(now: datetime) -> list[AccessRequest]:
    """The answers owed and due now (at most 50), each moved past its lease: no other worker
    takes them meanwhile."""
    found = leases.take(AccessRequest.objects.filter(mailed_at=None, mail_due__lte=now)
                        .exclude(status=AccessRequest.Status.PENDING), order_by="mail_due",
                        limit=50, mail_due=timezone.now() + MAIL_LEASE,
                        mail_attempts=F("mail_attempts") + 1)
    return list(AccessRequest.objects.select_related("item", "decided_by")
                .filter(pk__in=[r.pk for r in found]).order_by("mail_due"))


class Revoked(Exception):
    """The link an approval's mail would carry was revoked before the mail went."""


@transaction.atomic
def _link_url(request: AccessRequest) -> str:
    """The secret link the approval's mail carries: the request's link, with a new token
    (ServiceError when the item opened meanwhile: a link would open nothing)."""
    today = timezone.localdate()
    expires = today + timedelta(days=settings.IBI_ACCESS_LINK_DAYS)
    link = AccessLink.objects.select_for_update().filter(request=request).first()
    if link is not None and link.revoked_at is not None:
        raise Revoked  # a librarian revoked it before its mail went: never brought back
    if link is None:
        # No note: the link names its request, and the reader's name stays in the request
        # alone, erased with it (LGPD).
        _link, token = create_link(item=request.item, by=request.decided_by, request=request,
                                   today=today, expires=expires)
    else:
        _opens_something(request.item)
        token = policy.new_token()
        AccessLink.objects.filter(pk=link.pk).update(token_hash=policy.token_hash(token),
                                                      expires=expires, revoked_at=None)
    return links.secret_link_url(request.item.ibi, token, request.mail_base or None)


def mail_owed(*, now: datetime | None = None) -> Mailed:
    """Mail every answer that is owed and due (see above)."""
    done = Mailed()
    while found := _due(now or timezone.now()):
        renewal = leases.Renewal(MAIL_LEASE)
        for position, request in enumerate(found):
            if renewal.due():
                leases.postpone(AccessRequest.objects.filter(
                    pk__in=[r.pk for r in found[position:]], mailed_at=None),
                    due="mail_due", wait=MAIL_LEASE)
            try:
                url = None
                if request.status == AccessRequest.Status.APPROVED:
                    try:
                        url = _link_url(request)
                    except ServiceError:  # opened meanwhile: its landing page opens the files
                        url = links.landing_url(request.item.ibi, request.mail_base or None)
                mail_answer(request=request, url=url)
            except Revoked:
                logger.info("access: the link for request %s was revoked before its mail went: "
                            "not mailed", request.pk)
                AccessRequest.objects.filter(pk=request.pk).update(mail_due=None)
                done.given_up += 1
                continue
            except Exception as exc:  # the mail server's failure, or an address it refuses
                if not isinstance(exc, smtplib.SMTPException | OSError):
                    logger.exception("access: the answer to request %s failed", request.pk)
                if request.mail_attempts >= MAIL_ATTEMPTS:
                    logger.error("access: the answer to request %s was not mailed, given up "
                                 "after %d tries: %s", request.pk, request.mail_attempts, exc)
                    AccessRequest.objects.filter(pk=request.pk).update(mail_due=None)
                    done.given_up += 1
                    continue
                backoff = leases.backoff(request.mail_attempts, first=MAIL_FIRST_RETRY,
                                         longest=MAIL_LONGEST_RETRY)
                logger.warning("access: the answer to request %s is not mailed yet (%s): "
                               "tried again in %s", request.pk, exc, backoff)
                leases.postpone(AccessRequest.objects.filter(pk=request.pk), due="mail_due",
                                wait=backoff)
                done.retried += 1
                continue
            done.mailed += 1
    return done


# -- Personal data kept no longer than needed (LGPD) ----------------------------------------------

def erase_old_requests(*, now: datetime | None = None) -> int:
    """Erase the personal data of every request made more than IBI_ACCESS_REQUEST_DAYS ago:
    the reader's name, address and reason, and the librarian's message to them. What is left
    (the item, the dates, the answer, the language) is no one's, and counts requests. A
    request whose answer is still owed by mail waits for its mail (sent or given up); one
    still waiting for an answer is erased too, and can no longer be answered. Idempotent;
    the number of requests erased."""
    now = now or timezone.now()
    cutoff = now - timedelta(days=settings.IBI_ACCESS_REQUEST_DAYS)
    erased = (AccessRequest.objects.filter(created__lt=cutoff, erased_at=None, mail_due=None)
              .update(name="", email="", reason="", message="", erased_at=now))
    if erased:
        logger.info("access: the personal data of %d requests older than %d days erased",
                    erased, settings.IBI_ACCESS_REQUEST_DAYS)
    return erased


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
            until = locked.embargo_until
            locked.access_rights, locked.embargo_until = AccessRights.OPEN, None
            locked.access_reason = ""
            locked.save(update_fields=["access_rights", "embargo_until", "access_reason",
                                       "updated"])
            # The event through apps.py (archive/preservation/ imports this package).
            apps.get_app_config("archive").record_event(
                PremisEvent.Type.POLICY_ASSIGNMENT, ibi=locked.ibi,
                detail=f"embargo lifted: embargoed until {until.isoformat()} -> open")
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
