"""What accounts write: an account made (`create_account`, whatever the way in), its address
verified (`verify_email`), an institution's identity signed in and linked
(`sign_in_external`, `link_identity`) or removed by its holder (`unlink_identity`), the
groups a directory's mapping gives (`set_mapped_groups`), staff's disabling (`disable`,
`enable`), the person's erasure asked for and done (`ask_erasure`, `erase`: LGPD), and the
mails owed to its holder, written in the asking transaction and mailed after it
(`mail_owed`, nudged by the edge, retried by the beat).

Nothing a form answers tells whether an address has an account: signing up with one that
has gets the same answer, and its holder is mailed word of it (`sign_up`); a new link or a
password reset asked for an address without one mails nobody, and answers the same.
"""
from __future__ import annotations

import logging
import smtplib

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.contrib.auth.tokens import default_token_generator
from django.core import signing
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django.utils.translation import gettext_lazy

from ..deposit import pending
from ..models import (
    AccessRead,
    AccessRequest,
    Account,
    AccountMail,
    CollectionRole,
    Identity,
    OrcidInvitation,
    PendingUpload,
    RequestNotice,
    ReviewNotice,
    Submission,
    Transition,
)
from ..preservation import events
from ..refusals import Conflict, Forbidden, NotFound, Refusal
from . import selectors, tokens

logger = logging.getLogger(__name__)

ATTEMPTS = 8
Kind = AccountMail.Kind


class AddressTaken(Conflict):
    message = gettext_lazy("this address already has an account")


class LinkInvalid(Refusal):
    message = gettext_lazy("this link is not valid: it was changed or cut short")


class LinkExpired(Refusal):
    status = 410
    message = gettext_lazy("this link has expired")


class LinkUsed(Conflict):
    message = gettext_lazy("this link was already used: the address is verified")


def create_account(*, name: str, email: str, password: str | None = None,
                   email_verified: bool = False, username: str = "") -> Account:
    """A person's account, signed in by `email` (in any case). Without `password` (an
    institutional login) the account has none of its own; until its address is verified
    the user is inactive, so that no way in signs them in. AddressTaken when an account has
    the address already. An identity that releases no address (`email` empty) names its
    own `username` and has nothing to verify."""
    users = get_user_model().objects
    email = users.normalize_email(email.strip())
    if email and users.filter(Q(email__iexact=email) | Q(username__iexact=email)).exists():
        raise AddressTaken()
    if not email and (not username or users.filter(username__iexact=username).exists()):
        raise AddressTaken()
    try:
        with transaction.atomic():
            # The username is the address: unique (the database says so at once), and what
            # the admin lists; its character rule is a form's, not the model's.
            user = users.model(username=(username or email).lower()[:150], email=email,
                               is_active=email_verified or not email)
            if password is None:
                user.set_unusable_password()
            else:
                user.set_password(password)
            user.save()
            account = Account(user=user, name=" ".join(name.split()),
                              email_verified_at=timezone.now() if email_verified else None)
            account.full_clean()
            account.save()
    except IntegrityError:  # the same address signed up at the same moment
        raise AddressTaken() from None
    return account


def sign_up(*, name: str, email: str, password: str, base: str, language: str) -> None:
    """The sign-up form's way in: an account waiting for its address, and the link that
    verifies it owed; an address that has an account gets its holder word of the attempt
    instead (the same answer either way)."""
    with transaction.atomic():
        try:
            account = create_account(name=name, email=email, password=password)
        except AddressTaken:
            holder = selectors.user_by_email(email)
            if holder is not None:
                # Signing up again before verifying: the link again, not "sign in".
                waiting = Account.objects.filter(user=holder, email_verified_at=None).exists()
                owe(holder, Kind.VERIFY if waiting else Kind.TAKEN, base=base,
                    language=language)
            return
        owe(account.user, Kind.VERIFY, base=base, language=language)


def verify_email(token: str):
    """The address the token was made for, verified, and its user active; the user.
    LinkInvalid (forged, garbled, another address), LinkUsed (verified already),
    LinkExpired (older than PASSWORD_RESET_TIMEOUT): nothing changes then."""
    try:
        user_id, email = tokens.read(token, max_age=None)
    except signing.BadSignature:
        raise LinkInvalid() from None
    with transaction.atomic():
        account = (Account.objects.select_for_update().select_related("user")
                   .filter(user_id=user_id).first())
        if account is None or account.user.email.lower() != email:
            raise LinkInvalid()
        if account.email_verified_at is not None:
            raise LinkUsed()
        try:
            tokens.read(token, max_age=settings.PASSWORD_RESET_TIMEOUT)
        except signing.SignatureExpired:
            raise LinkExpired() from None
        account.email_verified_at = timezone.now()
        account.save(update_fields=["email_verified_at"])
        account.user.is_active = True
        account.user.save(update_fields=["is_active"])
    return account.user


