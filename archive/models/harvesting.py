"""The OAI-PMH repositories this Archive harvests (archive/dspace/harvest.py)."""
from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class HarvestSource(models.Model):
    """An OAI-PMH repository harvested by `manage.py harvest` (archive/dspace/harvest.py),
    per set: the newest datestamp harvested (the next run asks from it), and while a run is
    under way the resumption token of the next page, so that a run stopped by a crash
    resumes there."""

    base_url = models.CharField(_("base URL"), max_length=500)
    set_spec = models.CharField(_("set"), max_length=255, blank=True, default="")
    # As the source writes it (YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ, its granularity).
    last_datestamp = models.CharField(_("last datestamp"), max_length=32, blank=True,
                                      default="")
    resumption_token = models.TextField(_("resumption token"), blank=True, default="")
    # The `from` of the run in progress: asked again if its token has expired.
    run_from = models.CharField(_("from of the run in progress"), max_length=32, blank=True,
                                default="")
    run_newest = models.CharField(_("newest datestamp of the run in progress"), max_length=32,
                                  blank=True, default="")
    harvested_at = models.DateTimeField(_("last harvested"), null=True, blank=True)

    class Meta:
        verbose_name = _("harvest source")
        verbose_name_plural = _("harvest sources")
        constraints = [models.UniqueConstraint(fields=["base_url", "set_spec"],
                                               name="one_harvest_state_per_set")]

    def __str__(self) -> str:
        return f"{self.base_url} {self.set_spec}".strip()
