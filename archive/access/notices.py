"""Librarians told of new requests for a copy (issue 43): a request reaches someone.

Who: the request handlers of the item's collection (Collection.request_handlers), else the
repository's, IBI_REQUEST_HANDLERS, else every active staff account with an email that may
answer requests (the permission to change them: the Librarians group, superusers).

When: `announce` writes one RequestNotice per address as the request is made, in its
transaction; `mail_due` (the task, nudged after the commit and run by the beat) mails them. An
address mailed less than IBI_REQUEST_DIGEST_MINUTES ago waits: what arrives meanwhile goes in
one digest once the minutes are over, so a burst of requests is one mail, not twenty. A notice
whose request was answered or erased meanwhile is dropped from the mail. A mail server's
failure leaves the notices owed (tried again by the beat, given up after ATTEMPTS tries).

Every URL in a notice is built from the site's address the reader reached
(AccessRequest.mail_base: ARCHIVE_ADDRESS when configured, else the host the reader's request
came with, which Django checked against ALLOWED_HOSTS).
"""
from __future__ import annotations

import logging
import smtplib
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.mail import send_mail
from django.db import transaction
from django.db.models import F, Max, Q
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from ..deposit import links
from ..models import AccessRequest, RequestNotice, addresses

logger = logging.getLogger(__name__)

ATTEMPTS = 8


def handlers(request: AccessRequest) -> list[str]:
    """The addresses told of the request (see above)."""
    named = addresses(request.item.collection.request_handlers)
    if named:
        return named
    if settings.IBI_REQUEST_HANDLERS:
        return addresses(" ".join(settings.IBI_REQUEST_HANDLERS))
    perm = Permission.objects.filter(content_type__app_label="archive",
                                     codename="change_accessrequest")
    users = (get_user_model().objects.filter(is_active=True, is_staff=True)
             .exclude(email="")
             .filter(Q(is_superuser=True) | Q(user_permissions__in=perm)
                     | Q(groups__permissions__in=perm))
             .order_by("pk").values_list("email", flat=True).distinct())
    return addresses(" ".join(users))


def announce(request: AccessRequest) -> list[RequestNotice]:
    """The notices owed for a new request (mailed by `mail_due`)."""
    found = handlers(request)
    if not found:
        logger.warning("access: request %s reaches nobody: set the collection's request "
                       "handlers or IBI_REQUEST_HANDLERS", request.pk)
    return RequestNotice.objects.bulk_create(
        [RequestNotice(request=request, email=email) for email in found])


def request_admin_url(request: AccessRequest) -> str:
    """The request's page in the admin, at the address the reader reached."""
    return links.base_url(request.mail_base or None) + reverse(
        "admin:archive_accessrequest_change", args=[request.pk])


def _mail(email: str, requests: list[AccessRequest]) -> None:
    """One mail to a handler: a request, or a digest of several."""
    with translation.override(settings.LANGUAGE_CODE):
        base = requests[0].mail_base or None
        pending = links.base_url(base) + reverse("admin:archive_accessrequest_changelist") + (
            "?status__exact=pending")
        context = {"entries": [{"request": r, "item": r.item, "url": request_admin_url(r),
                                "persistent_url": links.persistent_url(
                                    r.item.ibi, r.mail_base or None)} for r in requests],
                   "pending_url": pending}
        body = render_to_string("archive/access/mail_notice.txt", context)
        if len(requests) == 1:
            subject = _("A request for a copy of %(title)s") % {"title": requests[0].item.title}
        else:
            subject = ngettext("%(count)d requests for a copy", "%(count)d requests for a copy",
                               len(requests)) % {"count": len(requests)}
    send_mail(" ".join(subject.split())[:200], body, None, [email])


def _send_to(email: str, now: datetime, window: timedelta) -> int:
    """The notices owed to one address, mailed unless it was mailed within `window`; how
    many requests the mail named."""
    with transaction.atomic():
        owed = list(RequestNotice.objects.select_for_update(skip_locked=True, of=("self",))
                    .filter(email=email, sent_at=None, attempts__lt=ATTEMPTS)
                    .select_related("request__item__collection").order_by("pk"))
        if not owed:
            return 0
        last = (RequestNotice.objects.filter(email=email).exclude(sent_at=None)
                .aggregate(last=Max("sent_at"))["last"])
        if last is not None and now - last < window:
            return 0  # the digest waits for the window's end
        live = [n.request for n in owed if n.request.status == AccessRequest.Status.PENDING
                and n.request.erased_at is None]
        try:
            if live:
                _mail(email, live)
        except (smtplib.SMTPException, OSError) as exc:
            logger.warning("access: the notice of %d requests to %s is not mailed yet: %s",
                           len(live), email, exc)
            RequestNotice.objects.filter(pk__in=[n.pk for n in owed]).update(
                attempts=F("attempts") + 1)
            return 0
        RequestNotice.objects.filter(pk__in=[n.pk for n in owed]).update(sent_at=now)
        return len(live)


def mail_due(*, now: datetime | None = None) -> int:
    """Every notice owed and due mailed, one mail per address (see above); how many requests
    the mails named."""
    now = now or timezone.now()
    window = timedelta(minutes=settings.IBI_REQUEST_DIGEST_MINUTES)
    emails = (RequestNotice.objects.filter(sent_at=None, attempts__lt=ATTEMPTS)
              .order_by("email").values_list("email", flat=True).distinct())
    return sum(_send_to(email, now, window) for email in list(emails))
