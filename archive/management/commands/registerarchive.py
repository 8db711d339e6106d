"""registerarchive <archive service IBI> <registration key> [--email …] [--replace]"""
from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _

from archive.resolver.service import register_archive


class Command(BaseCommand):
    help = ("Register an Archive at this resolver (RTC-11 §7.1): its archive service IBI and "
            "the registration key its administrator chose (Table 7.1: 10 or more digits, "
            "optionally '-' and 10 or more digits). The Archive then switches itself on with "
            "`manage.py switchon` on its side. Only a hash of the key is kept.")

    def add_arguments(self, parser) -> None:
        parser.add_argument("archive_service_ibi",
                            help="e.g. sid.inpe.br/mtc-m21/2012/06.05.15.34.39")
        parser.add_argument("registration_key", help="e.g. 1234567890-1234567890")
        parser.add_argument("--email", default="", help="the Archive administrator's address")
        parser.add_argument("--replace", action="store_true",
                            help="give an Archive registered already a new key")

    def handle(self, *args, archive_service_ibi: str, registration_key: str, email: str,
               replace: bool, **options) -> None:
        try:
            archive, created = register_archive(archive_service_ibi=archive_service_ibi,
                                                key=registration_key, email=email,
                                                replace=replace)
        except ValidationError as exc:
            raise CommandError(f"--email: {' '.join(exc.messages)}") from None
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        done = (_("Registered %(ibi)s; it is included once it sends its inclusionRequest "
                  "(manage.py switchon on its side).") if created else
                _("New key for %(ibi)s; it is included once it sends its inclusionRequest "
                  "(manage.py switchon on its side)."))
        self.stdout.write(done % {"ibi": archive.archive_service_ibi})
