"""Signing in with a campus directory (LDAP) for campuses without CAFe: django-auth-ldap's
backend, placed after the local one (settings.AUTHENTICATION_BACKENDS, only when IBI_LDAP_URI
is set), with the person linked as every institutional login links them.

The directory checks the password (a search for the entry by IBI_LDAP_USER_FILTER, the
library escaping the username, then a bind as that entry); the person is then
`services.sign_in_external` (LDAP, the server's URI, the entry's DN): an LDAP user and a CAFe
identity with the same address the directory vouches for are one person, a disabled account
is refused. The entry's groups (IBI_LDAP_GROUP_SEARCH) give Django groups by
IBI_LDAP_GROUP_ROLES (a group's DN → group names, each holding roles per collection).

A refusal, or the directory unreachable, is told to the sign-in form (`refusal`), never a
500: the form shows it instead of "wrong password".

>>> sorted(mapped_groups({"CN=Lib,OU=Groups,DC=uni"}, {"cn=lib,ou=groups,dc=uni": ["A", "B"],
...                                                   "cn=x,dc=uni": ["C"]}))
['A', 'B']
>>> usable_username("ana)(uid=*"), usable_username("ana.silva")
(False, True)
"""
from __future__ import annotations

import logging

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.utils.translation import gettext_lazy
from django_auth_ldap.backend import LDAPBackend, ldap_error

from ..models import Identity
from ..refusals import Refusal
from . import services

logger = logging.getLogger(__name__)

REFUSAL = "ibi_directory_refusal"  # the request's attribute the sign-in form reads
UNREACHABLE = gettext_lazy("The campus directory cannot be reached just now: try again in a "
                           "few minutes, or sign in with your email address and password.")
# What an LDAP filter or DN gives a meaning to: never in a campus username (the library
# escapes them as well).
FORBIDDEN = frozenset("*()\\\x00,=+<>;\"#")


def usable_username(username: str) -> bool:
    """Whether `username` may be looked up in the directory at all."""
    return (0 < len(username) <= 256 and username.isprintable()
            and not FORBIDDEN.intersection(username))


def mapped_groups(held: set[str], mapping: dict[str, list[str]]) -> set[str]:
    """The Django groups the directory's groups `held` (DNs) give by `mapping` (DNs compared
    in any case)."""
    held = {dn.lower() for dn in held}
    return {name for dn, names in mapping.items() if dn.lower() in held for name in names}


def _first(attrs, name: str) -> str:
    values = attrs.get(name) or [] if name else []
    return str(values[0]).strip() if values else ""


def refusal(request) -> str:
    """What the directory said to this sign-in, when it refused other than for the password
    ("" otherwise)."""
    return str(getattr(request, REFUSAL, "") or "")


def _tell(request, message) -> None:
    if request is not None:
        setattr(request, REFUSAL, message)


class DirectoryBackend(LDAPBackend):
    """django-auth-ldap's backend, the person linked by `sign_in_external`."""

    # The user is sign_in_external's, never rewritten from the entry's attributes.
    default_settings = {"ALWAYS_UPDATE_USER": False}

    def authenticate(self, request, username=None, password=None, **kwargs):
        if username is None or not usable_username(username.strip()):
            return None  # an address is the local backend's; a filter, nobody's
        return super().authenticate(request, username=username, password=password, **kwargs)

    def get_or_build_user(self, username, ldap_user):
        """The person the directory's entry is (never built here: sign_in_external made or
        found them); their mapped groups brought up to date."""
        attrs = ldap_user.attrs
        email = _first(attrs, settings.IBI_LDAP_EMAIL_ATTR)
        try:
            user = services.sign_in_external(
                provider=Identity.Provider.LDAP, issuer=settings.AUTH_LDAP_SERVER_URI,
                subject=ldap_user.dn, email=email, email_verified=bool(email),
                name=_first(attrs, settings.IBI_LDAP_NAME_ATTR) or username,
                attributes={"username": username, "email": email,
                            "name": _first(attrs, settings.IBI_LDAP_NAME_ATTR)})
        except Refusal as exc:
            _tell(ldap_user._request, str(exc))
            raise PermissionDenied(str(exc)) from None
        if settings.IBI_LDAP_GROUP_ROLES:
            services.set_mapped_groups(
                user, mapped_groups(set(ldap_user.group_dns), settings.IBI_LDAP_GROUP_ROLES),
                managed={name for names in settings.IBI_LDAP_GROUP_ROLES.values()
                         for name in names})
        return user, False

    def get_user(self, user_id):
        """The session's user, while active (a disabled account's sessions end)."""
        user = super().get_user(user_id)
        return user if user is not None and user.is_active else None


def _unreachable(sender, context, user, request, exception, **kwargs) -> None:
    """The directory down, or answering an error: said to the form, logged."""
    logger.warning("ldap: the directory failed %s: %s", context, exception)
    _tell(request, UNREACHABLE)


ldap_error.connect(_unreachable, sender=DirectoryBackend, weak=False,
                   dispatch_uid="archive.accounts.directory")
