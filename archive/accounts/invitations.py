""""Connect your ORCID iD" (issue 36, 2): a librarian mails a creator — who may have no
account — a one-time link for the ORCID iD an item names; following it, the person signs in
with ORCID, and when the iD they sign in with is that one, it is linked to them (an
`Identity`), which shows it authenticated on that item and on every other that names it.

- `invite`: the mail owed (an `OrcidInvitation`), for an iD one of the item's creators has;
- `read`: the invitation a link names, or why not (changed, expired, used);
- `connect`: the invitation used by a sign-in with ORCID: the iD linked (to the person signed
  in, or to the account `sign_in_external` finds or makes), or `WrongOrcid`, nothing changed;
- `mail_owed`: the invitations owed, mailed (services.py `mail_each`: kept and tried again
  when a mail server refuses).

The link is signed with SECRET_KEY (django.core.signing), names the invitation and its iD,
and expires after IBI_ORCID_INVITATION_DAYS; the invitation's `used_at` makes it work once.
Receiving it at the address the librarian typed proves that address as a verification link
does: the account `sign_in_external` makes gets it verified (unless ORCID shows another).
"""
from __future__ import annotations

from django.conf import settings
from django.core import signing
from django.core.mail import send_mail
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext_lazy

from ..models import Identity, Item, OrcidInvitation
from ..refusals import Conflict, Forbidden, Refusal
from . import services
from .orcid import SignIn

SALT = "archive.accounts.orcid-invitation"


class NotACreatorsOrcid(Refusal):
    message = gettext_lazy("no creator of this item has this ORCID iD")


class InvitationUsed(Conflict):
    message = gettext_lazy("this link was already used: the ORCID iD is connected")


class WrongOrcid(Forbidden):
    message = gettext_lazy("you signed in with an ORCID iD other than the one this link was "
                           "sent for: nothing was changed")


def invite(*, item: Item, orcid: str, email: str, sent_by, base: str,
           language: str) -> OrcidInvitation:
    """The "connect your ORCID iD" mail owed to `email` for the creator of `item` whose iD
    is `orcid`; mailed by `mail_owed` after the commit."""
    if not item.dc_values.filter(element="creator", authority=orcid).exists():
        raise NotACreatorsOrcid()
    invitation = OrcidInvitation(item=item, orcid=orcid, email=email.strip(),
                                 sent_by=sent_by if getattr(sent_by, "pk", None) else None,
                                 base=base.rstrip("/")[:300], language=language[:16])
    invitation.full_clean()
    invitation.save()
    return invitation


def link_of(invitation: OrcidInvitation) -> str:
    token = signing.dumps([invitation.pk, invitation.orcid], salt=SALT, compress=False)
    return invitation.base + reverse("archive:orcid_connect", args=[token])


def _max_age() -> int:
    return settings.IBI_ORCID_INVITATION_DAYS * 86400


def read(token: str, *, lock: bool = False) -> OrcidInvitation:
    """The unused invitation `token` names; LinkInvalid (changed, cut short), LinkExpired,
    InvitationUsed."""
    try:
        found = signing.loads(token, salt=SALT, max_age=None)
    except signing.BadSignature:
        raise services.LinkInvalid() from None
    if (not isinstance(found, list) or len(found) != 2 or not isinstance(found[0], int)
            or not isinstance(found[1], str)):
        raise services.LinkInvalid()
    rows = OrcidInvitation.objects.select_related("item")
    invitation = (rows.select_for_update(of=("self",)) if lock else rows).filter(
        pk=found[0], orcid=found[1]).first()
    if invitation is None:
        raise services.LinkInvalid()
    if invitation.used_at is not None:
        raise InvitationUsed()
    try:
        signing.loads(token, salt=SALT, max_age=_max_age())
    except signing.SignatureExpired:
        raise services.LinkExpired() from None
    return invitation


def connect(*, token: str, sign_in: SignIn, issuer: str, user=None):
    """The invitation `token` names, used by `sign_in`: its iD linked to `user` (signed in
    already) or to the account `sign_in_external` finds or makes; that user. WrongOrcid when
    the iD signed in with is another; the refusals of `read`, `link_identity` and
    `sign_in_external`: nothing changes then."""
    with transaction.atomic():
        invitation = read(token, lock=True)
        if sign_in.orcid != invitation.orcid:
            raise WrongOrcid()
        attributes = {"name": sign_in.name, "email": sign_in.email}
        if user is not None:
            services.link_identity(user=user, provider=Identity.Provider.ORCID, issuer=issuer,
                                   subject=sign_in.orcid, attributes=attributes)
        else:
            user = services.sign_in_external(
                provider=Identity.Provider.ORCID, issuer=issuer, subject=sign_in.orcid,
                email=sign_in.email or invitation.email, email_verified=True,
                name=sign_in.name or _creator_name(invitation), attributes=attributes)
        invitation.used_at = timezone.now()
        invitation.save(update_fields=["used_at"])
    return user


def _creator_name(invitation: OrcidInvitation) -> str:
    return (invitation.item.dc_values.filter(element="creator", authority=invitation.orcid)
            .values_list("value", flat=True).first() or "")


def _send(invitation: OrcidInvitation) -> None:
    if invitation.used_at is not None:
        return
    with translation.override(invitation.language or settings.LANGUAGE_CODE):
        body = render_to_string("archive/accounts/mail_orcid.txt", {
            "name": _creator_name(invitation), "title": invitation.item.title,
            "orcid": invitation.orcid, "link": link_of(invitation),
            "days": settings.IBI_ORCID_INVITATION_DAYS})
        subject = str(gettext_lazy("Connect your ORCID iD to your work in the repository"))
    send_mail(subject, body, None, [invitation.email])


def mail_owed() -> int:
    """Every invitation owed, mailed; how many went."""
    return services.mail_each(OrcidInvitation.objects.select_related("item"), _send)
