"""`manage.py federation` — every Archive switched on at this resolver, and how it answers.

One line per included Archive: its archive service IBI, address, last answer (or why none
came) and when, median answer time, failures in a row and in all, and its breaker (closed:
asked; open: left alone; half-open: the next request tries it). The admin's Federation page
shows the same (archive/resolver/report.py).
"""
from __future__ import annotations

from django.core.management.base import BaseCommand
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from archive.resolver import report


class Command(BaseCommand):
    help = __doc__.split("\n\n")[0].strip("` ")

    def handle(self, *args, **options) -> None:
        rows = report.federation()
        for row in rows:
            median = "—" if row.median_ms is None else f"{row.median_ms} ms"
            last = (f"{row.last_answer} ({row.last_at:%Y-%m-%d %H:%M:%S} UTC)" if row.last_at
                    else _("not asked yet"))
            self.stdout.write("  ".join([
                row.archive.archive_service_ibi, row.archive.address, last,
                _("median %(time)s") % {"time": median},
                _("failures %(row)d in a row, %(all)d in all")
                % {"row": row.health.failures, "all": row.health.failures_total},
                row.state_label]))
        self.stdout.write(ngettext("%(count)d Archive switched on",
                                   "%(count)d Archives switched on", len(rows))
                          % {"count": len(rows)})
