"""What accounts read: a person by address (any case), their account and its state, and
whether a mail owed to an address is held up by the mail server."""
from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db.models import Q

from ..models import (
    AccessRead,
    AccessRequest,
    Account,
    AccountMail,
    CollectionRole,
    Identity,
    PendingUpload,
    RequestNotice,
    Submission,
    Transition,
)


def user_by_email(email: str):
    """The one user whose address (or username) is `email`, in any case; None when none is,
    or when several share it (then only their usernames sign them in)."""
    found = list(get_user_model().objects.filter(
        Q(email__iexact=email.strip()) | Q(username__iexact=email.strip()))[:2])
    return found[0] if len(found) == 1 else None


def account_of(user) -> Account | None:
    """The person's account; None for staff made without one (createlibrarian)."""
    return Account.objects.filter(user_id=getattr(user, "pk", None)).first()


def awaiting_verification(email: str, password: str) -> bool:
    """Whether `email` and `password` are those of an account whose address is not verified
    yet (said to its holder only: it takes the right password)."""
    user = user_by_email(email)
    return (user is not None and not user.is_active and user.check_password(password)
            and Account.objects.filter(user=user, email_verified_at=None).exists())


def disabled_with(email: str, password: str) -> bool:
    """Whether `email` and `password` are those of an account staff disabled (said to its
    holder only: it takes the right password)."""
    user = user_by_email(email)
    return user is not None and is_disabled(user) and user.check_password(password)


def unverified_user(email: str):
    """The user of an account waiting for `email` to be verified, or None."""
    user = user_by_email(email)
    if user is None or not Account.objects.filter(user=user, email_verified_at=None).exists():
        return None
    return user


def resettable_users(email: str) -> list:
    """Who may be mailed a password reset for `email`: active users with that address and a
    password of their own (Django's PasswordResetForm.get_users' rule)."""
    return [user for user in get_user_model().objects.filter(email__iexact=email.strip(),
                                                               is_active=True)
            if user.has_usable_password()]


def mail_held_up(email: str) -> bool:
    """Whether the last mail owed to `email`'s holder could not be sent yet (it is tried
    again by the beat)."""
    last = (AccountMail.objects.filter(user__email__iexact=email.strip())
            .order_by("-pk").values_list("sent_at", "attempts").first())
    return last is not None and last[0] is None and last[1] > 0


def is_disabled(user) -> bool:
    """Whether staff disabled the account: an active user never is; an inactive one is
    unless it only waits for its address to be verified."""
    if user.is_active:
        return False
    return not Account.objects.filter(user=user, email_verified_at=None).exists()


def identities_of(user) -> list[Identity]:
    """The person's ways in besides a password of their own, oldest first."""
    return list(Identity.objects.filter(user_id=getattr(user, "pk", None))
                .order_by("created", "pk"))


def _when(value) -> str | None:
    return value.isoformat() if value is not None else None


def personal_data(user) -> dict:
    """Everything the repository holds about the person (LGPD), as JSON: their user and
    account, their ways in, their roles, their submissions and the transitions they made,
    the requests for a copy made with their address and the notices mailed to it, the
    closed files they read, their files waiting, and the mails owed to them (their links
    are not kept: none is shown)."""
    account = account_of(user)
    email = user.email
    requests = (AccessRequest.objects.filter(email__iexact=email).select_related("item")
                if email else AccessRequest.objects.none())
    notices = (RequestNotice.objects.filter(email__iexact=email)
               if email else RequestNotice.objects.none())
    return {
        "user": {"username": user.get_username(), "email": email,
                 "first_name": user.first_name, "last_name": user.last_name,
                 "date_joined": _when(user.date_joined), "last_login": _when(user.last_login),
                 "has_password": user.has_usable_password(), "is_active": user.is_active},
        "account": None if account is None else {
            "name": account.name, "created": _when(account.created),
            "email_verified_at": _when(account.email_verified_at),
            "disabled_at": _when(account.disabled_at),
            "disabled_reason": account.disabled_reason,
            "erasure_requested_at": _when(account.erasure_requested_at)},
        "identities": [{"provider": identity.provider, "issuer": identity.issuer,
                        "subject": identity.subject, "attributes": identity.attributes,
                        "linked": _when(identity.created),
                        "last_used": _when(identity.last_used)}
                       for identity in identities_of(user)],
        "roles": [{"collection": role.collection.slug, "role": role.role}
                  for role in CollectionRole.objects.filter(user=user)
                  .select_related("collection").order_by("pk")],
        "groups": sorted(user.groups.values_list("name", flat=True)),
        "submissions": [{
            "id": submission.pk, "collection": submission.collection.slug,
            "state": submission.state, "title": submission.title,
            "language": submission.language, "metadata": submission.metadata,
            "licence_accepted_at": _when(submission.licence_accepted_at),
            "access_rights": submission.access_rights,
            "embargo_until": _when(submission.embargo_until),
            "published_as": submission.item.ibi if submission.item_id else None,
            "created": _when(submission.created), "updated": _when(submission.updated)}
            for submission in Submission.objects.filter(owner=user)
            .select_related("collection", "item").order_by("pk")],
        "transitions": [{
            "submission": transition.submission_id, "action": transition.action,
            "at": _when(transition.at), "step": transition.step,
            "from": transition.from_state, "to": transition.to_state,
            "reason": transition.reason, "name": transition.actor_name}
            for transition in Transition.objects.filter(actor=user).order_by("at", "pk")],
        "access_requests": [{
            "item": request.item.ibi, "name": request.name, "email": request.email,
            "reason": request.reason, "language": request.language,
            "asked": _when(request.created), "status": request.status,
            "answered": _when(request.decided_at), "message": request.message}
            for request in requests.order_by("created", "pk")],
        "notices": [{"request": notice.request_id, "email": notice.email,
                     "created": _when(notice.created), "sent": _when(notice.sent_at)}
                    for notice in notices.order_by("pk")],
        "reads_of_closed_files": [{"item": read.item.ibi, "file": read.file_name,
                                   "at": _when(read.at)}
                                  for read in AccessRead.objects.filter(user=user)
                                  .select_related("item").order_by("at", "pk")],
        "files_waiting": [{"name": upload.name, "length": upload.length,
                           "created": _when(upload.created)}
                          for upload in PendingUpload.objects.filter(owner=user)
                          .order_by("created")],
        "mails": [{"kind": mail.kind, "created": _when(mail.created),
                   "sent": _when(mail.sent_at)}
                  for mail in AccountMail.objects.filter(user=user).order_by("pk")],
    }


def authenticated_orcids(orcids) -> set[str]:
    """Those of `orcids` (bare iDs) that are authenticated: their holder signed in with ORCID
    and the iD is linked to them (an ORCID `Identity`, whichever ORCID, production or the
    sandbox, vouched for it). An iD only typed or imported is not."""
    wanted = {o for o in orcids if o}
    if not wanted:
        return set()
    return set(Identity.objects.filter(provider=Identity.Provider.ORCID, subject__in=wanted)
               .values_list("subject", flat=True))


def orcids_of(user) -> list[str]:
    """The ORCID iDs linked to `user` (by signing in with ORCID)."""
    return list(Identity.objects.filter(user_id=user.pk, provider=Identity.Provider.ORCID)
                .order_by("subject").values_list("subject", flat=True))
