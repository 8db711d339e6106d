"""Copies of items asked of other Archives (jobs a worker takes, archive/preservation/jobs.py),
the preservation events (PREMIS 3) of every item and file, with their agents, and the history
of every fixity check."""
from __future__ import annotations

from django.conf import settings
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


class PeerAccount(models.Model):
    """The Archive an account that copies from this one speaks for (`createpeer`): its
    archive service IBI, set by `createpeer --archive` or by the account's first notice of a
    Copy (archive/preservation/copies.py `copied_elsewhere`), and never changed by a notice:
    the account cannot name another Archive as the agent of an event."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                primary_key=True, related_name="peer_archive",
                                verbose_name=_("account"))
    archive = models.CharField(_("archive service IBI"), max_length=255)

    class Meta:
        verbose_name = _("peer account")
        verbose_name_plural = _("peer accounts")

    def __str__(self) -> str:
        return f"{self.user_id} → {self.archive}"


class PremisAgent(models.Model):
    """Who or what acted (PREMIS 3 agent): a person's account, this software at a version, or
    another Archive by its archive service IBI. Kept apart from the events so that an account
    erased under the LGPD is renamed here once while its events stay as they were."""

    class Kind(models.TextChoices):
        # PREMIS agentType, as the Library of Congress vocabulary names them.
        PERSON = "person", pgettext_lazy("PREMIS agent type", "person")
        SOFTWARE = "software", pgettext_lazy("PREMIS agent type", "software")
        ORGANIZATION = "organization", pgettext_lazy("PREMIS agent type", "organization")

    kind = models.CharField(_("type"), max_length=16, choices=Kind.choices)
    # agentIdentifierType / agentIdentifierValue: "local account" and the account's id,
    # "software" and name/version, "IBI" and the other Archive's archive service IBI.
    identifier_type = models.CharField(_("identifier type"), max_length=32)
    identifier = models.CharField(_("identifier"), max_length=255)
    name = models.CharField(_("name"), max_length=255)

    class Meta:
        verbose_name = _("PREMIS agent")
        verbose_name_plural = _("PREMIS agents")
        constraints = [models.UniqueConstraint(fields=["identifier_type", "identifier"],
                                               name="premis_agent_once")]

    def __str__(self) -> str:
        return self.name


class AppendOnly(models.QuerySet):
    """A queryset of events that reads, and adds, only."""

    def update(self, **kwargs):
        raise TypeError("PREMIS events are never changed once recorded")

    def delete(self):
        raise TypeError("PREMIS events are never deleted")

    _raw_delete = delete


class PremisEvent(models.Model):
    """Something done to an item or one of its files (PREMIS 3 event), with the Library of
    Congress event type, its agent, outcome and detail. Append-only: nothing in the app
    updates or deletes one, and the database refuses both (triggers of migration 0053; only
    a flush, the suite's maintenance, may empty the table: archive/db/events_guard.py).

    The object is named by the item's IBI (its repository name) and, for a file, the file's
    name: an event outlives what it tells of (a deletion's event stays after the item went).
    """

    class Type(models.TextChoices):
        # The Library of Congress eventType vocabulary (id.loc.gov/vocabulary/preservation/
        # eventType): the value is the term's label; CODES below gives its URI's code.
        INGESTION = "ingestion", pgettext_lazy("PREMIS event type", "ingestion")
        ACCESSION = "accession", pgettext_lazy("PREMIS event type", "accession")
        FIXITY_CHECK = "fixity check", pgettext_lazy("PREMIS event type", "fixity check")
        VIRUS_CHECK = "virus check", pgettext_lazy("PREMIS event type", "virus check")
        FORMAT_IDENTIFICATION = "format identification", pgettext_lazy(
            "PREMIS event type", "format identification")
        REPLICATION = "replication", pgettext_lazy("PREMIS event type", "replication")
        MIGRATION = "migration", pgettext_lazy("PREMIS event type", "migration")
        TRANSFER = "transfer", pgettext_lazy("PREMIS event type", "transfer")
        METADATA_MODIFICATION = "metadata modification", pgettext_lazy(
            "PREMIS event type", "metadata modification")
        POLICY_ASSIGNMENT = "policy assignment", pgettext_lazy(
            "PREMIS event type", "policy assignment")
        DELETION = "deletion", pgettext_lazy("PREMIS event type", "deletion")

    class Outcome(models.TextChoices):
        SUCCESS = "success", pgettext_lazy("PREMIS event outcome", "success")
        FAILURE = "failure", pgettext_lazy("PREMIS event outcome", "failure")
        WARNING = "warning", pgettext_lazy("PREMIS event outcome", "warning")

    identifier = models.UUIDField(_("identifier"), unique=True, editable=False)
    type = models.CharField(_("type"), max_length=32, choices=Type.choices)
    at = models.DateTimeField(_("at"))
    ibi = models.CharField(_("item"), max_length=255)
    file = models.CharField(_("file"), max_length=255, blank=True, default="")
    agent = models.ForeignKey(PremisAgent, on_delete=models.PROTECT, related_name="events",
                              verbose_name=_("agent"))
    outcome = models.CharField(_("outcome"), max_length=8, choices=Outcome.choices)
    detail = models.TextField(_("detail"), blank=True, default="")
    outcome_detail = models.TextField(_("outcome detail"), blank=True, default="")

    objects = AppendOnly.as_manager()

    class Meta:
        verbose_name = _("PREMIS event")
        verbose_name_plural = _("PREMIS events")
        ordering = ["at", "id"]
        indexes = [models.Index(fields=["ibi", "at"], name="premis_event_of_item"),
                   models.Index(fields=["type", "at"], name="premis_event_by_type")]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M:%S} {self.type} {self.ibi} {self.file}".rstrip()

    def save(self, *args, **kwargs) -> None:
        if self.pk is not None:
            raise TypeError("a PREMIS event is never changed once recorded")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise TypeError("a PREMIS event is never deleted")


# The code of each type in the vocabulary's URIs (http://id.loc.gov/vocabulary/preservation/
# eventType/<code>), which premis.xml gives as eventType's valueURI.
PREMIS_EVENT_CODES = {
    PremisEvent.Type.INGESTION: "ing", PremisEvent.Type.ACCESSION: "acc",
    PremisEvent.Type.FIXITY_CHECK: "fix", PremisEvent.Type.VIRUS_CHECK: "vir",
    PremisEvent.Type.FORMAT_IDENTIFICATION: "for", PremisEvent.Type.REPLICATION: "rep",
    PremisEvent.Type.MIGRATION: "mig", PremisEvent.Type.TRANSFER: "tra",
    PremisEvent.Type.METADATA_MODIFICATION: "mem", PremisEvent.Type.POLICY_ASSIGNMENT: "pol",
    PremisEvent.Type.DELETION: "del",
}


class FixityCheck(models.Model):
    """One fixity check of one stored file: when, what was found (both digests, the size) and
    whether it matched what the file row records (archive/preservation/fixity.py). Every check
    is kept, IBI_FIXITY_RETENTION_DAYS long. On PostgreSQL the table is partitioned by month
    on `at` (migration 0056; the daily task makes the months ahead and drops those past the
    retention), so its primary key is (id, at) there; Django reads `id` alone, which the
    sequence keeps unique. The file is named by its storage key too, so that the history
    outlives a file removed."""

    class Outcome(models.TextChoices):
        PASS = "pass", pgettext_lazy("fixity outcome", "pass")
        FAIL = "fail", pgettext_lazy("fixity outcome", "fail")

    file = models.ForeignKey("ItemFile", null=True, on_delete=models.DO_NOTHING,
                             db_constraint=False, related_name="fixity_checks",
                             verbose_name=_("file"))
    key = models.CharField(_("stored at"), max_length=1024)
    at = models.DateTimeField(_("checked"))
    outcome = models.CharField(_("outcome"), max_length=4, choices=Outcome.choices)
    sha256 = models.CharField(_("SHA-256 found"), max_length=64, blank=True, default="")
    sha512 = models.CharField(_("SHA-512 found"), max_length=128, blank=True, default="")
    size = models.BigIntegerField(_("bytes found"), null=True, blank=True)
    problem = models.CharField(_("problem"), max_length=255, blank=True, default="")

    class Meta:
        verbose_name = _("fixity check")
        verbose_name_plural = _("fixity checks")
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["file", "at"], name="fixity_check_of_file"),
                   models.Index(fields=["outcome", "at"], name="fixity_check_by_outcome")]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M:%S} {self.outcome} {self.key}"