def ask_verification(*, email: str, base: str, language: str) -> None:
    """A new verification link owed to an account waiting for `email`; nothing otherwise."""
    user = selectors.unverified_user(email)
    if user is not None:
        owe(user, Kind.VERIFY, base=base, language=language)


def ask_password_reset(*, email: str, base: str, language: str) -> None:
    """A link to set a new password owed to each active user of `email` with a password;
    nothing for an address without one."""
    for user in selectors.resettable_users(email):
        owe(user, Kind.RESET, base=base, language=language)


def owe(user, kind: str, *, base: str, language: str) -> AccountMail:
    """A mail owed to `user`, mailed by `mail_owed` (after the commit)."""
    return AccountMail.objects.create(user=user, kind=kind, base=base.rstrip("/")[:300],
                                      language=language[:16])


def _link(mail: AccountMail) -> str | None:
    """The mail's link, made now; None when the mail has nothing left to say."""
    user = mail.user
    if mail.kind == Kind.VERIFY:
        if not Account.objects.filter(user=user, email_verified_at=None).exists():
            return None
        return mail.base + reverse("archive:account_verify",
                                   args=[tokens.make(user.pk, user.email)])
    if mail.kind == Kind.RESET:
        if not user.is_active or not user.has_usable_password():
            return None
        return mail.base + reverse("archive:password_reset_confirm", kwargs={
            "uidb64": urlsafe_base64_encode(force_bytes(user.pk)),
            "token": default_token_generator.make_token(user)})
    return mail.base + reverse("archive:login")


SUBJECTS = {
    Kind.VERIFY: gettext_lazy("Verify your email address"),
    Kind.RESET: gettext_lazy("Set a new password"),
    Kind.TAKEN: gettext_lazy("Someone tried to sign up with your address"),
}


def _send(mail: AccountMail) -> None:
    link = _link(mail)
    if link is None:
        return
    account = selectors.account_of(mail.user)
    with translation.override(mail.language or settings.LANGUAGE_CODE):
        context = {"name": account.name if account else mail.user.get_username(),
                   "link": link, "hours": settings.PASSWORD_RESET_TIMEOUT // 3600,
                   "reset_url": mail.base + reverse("archive:password_reset")}
        body = render_to_string(f"archive/accounts/mail_{mail.kind}.txt", context)
        subject = str(SUBJECTS[mail.kind])
    send_mail(subject, body, None, [mail.user.email])


def mail_owed() -> int:
    """Every mail owed and not given up on, mailed; how many went. A mail server's refusal
    leaves the mail owed (logged, tried again by the beat up to ATTEMPTS times)."""
    return mail_each(AccountMail.objects.select_related("user"), _send)


def mail_each(owed, send) -> int:
    """Each row of `owed` (a queryset of a model with `sent_at` and `attempts`: an
    AccountMail, an OrcidInvitation) not sent yet, given to `send` and marked sent; how many
    went. A row another worker holds is left to it; a mail server's refusal leaves the row
    owed, its attempts counted, up to ATTEMPTS."""
    sent = 0
    model = owed.model
    name = model._meta.verbose_name
    for pk in list(model.objects.filter(sent_at=None, attempts__lt=ATTEMPTS)
                   .order_by("pk").values_list("pk", flat=True)):
        with transaction.atomic():
            mail = (owed.select_for_update(skip_locked=True, of=("self",))
                    .filter(pk=pk, sent_at=None).first())
            if mail is None:
                continue  # another worker has it
            try:
                send(mail)
            except (smtplib.SMTPException, OSError) as exc:
                logger.warning("accounts: the %s %s is not sent yet (attempt %d): %s",
                               name, mail.pk, mail.attempts + 1, exc)
                model.objects.filter(pk=pk).update(attempts=F("attempts") + 1)
                continue
            model.objects.filter(pk=pk).update(sent_at=timezone.now())
            sent += 1
    return sent


class AccountDisabled(Forbidden):
    message = gettext_lazy("this account is disabled: ask the library")


