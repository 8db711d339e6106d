"""Signing in by email address: Django's ModelBackend (settings.AUTHENTICATION_BACKENDS),
which also takes a person's address, in any case, for the username. Staff sign in to the admin
by username as before; an inactive user (an address not verified yet) is refused by the
ModelBackend's own rule."""
from __future__ import annotations

from django.contrib.auth.backends import ModelBackend

from . import selectors


class EmailBackend(ModelBackend):
    def authenticate(self, request, username=None, password=None, **kwargs):
        if username and "@" in username:
            user = selectors.user_by_email(username)
            if user is not None:
                username = user.get_username()
        return super().authenticate(request, username=username, password=password, **kwargs)
