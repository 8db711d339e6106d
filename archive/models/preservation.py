"""Copies of items asked of other Archives: jobs a worker takes (archive/preservation/jobs.py)."""
from __future__ import annotations

from django.db import models
from django.db.models.functions import Now
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy


class CopyJob(models.Model):
    """A copy of an item from another Archive that was asked for (the admin, the hourly
    refresh, `copyitem`): its state in the database, where the admin reads its progress, so
    that a worker killed mid-copy loses nothing; another takes it over once its heartbeat is
    older than IBI_COPY_LEASE (archive/preservation/jobs.py). One at work per IBI."""

    class State(models.TextChoices):
        QUEUED = "queued", pgettext_lazy("copy job state", "queued")
        RUNNING = "running", pgettext_lazy("copy job state", "running")
        DONE = "done", pgettext_lazy("copy job state", "done")
        FAILED = "failed", pgettext_lazy("copy job state", "failed")

    ibi = models.CharField(_("IBI"), max_length=255)
    source = models.CharField(_("source Archive"), max_length=255)
    state = models.CharField(_("state"), max_length=8, choices=State.choices,
                             default=State.QUEUED)
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    due = models.DateTimeField(_("due"), db_default=Now())
    heartbeat = models.DateTimeField(_("last heard of"), null=True, blank=True)
    done_bytes = models.PositiveBigIntegerField(_("bytes fetched"), default=0)
    total_bytes = models.PositiveBigIntegerField(_("bytes to fetch"), default=0)
    outcome = models.CharField(_("outcome"), max_length=1000, blank=True, default="")
    created = models.DateTimeField(_("created"), auto_now_add=True)
    finished = models.DateTimeField(_("finished"), null=True, blank=True)

    class Meta:
        verbose_name = _("copy job")
        verbose_name_plural = _("copy jobs")
        ordering = ["-created", "-id"]
        constraints = [models.UniqueConstraint(
            fields=["ibi"], condition=models.Q(state__in=["queued", "running"]),
            name="one_copy_job_at_work")]
        indexes = [models.Index(fields=["due"], name="copy_job_at_work",
                                condition=models.Q(state__in=["queued", "running"]))]

    def __str__(self) -> str:
        return f"{self.ibi} ← {self.source}: {self.state}"
