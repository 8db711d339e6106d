"""`manage.py refreshsamlmetadata` — fetch the SAML federation's metadata aggregate again.

Reads IBI_SAML_METADATA (a file or an https URL), checks its signature against
IBI_SAML_METADATA_CERT and its validUntil, and keeps it as the last good one; a refused
aggregate leaves the last good one as it was and exits with status 1, saying why. The Celery
beat task `refresh-saml-metadata` does the same every IBI_SAML_METADATA_EVERY seconds.
"""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _

from archive.accounts import federation


class Command(BaseCommand):
    help = __doc__.split("\n\n")[0].strip("` ")

    def handle(self, *args, **options) -> None:
        try:
            kept = federation.refresh()
        except federation.AggregateRefused as exc:
            raise CommandError(_("metadata refused, the last good one kept: %(reason)s")
                               % {"reason": exc}) from None
        if kept is None:
            raise CommandError(_("IBI_SAML_METADATA is not set: institutional login is off"))
        self.stdout.write(_("%(count)d identity providers, valid until %(until)s")
                          % {"count": len(kept.providers), "until": kept.valid_until.isoformat()})
