"""What accounts write: an account made (`create_account`, whatever the way in), its address
verified (`verify_email`), an institution's identity signed in and linked
(`sign_in_external`, `link_identity`), and the mails owed to its holder, written in the asking transaction
and mailed after it (`mail_owed`, nudged by the edge, retried by the beat).

Nothing a form answers tells whether an address has an account: signing up with one that
has gets the same answer, and its holder is mailed word of it (`sign_up`); a new link or a
password reset asked for an address without one mails nobody, and answers the same.
"""
from __future__ import annotations

import logging
import smtplib

from django.conf import settings
from django.contrib.auth import get_user_model
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

from ..models import Account, AccountMail, Identity
from ..refusals import Conflict, Forbidden, Refusal
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
