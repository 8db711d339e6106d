"""What accounts read: a person by address (any case), their account and its state, and
whether a mail owed to an address is held up by the mail server."""
from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db.models import Q

from ..models import Account, AccountMail, Identity


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
