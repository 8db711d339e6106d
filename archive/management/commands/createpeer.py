"""createpeer <username>: the account another Archive copies this one's items with.

It may read every file, embargoed and restricted ones included (the view permission on
items), and nothing else: it is no staff, it cannot deposit or change anything but tell of
the Copies its Archive makes (a replication event each). `--archive IBI` names that Archive
by its archive service IBI; without it, the account's first notice of a Copy names it, and
no later one may name another. Prints the
API token as the last word: the other Archive puts it in IBI_PEER_TOKENS
(`<this Archive's base URL>=<token>`), and its copies and refreshes then carry every file and
the access conditions of each item (archive/preservation/peer.py).
"""
from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _
from rest_framework.authtoken.models import Token

from ...identifiers import ibi as ibilib
from ...models import PeerAccount


class Command(BaseCommand):
    help = ("Create the account another Archive copies this one's items with (every file, "
            "nothing else). Prints the API token as the last word of the output.")

    def add_arguments(self, parser) -> None:
        parser.add_argument("username")
        parser.add_argument("--archive", default="", metavar="IBI",
                            help="the archive service IBI of the Archive the account is for")

    def handle(self, *args, username: str, archive: str = "", **options) -> None:
        if archive:
            try:
                archive = str(ibilib.parse(archive))
            except ValueError as exc:
                raise CommandError(_("%(ibi)r is not an IBI: %(reason)s")
                                   % {"ibi": archive, "reason": exc}) from None
        User = get_user_model()
        user = User(**{User.USERNAME_FIELD: username})
        user.set_unusable_password()
        try:
            user.full_clean(exclude=["password"])
        except ValidationError as exc:
            raise CommandError("; ".join(" ".join(m) for m in exc.message_dict.values())
                               ) from None
        try:
            with transaction.atomic():
                user.save()
                user.user_permissions.add(Permission.objects.get(
                    content_type__app_label="archive", codename="view_item"))
                token = Token.objects.create(user=user)
                if archive:
                    PeerAccount.objects.create(user=user, archive=archive)
        except IntegrityError:
            raise CommandError(_("user %(name)r already exists") % {"name": username}) from None
        self.stdout.write(_("Created %(name)s, an account for another Archive's copies. API "
                            "token: %(token)s") % {"name": username, "token": token.key})
