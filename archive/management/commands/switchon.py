"""switchon [--resolver URL] [--key KEY]: this Archive's inclusionRequest (RTC-11 §7.2)."""
from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _

from archive.resolver.switch import SwitchError, switch


class Command(BaseCommand):
    subject = "inclusionRequest"
    help = ("Switch this Archive on at a resolver: send its inclusionRequest (Table 7.2) and "
            "print the resolver's answer, e.g. `status.archive included` and "
            "`status.confirmation successful`. Needs ARCHIVE_ADDRESS. The key may come from "
            "IBI_SWITCHON_KEY instead of --key (keeps it out of the process list).")

    def add_arguments(self, parser) -> None:
        parser.add_argument("--resolver", default=None,
                            help="the resolver's base URL, e.g. http://urlib.net "
                                 "(default: IBI_SWITCHON_RESOLVER)")
        parser.add_argument("--key", default=None,
                            help="the registration key (default: IBI_SWITCHON_KEY)")
        parser.add_argument("--email", default="", help="default: IBI_ARCHIVE_ADMIN_EMAIL")
        parser.add_argument("--ip", default="", help="archiveip (default: IBI_IP)")

    def handle(self, *args, resolver: str | None, key: str | None, email: str, ip: str,
               **options) -> None:
        resolver = resolver or settings.IBI_SWITCHON_RESOLVER
        key = key or settings.IBI_SWITCHON_KEY
        if not resolver or not key:
            raise CommandError(_("give --resolver and --key (or set IBI_SWITCHON_RESOLVER and "
                                 "IBI_SWITCHON_KEY)"))
        try:
            answer = switch(self.subject, resolver, key, email=email, ip=ip)
        except SwitchError as exc:
            raise CommandError(str(exc)) from None
        if not answer.ok:
            raise CommandError(_("the resolver at %(resolver)s refused or did not answer: "
                                 "%(answer)s") % {"resolver": resolver, "answer": answer.text})
        # One pair a line on the terminal (the wire's CRLF is not for people).
        self.stdout.write(answer.text.replace("\r\n", "\n"))
