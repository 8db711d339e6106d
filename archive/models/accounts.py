"""Accounts of people who are not staff (issue 35, 1): what the repository keeps of a person
beside Django's User, and the mails owed to them.

An `Account` is made however the person came in: today by signing up with an address and a
password (archive/accounts/services.py `create_account`); an institutional login later makes
one the same way, its address already vouched for. Staff made by `createlibrarian` have none.
A mail is written as owed (`AccountMail`) in the transaction that asks for it, and mailed
after: a mail server down leaves it owed, tried again by the beat, never lost; its link is
made when it is sent, so no secret is kept in the database. An `Identity` is one way in
besides a password: a CAFe (SAML), ORCID or LDAP subject, linked to the person's user.
"""
from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy


class Account(models.Model):
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                related_name="account", verbose_name=_("user"))
    name = models.CharField(_("name"), max_length=200)
    email_verified_at = models.DateTimeField(_("email address verified"), null=True,
                                             blank=True)
    created = models.DateTimeField(_("created"), auto_now_add=True)
    # Disabled by staff (archive/accounts/services.py `disable`): no way in signs the person
    # in (their user is inactive), and why is kept.
    disabled_at = models.DateTimeField(pgettext_lazy("date", "disabled"), null=True,
                                       blank=True)
    disabled_reason = models.TextField(_("why it is disabled"), blank=True, default="",
                                       db_default="")
    # The person asked for their personal data to be erased (LGPD); librarians erase them in
    # the admin (`erase`), which keeps the account's row, anonymised, and when.
    erasure_requested_at = models.DateTimeField(pgettext_lazy("date", "erasure asked for"),
                                                null=True, blank=True, db_index=True)
    erased_at = models.DateTimeField(pgettext_lazy("date", "personal data erased"), null=True,
                                     blank=True)

    class Meta:
        verbose_name = _("account")
        verbose_name_plural = _("accounts")

    def __str__(self) -> str:
        return self.name


class AccountMail(models.Model):
    """A mail owed to a person: a link to verify their address, a link to set a new
    password, or word that someone tried to sign up with their address."""

    class Kind(models.TextChoices):
        VERIFY = "verify", _("verify the email address")
        RESET = "reset", _("set a new password")
        TAKEN = "taken", _("the address already has an account")

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="account_mails", verbose_name=_("user"))
    kind = models.CharField(_("kind"), max_length=8, choices=Kind.choices)
    # Where the person reached the site (the links' base) and in which language.
    base = models.CharField(_("base URL"), max_length=300)
    language = models.CharField(_("language"), max_length=16, blank=True, default="")
    created = models.DateTimeField(_("created"), auto_now_add=True)
    sent_at = models.DateTimeField(_("sent"), null=True, blank=True, db_index=True)
    attempts = models.PositiveSmallIntegerField(_("mail attempts"), default=0, db_default=0)

    class Meta:
        verbose_name = _("account mail")
        verbose_name_plural = _("account mails")
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} → {self.user_id}"


class Identity(models.Model):
    """One way in of a person besides a password of their own: an identity that an
    institution vouches for — a CAFe (SAML) identity provider's subject, an ORCID iD
    obtained by signing in with ORCID, a campus LDAP user. The same person may hold several
    (archive/accounts/services.py `sign_in_external` links them: by a verified address on
    first use, or by the person's choice when signed in)."""

    class Provider(models.TextChoices):
        SAML = "saml", _("institutional login (CAFe, SAML)")
        ORCID = "orcid", _("ORCID")
        LDAP = "ldap", _("campus directory (LDAP)")

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="identities", verbose_name=_("user"))
    provider = models.CharField(_("way in"), max_length=8, choices=Provider.choices)
    # Who vouches: a SAML identity provider's entityID, ORCID's base URL, the LDAP server's
    # URI; and whom for: the identifying attribute's value (ePPN, subject-id, pairwise-id),
    # the ORCID iD, the LDAP entry's DN.
    issuer = models.CharField(_("issued by"), max_length=400)
    subject = models.CharField(_("identifier at the provider"), max_length=400)
    # What the provider released at the last sign-in (attributes, name, address).
    attributes = models.JSONField(_("attributes released"), default=dict, blank=True)
    created = models.DateTimeField(_("linked"), auto_now_add=True)
    last_used = models.DateTimeField(_("last used"), null=True, blank=True)

    class Meta:
        verbose_name = _("identity")
        verbose_name_plural = _("identities")
        ordering = ["provider", "issuer", "subject"]
        constraints = [models.UniqueConstraint(fields=["provider", "issuer", "subject"],
                                               name="one_identity_per_subject")]

    def __str__(self) -> str:
        return f"{self.get_provider_display()}: {self.subject}"


class OrcidInvitation(models.Model):
    """A "connect your ORCID iD" mail owed to a creator who may have no account: sent by a
    librarian to the address they know for the creator whose ORCID iD an item names. Its
    link (signed, expiring: archive/accounts/orcid.py) works once: the person signs in with
    ORCID, and when the iD they sign in with is `orcid`, it is linked to them (an
    `Identity`), which marks it authenticated on every item that names it. Mailed as
    `AccountMail`s are: owed in the asking transaction, tried again by the beat."""

    item = models.ForeignKey("archive.Item", on_delete=models.CASCADE,
                             related_name="orcid_invitations", verbose_name=_("item"))
    orcid = models.CharField(_("ORCID iD"), max_length=19)
    email = models.EmailField(_("email address"), max_length=254)
    sent_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL,
                                null=True, blank=True, related_name="+",
                                verbose_name=_("sent by"))
    base = models.CharField(_("base URL"), max_length=300)
    language = models.CharField(_("language"), max_length=16, blank=True, default="")
    created = models.DateTimeField(_("created"), auto_now_add=True)
    sent_at = models.DateTimeField(_("sent"), null=True, blank=True, db_index=True)
    attempts = models.PositiveSmallIntegerField(_("mail attempts"), default=0, db_default=0)
    used_at = models.DateTimeField(_("used"), null=True, blank=True)

    class Meta:
        verbose_name = _("ORCID invitation")
        verbose_name_plural = _("ORCID invitations")
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.orcid} → {self.email}"


class FederationMetadata(models.Model):
    """The last good metadata aggregate of the SAML federation (CAFe): signed by the
    federation's certificate and valid until a time to come when it was fetched
    (archive/accounts/federation.py). One row; a refused aggregate leaves it as it was."""

    xml = models.TextField(_("aggregate"))
    sha256 = models.CharField(_("SHA-256"), max_length=64)
    valid_until = models.DateTimeField(_("valid until"))
    fetched = models.DateTimeField(_("fetched"))
    # The identity providers it names: entityID, display names per language, scopes.
    providers = models.JSONField(_("identity providers"), default=list)

    class Meta:
        verbose_name = _("federation metadata")
        verbose_name_plural = _("federation metadata")

    def __str__(self) -> str:
        return f"{self.sha256[:12]} → {self.valid_until:%Y-%m-%d %H:%M}"