def sign_in_external(*, provider: str, issuer: str, subject: str, email: str = "",
                     email_verified: bool = False, name: str = "",
                     attributes: dict | None = None):
    """The user an identity vouched for by an institution (SAML, ORCID, LDAP) signs in as,
    linked on first use:

    1. the identity known: its user;
    2. else the one account whose address is `email`, when the provider vouches for the
       address (`email_verified`): the identity is linked to it, its address verified;
    3. else a new account without a password, named `name`, its address verified when
       vouched for (an address not vouched for makes an account that stays inactive
       until the person verifies it, as a sign-up does).

    AccountDisabled when the account was disabled by staff (nothing changes then). The
    identity's released attributes and last use are kept."""
    if not subject.strip() or not issuer.strip():
        raise Refusal(gettext_lazy("the identity provider named no subject"))
    now = timezone.now()
    with transaction.atomic():
        identity = (Identity.objects.select_for_update().select_related("user")
                    .filter(provider=provider, issuer=issuer, subject=subject).first())
        if identity is not None:
            user = identity.user
        else:
            user = selectors.user_by_email(email) if email and email_verified else None
            if user is None:
                try:
                    user = create_account(
                        name=name or email or subject, email=email, password=None,
                        email_verified=email_verified,
                        username=f"{provider}:{subject}").user
                except AddressTaken:
                    # An address not vouched for, already another account's: not linked
                    # by it (the person links it by choice once signed in).
                    raise Conflict(gettext_lazy(
                        "an account has this address already: sign in to it first, then "
                        "link this way in from your account page")) from None
            elif Account.objects.filter(user=user, email_verified_at=None).update(
                    email_verified_at=now):
                # It waited for its address, which the institution vouches for now.
                user.is_active = True
                user.save(update_fields=["is_active"])
            identity = Identity(user=user, provider=provider, issuer=issuer,
                                subject=subject)
        if selectors.is_disabled(user):
            raise AccountDisabled()
        identity.attributes = attributes or {}
        identity.last_used = now
        identity.save()
    return user


def link_identity(*, user, provider: str, issuer: str, subject: str,
                  attributes: dict | None = None) -> Identity:
    """A way in linked by the person's choice, signed in as `user` (e.g. "connect your ORCID
    iD"). Conflict when the identity is another person's already."""
    with transaction.atomic():
        identity, made = Identity.objects.select_for_update().get_or_create(
            provider=provider, issuer=issuer, subject=subject,
            defaults={"user": user, "attributes": attributes or {},
                      "last_used": timezone.now()})
        if not made and identity.user_id != user.pk:
            raise Conflict(gettext_lazy("this identity is linked to another account"))
    return identity


# -- A person's ways in, staff's disabling, and erasure (LGPD) ---------------------------------

class LastWayIn(Conflict):
    message = gettext_lazy("this is your last way in: link another one (or set a password) "
                           "before removing it")


def unlink_identity(*, user, identity_id: int) -> None:
    """The person's own identity removed from their ways in. NotFound when it is not theirs;
    LastWayIn when they would have none left (no password of their own, no other identity)."""
    with transaction.atomic():
        mine = list(Identity.objects.select_for_update().filter(user=user))
        if not any(identity.pk == identity_id for identity in mine):
            raise NotFound(gettext_lazy("this way in is not one of yours"))
        if len(mine) == 1 and not user.has_usable_password():
            raise LastWayIn()
        Identity.objects.filter(pk=identity_id, user=user).delete()


def disable(*, account: Account, reason: str) -> None:
    """Staff's act: no way in signs the person in any more (local password, LDAP, SAML,
    ORCID all refuse an inactive user: `selectors.is_disabled`), and their sessions end.
    Refusal without a reason."""
    reason = " ".join(reason.split())
    if not reason:
        raise Refusal(gettext_lazy("write why the account is disabled"))
    with transaction.atomic():
        Account.objects.filter(pk=account.pk).update(disabled_at=timezone.now(),
                                                     disabled_reason=reason[:2000])
        # Verified now, if it waited: a disabled account is not one waiting for its address.
        Account.objects.filter(pk=account.pk, email_verified_at=None).update(
            email_verified_at=timezone.now())
        get_user_model().objects.filter(pk=account.user_id).update(is_active=False)
    account.refresh_from_db()


