"""createlibrarian <username> [--password …]: a staff user in the Librarians group, with a token."""
from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _
from rest_framework.authtoken.models import Token

from archive.deposit.services import ensure_librarians_group


class Command(BaseCommand):
    help = ("Create a librarian: a staff user in the Librarians group. Prints the API token "
            "as the last word of the output.")

    def add_arguments(self, parser) -> None:
        parser.add_argument("username")
        parser.add_argument("--password", help="for the admin; without it the user has only "
                            "the token until `manage.py changepassword` sets one")
        parser.add_argument("--email", default="")

    def handle(self, *args, username: str, password: str | None, email: str, **options) -> None:
        User = get_user_model()
        user = User(**{User.USERNAME_FIELD: username}, email=email, is_staff=True)
        if password is None:
            user.set_unusable_password()
        else:
            try:
                validate_password(password, user)
            except ValidationError as exc:
                raise CommandError(" ".join(exc.messages)) from None
            user.set_password(password)
        try:
            user.full_clean(exclude=["password"])
        except ValidationError as exc:
            errors = exc.message_dict
            if User.USERNAME_FIELD in errors and User.objects.filter(
                    **{User.USERNAME_FIELD: username}).exists():
                raise CommandError(_("user %(name)r already exists") % {"name": username}
                                   ) from None
            raise CommandError("; ".join(" ".join(m) for m in errors.values())) from None
        try:
            with transaction.atomic():
                user.save()
                user.groups.add(ensure_librarians_group())
                token = Token.objects.create(user=user)
        except IntegrityError:
            raise CommandError(_("user %(name)r already exists") % {"name": username}) from None
        # The token stays the last word, in every language: scripts read it so (README).
        if password is None:
            done = _("Created librarian %(name)s (no password yet: only the token works). "
                     "API token: %(token)s")
        else:
            done = _("Created librarian %(name)s. API token: %(token)s")
        self.stdout.write(done % {"name": username, "token": token.key})
