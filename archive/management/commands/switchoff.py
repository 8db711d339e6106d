"""switchoff [--resolver URL] [--key KEY]: this Archive's exclusionRequest (RTC-11 §7.2)."""
from __future__ import annotations

from .switchon import Command as SwitchOn


class Command(SwitchOn):
    subject = "exclusionRequest"
    help = ("Switch this Archive off at a resolver: send its exclusionRequest (Table 7.2) and "
            "print the resolver's answer, `status.archive excluded`. The resolver then no "
            "longer asks this Archive; its registration stays for the next switchon.")