def enable(*, account: Account) -> None:
    """A disabled account signs in again (an erased one never does)."""
    if account.erased_at is not None:
        raise Conflict(gettext_lazy("this account's personal data were erased"))
    with transaction.atomic():
        Account.objects.filter(pk=account.pk).update(disabled_at=None, disabled_reason="")
        get_user_model().objects.filter(pk=account.user_id).update(is_active=True)
    account.refresh_from_db()


def ask_erasure(*, user) -> Account:
    """The person asks for what the repository holds about them to be erased (LGPD): the
    request waits for the librarians (the admin's accounts, "erasure asked for")."""
    account = selectors.account_of(user)
    if account is None:
        raise Conflict(gettext_lazy("an account made by the librarians is erased by them"))
    Account.objects.filter(pk=account.pk, erasure_requested_at=None).update(
        erasure_requested_at=timezone.now())
    account.refresh_from_db()
    return account


def erase(*, account: Account) -> None:
    """The person's personal data erased (LGPD), the librarians' act on their request:

    - the user anonymised (no name, no address, no password, inactive: no way in), its
      identities, mails and roles removed; the account kept, nameless, saying when;
    - submissions never submitted (drafts) and withdrawn ones deleted with their history;
      those published stay, and so does the published item's authorship, as the tombstone
      policy says (an item's creators are removed only when the item itself is deleted at
      their request: the item's delete page);
    - their name removed from the history of the transitions they made;
    - requests for a copy made with their address erased as IBI_ACCESS_REQUEST_DAYS
      erases old ones, and the notices mailed to that address deleted, as are the "connect
      your ORCID iD" invitations mailed to it and the review's mails to them;
    - their name in the audit trail of reads of closed files removed; their files still
      waiting (pending uploads) removed with their bytes.

    Conflict while a submission of theirs is in review (it is withdrawn first, or
    decided). Idempotent."""
    State = Submission.State
    with transaction.atomic():
        account = Account.objects.select_for_update().select_related("user").get(
            pk=account.pk)
        if account.erased_at is not None:
            return
        user = account.user
        mine = Submission.objects.filter(owner=user)
        if mine.exclude(state__in=[State.DRAFT, State.WITHDRAWN, State.PUBLISHED]).exists():
            raise Conflict(gettext_lazy(
                "a submission of this person is in review: withdraw it, or decide it, first"))
        email = user.email
        now = timezone.now()
        gone = mine.filter(state__in=[State.DRAFT, State.WITHDRAWN])
        Transition.objects.filter(submission__in=gone).delete()
        gone.delete()  # their tasks and checks go with them (CASCADE)
        Transition.objects.filter(actor=user).update(actor_name="")
        AccessRead.objects.filter(user=user).update(who="")
        if email:
            AccessRequest.objects.filter(email__iexact=email, erased_at=None).update(
                name="", email="", reason="", message="", mail_due=None, erased_at=now)
            RequestNotice.objects.filter(email__iexact=email).delete()
            # "Connect your ORCID iD" mailed to the address: the address goes with them.
            OrcidInvitation.objects.filter(email__iexact=email).delete()
            ReviewNotice.objects.filter(user=user).delete()
        Identity.objects.filter(user=user).delete()
        AccountMail.objects.filter(user=user).delete()
        CollectionRole.objects.filter(user=user).delete()
        user.groups.clear()
        user.username = f"erased-{user.pk}"
        user.email = user.first_name = user.last_name = ""
        user.is_active = user.is_staff = user.is_superuser = False
        user.set_unusable_password()
        user.save()
        account.name = ""
        account.erased_at = now
        account.disabled_at = account.disabled_at or now
        account.save(update_fields=["name", "erased_at", "disabled_at"])
        # Their preservation events stay as they were; the agent they name loses the name.
        events.rename_person(user.pk, f"erased account {user.pk}")
    for upload in PendingUpload.objects.filter(owner=user):
        try:
            pending.terminate(upload)
        except Refusal:  # being written to this instant: the sweep removes it
            logger.warning("accounts: the upload %s of an erased account is busy", upload.pk)


def set_mapped_groups(user, names: set[str], *, managed: set[str]) -> None:
    """The user's groups among `managed` (those a directory's mapping gives) made `names`:
    missing ones created and joined, the others of `managed` left; other groups untouched."""
    with transaction.atomic():
        keep = [Group.objects.get_or_create(name=name)[0] for name in sorted(names)]
        user.groups.remove(*Group.objects.filter(name__in=managed - names))
        user.groups.add(*keep)
