"""What a deposit keeps while it is under way: Idempotency-Keys, pending uploads, staged writes."""
from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from .items import Item


class IdempotencyKey(models.Model):
    """A client's Idempotency-Key for an API write (archive/deposit/idempotency.py): per user,
    with a hash of the request, the status it answers and, once written, the item (or the
    community or collection) it wrote.
    Kept IDEMPOTENCY_TTL."""

    user = models.ForeignKey("auth.User", on_delete=models.CASCADE, related_name="+",
                             verbose_name=_("user"))
    key = models.CharField(_("key"), max_length=255)
    fingerprint = models.CharField(_("fingerprint"), max_length=64)
    item = models.ForeignKey(Item, null=True, blank=True, on_delete=models.CASCADE,
                             related_name="+", verbose_name=_("item"))
    # What a write of the tree wrote (POST /api/communities/, /api/collections/): one of the
    # three is set once the write is done.
    community = models.ForeignKey("Community", null=True, blank=True, on_delete=models.CASCADE,
                                  related_name="+", verbose_name=_("community"))
    collection = models.ForeignKey("Collection", null=True, blank=True,
                                   on_delete=models.CASCADE, related_name="+",
                                   verbose_name=_("collection"))
    created = models.DateTimeField(_("created"), db_index=True)
    # The HTTP status of the first answer, replayed with the item (201: a deposit, files added).
    status = models.PositiveSmallIntegerField(pgettext_lazy("HTTP", "status"), default=201,
                                              db_default=201)

    class Meta:
        verbose_name = _("idempotency key")
        verbose_name_plural = _("idempotency keys")
        constraints = [models.UniqueConstraint(fields=["user", "key"], name="one_key_per_user")]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.key}"


class PendingUpload(models.Model):
    """A file on its way to a deposit, not yet part of any item (archive/deposit/pending.py):
    sent by a resumable (tus 1.0) upload, or kept from an admin form that a validation error
    sent back. Its bytes wait outside col/ (the upload folder, or the bucket's uploads/ with S3)
    until a deposit stores them; an upload left alone past `expires` is swept."""

    id = models.UUIDField(primary_key=True, verbose_name=_("id"))
    owner = models.ForeignKey("auth.User", on_delete=models.CASCADE, related_name="+",
                              verbose_name=_("owner"))
    name = models.CharField(_("name"), max_length=255)
    content_type = models.CharField(_("content type"), max_length=255, blank=True)
    length = models.BigIntegerField(_("length"))
    offset = models.BigIntegerField(_("offset"), default=0)
    # Set once every byte has arrived, from the bytes themselves.
    sha256 = models.CharField(_("sha256"), max_length=64, blank=True)
    created = models.DateTimeField(_("created"))
    expires = models.DateTimeField(_("expires"), db_index=True)
    # One request writes at a time: the lease of the request writing, renewed while it reads.
    busy_until = models.DateTimeField(_("busy until"), null=True, blank=True)
    # S3: the multipart upload's id and its parts ([number, ETag], in order).
    multipart_id = models.CharField(_("multipart upload"), max_length=1024, blank=True)
    parts = models.JSONField(_("parts"), default=list, blank=True)

    class Meta:
        verbose_name = _("pending upload")
        verbose_name_plural = _("pending uploads")

    def __str__(self) -> str:
        return self.name

    @property
    def complete(self) -> bool:
        return self.offset == self.length and bool(self.sha256)


class StagedWrite(models.Model):
    """An item's files being stored under col/<rep>/doc/ by an import before its rows commit
    (archive/deposit/staging.py): committed before the first byte, kept alive by the writer's
    lease, deleted in the rows' own transaction. One whose lease has passed is a write that
    will never commit, whose files `fsck` removes."""

    rep = models.CharField(_("repository name"), max_length=255)
    until = models.DateTimeField(_("lease until"), db_index=True)
    # Claimed by fsck: the writer may no longer commit; its files are being removed.
    abandoned = models.BooleanField(_("abandoned"), default=False)

    class Meta:
        verbose_name = _("staged write")
        verbose_name_plural = _("staged writes")

    def __str__(self) -> str:
        return self.rep
