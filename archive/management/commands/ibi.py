"""`manage.py ibi mint|parse|encode` — the generation standard from the command line."""
from __future__ import annotations

from datetime import UTC, datetime

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _

from archive.identifiers import ibi
from archive.identifiers.minting import MintingError, mint


def _iso(when) -> str:
    """ISO 8601 UTC with the exact fraction of a second, e.g. 2013-09-04T12:27:57.25Z."""
    seconds = ibi.to_fraction(when)
    whole = int(seconds // 1)
    text = datetime.fromtimestamp(whole, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S")
    fraction = seconds - whole
    if fraction:
        digits = ibi.fraction_digits(fraction)
        text += "." + digits
    return text + "Z"


class Command(BaseCommand):
    help = "Mint IBIs for the configured subsystem, parse an IBI, or encode one from its parts."
    # Output is meant for scripts: no placeholder warnings in it, and the same words in every
    # language (only the errors, on stderr, are translated).
    requires_system_checks = []

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        m = sub.add_parser("mint", help="mint N IBIs and print '<repository name> <IBIp>'")
        m.add_argument("--count", type=int, default=1)
        p = sub.add_parser("parse", help="show the form, canonical text and decoded parts")
        p.add_argument("text")
        e = sub.add_parser("encode", help="both forms of the IBI for given parts and date")
        e.add_argument("--host", required=True)
        e.add_argument("--port", type=int, default=80)
        e.add_argument("--ip", required=True)
        e.add_argument("--ip-port", type=int, default=800)
        e.add_argument("--date", required=True,
                       help="ISO 8601 with a UTC offset, e.g. 2013-09-04T12:27:57Z")

    def handle(self, *args, action: str, **options) -> None:
        try:
            getattr(self, f"_{action}")(**options)
        except ibi.IbiError as exc:
            raise CommandError(exc.translated(_)) from None
        except (ValueError, MintingError) as exc:
            raise CommandError(str(exc)) from None

    def _mint(self, *, count: int, **_options) -> None:
        if count < 1:
            raise ValueError(_("--count must be at least 1"))
        for _i in range(count):
            minted = mint()
            self.stdout.write(f"{minted.rep} {minted.ibip}")

    def _parse(self, *, text: str, **_options) -> None:
        parsed = ibi.parse(text)
        self.stdout.write(f"form: {parsed.form}")
        self.stdout.write(f"canonical: {parsed}")
        if parsed.form == "ibip":
            ip, port, when = ibi.decode_ibip(str(parsed))
            self.stdout.write(f"ip: {ip}")
            self.stdout.write(f"port: {port}")
        else:
            self.stdout.write(f"hostname: {parsed.hostname}")
            self.stdout.write(f"port: {parsed.port}")
            when = parsed.date
        self.stdout.write(f"date: {_iso(when)}")

    def _encode(self, *, host: str, port: int, ip: str, ip_port: int, date: str,
                **_options) -> None:
        try:
            when = datetime.fromisoformat(date)
        except ValueError:
            raise ValueError(_("--date %(date)r is not ISO 8601") % {"date": date}) from None
        if when.tzinfo is None:
            raise ValueError(_("--date %(date)r has no UTC offset: add Z or +00:00")
                             % {"date": date})
        self.stdout.write(f"{ibi.repository_name(host, port, when)} {ibi.ibip(ip, ip_port, when)}")
