"""Identified items, their files and Dublin Core, and the minting state of the subsystem."""
from __future__ import annotations

import re

from django.apps import apps
from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext_lazy as _

# BCP 47 language tag, the subset the resolution standard uses plus script/region/variants.
LANGUAGE_TAG = re.compile(
    r"^[A-Za-z]{2,3}(-[A-Za-z]{4})?(-(?:[A-Za-z]{2}|[0-9]{3}))?(-[A-Za-z0-9]{5,8})*$")

# Dublin Core elements other than title and language (those two are Item fields).
DC_ELEMENTS = (
    "creator", "subject", "description", "publisher", "contributor", "date", "type",
    "format", "identifier", "source", "relation", "coverage", "rights",
)


def validate_language(value: str) -> None:
    if value and not LANGUAGE_TAG.match(value):
        raise ValidationError(_("%(value)s is not a BCP 47 language tag such as en or pt-BR"),
                              params={"value": value})


def normalize_language(value: str) -> str:
    """pt-br → pt-BR: language lower case, script title case, region upper case."""
    parts = value.split("-")
    out = [parts[0].lower()]
    for part in parts[1:]:
        if len(part) == 4 and part.isalpha():
            out.append(part.title())
        elif len(part) in (2, 3) and len(out) < 3:
            out.append(part.upper())
        else:
            out.append(part.lower())
    return "-".join(out)


class MintingState(models.Model):
    """The subsystem's last-date-for-suffix (Algorithm 4), shared by every minting process.

    One row per database: every IBI minted through this database comes after the previous
    one in time, whatever the configured hostname, IP or granularity.
    """

    name = models.CharField(max_length=32, unique=True, default="default")
    last_date_for_suffix = models.CharField(
        max_length=64, blank=True,
        help_text=_("POSIX seconds, exact decimal; empty before the first IBI"))
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("minting state")

    def __str__(self) -> str:
        return f"{self.name}: {self.last_date_for_suffix or '—'}"


class Item(models.Model):
    """An identified item. Its IBI (both forms) is minted on first save and never changes."""

    class State(models.TextChoices):
        ORIGINAL = "Original", _("Original")
        COPY = "Copy", _("Copy")
        DELETED = "Deleted", _("Deleted")

    ibi = models.CharField(_("repository name"), max_length=255, unique=True, editable=False)
    ibip = models.CharField(_("IBIp"), max_length=128, unique=True, editable=False)
    state = models.CharField(max_length=8, choices=State.choices, default=State.ORIGINAL,
                             db_index=True)
    transferable = models.BooleanField(default=True)
    is_archive_service = models.BooleanField(default=False, editable=False)
    title = models.CharField(max_length=1000)
    language = models.CharField(max_length=35, blank=True, validators=[validate_language],
                                help_text=_("BCP 47 tag of the original language, e.g. pt-BR"))
    target_file = models.CharField(max_length=255, blank=True,
                                   help_text=_("the default file, opened by the persistent URL"))
    previous_edition = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="next_edition")
    # The edition chain, flattened so that "the last edition" is one indexed query however
    # long the chain: every edition carries its first edition's IBI and its place in the chain.
    edition_family = models.CharField(max_length=255, blank=True, db_index=True, editable=False)
    edition_number = models.PositiveIntegerField(default=1, editable=False)
    translation_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="translations")
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True, db_index=True)
    deleted_at = models.DateTimeField(null=True, blank=True, editable=False)
    # Shown on the tombstone. db_default: rows loaded by COPY or plain SQL, which name only
    # the columns they know, still get "".
    deletion_reason = models.CharField(max_length=1000, blank=True, default="", db_default="",
                                       editable=False)
    # Copies (RTC-11 §5.2): where the Original lives and the original's timestamp we copied.
    source_archive = models.CharField(max_length=255, blank=True, editable=False)
    copied_at = models.DateTimeField(null=True, blank=True, editable=False)
    origin_timestamp = models.DateTimeField(null=True, blank=True, editable=False)
    # A Copy's view of its Original's relations (Table 9.5) at the last copy, for those not
    # held here: {".nextedition": <IBI>, ".translation(pt)": <IBI>, …}. The archive service
    # names them (ibi<relation>) so that a resolver asks the Archives that hold them. A
    # database default, so that bulk COPY loads need not name the column.
    origin_relations = models.JSONField(
        default=dict, db_default=models.Value({}, models.JSONField()), blank=True,
        editable=False)

    class Meta:
        ordering = ["-created", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["is_archive_service"],
                                    condition=models.Q(is_archive_service=True),
                                    name="one_archive_service"),
        ]

    def __str__(self) -> str:
        return f"{self.ibi} {self.title}"

    def save(self, *args, **kwargs) -> None:
        # The promise of the issue: an IBI at save time, however the item is created.
        if not self.ibi:
            # Through the app config: this module imports no package of the app, so that
            # identifiers/minting.py, which reads MintingState from here, is no circle.
            self.ibi, self.ibip = apps.get_app_config(self._meta.app_label).mint_ibi()
        if not self.edition_family:
            previous = self.previous_edition
            self.edition_family = previous.edition_family if previous else self.ibi
            self.edition_number = previous.edition_number + 1 if previous else 1
        super().save(*args, **kwargs)

    @property
    def is_deleted(self) -> bool:
        return self.state == self.State.DELETED

    def dc(self, element: str) -> list[str]:
        """Values of one Dublin Core element, in order (uses prefetched rows when present)."""
        return [v.value for v in self.dc_values.all() if v.element == element]


class DcValue(models.Model):
    """One value of a repeatable Dublin Core element."""

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="dc_values")
    element = models.CharField(max_length=16, choices=[(e, e) for e in DC_ELEMENTS])
    value = models.TextField()
    position = models.PositiveIntegerField(default=0)
    # A creator's ORCID iD, bare (0000-0002-1825-0097), checked by the deposit services
    # (identifiers/orcid.py). db_default: rows loaded by COPY or plain SQL still get "".
    orcid = models.CharField(_("ORCID iD"), max_length=19, blank=True, default="", db_default="")

    class Meta:
        ordering = ["element", "position", "id"]
        verbose_name = _("Dublin Core value")

    def __str__(self) -> str:
        return f"{self.element}: {self.value}"


class ItemFile(models.Model):
    """A file of an item, stored at col/<repository name>/doc/<name>."""

    item = models.ForeignKey(Item, on_delete=models.PROTECT, related_name="files")
    name = models.CharField(max_length=255)
    size = models.BigIntegerField()
    sha256 = models.CharField(max_length=64)
    content_type = models.CharField(max_length=255, default="application/octet-stream")
    created = models.DateTimeField(auto_now_add=True)
    # Fixity: when the stored bytes were last hashed again, and what was found.
    checked_at = models.DateTimeField(null=True, blank=True, db_index=True)
    fixity_problem = models.CharField(max_length=255, blank=True)

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["item", "name"], name="one_name_per_item")]

    def __str__(self) -> str:
        return f"{self.item.ibi}/doc/{self.name}"


class IdempotencyKey(models.Model):
    """A client's Idempotency-Key for a deposit (archive/deposit/idempotency.py): per user,
    with a hash of the request and, once deposited, the item. Kept IDEMPOTENCY_TTL."""

    user = models.ForeignKey("auth.User", on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=255)
    fingerprint = models.CharField(max_length=64)
    item = models.ForeignKey(Item, null=True, blank=True, on_delete=models.CASCADE,
                             related_name="+")
    created = models.DateTimeField(db_index=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "key"], name="one_key_per_user")]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.key}"


class Access(models.Model):
    """One counted access: a download here, or an acknowledgment from a resolver.

    An acknowledgment carries the urlkey this Archive issued; the unique key makes a second
    acknowledgment of the same answer count nothing.
    """

    class Kind(models.TextChoices):
        DOWNLOAD = "download", _("download")
        ACKNOWLEDGMENT = "acknowledgment", _("acknowledgment")

    # Every GET of a persistent URL writes a row: no index that a query does not need. The
    # (item, kind) index serves lookups by item too; only acknowledgments have a urlkey.
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="accesses",
                             db_index=False)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    relation = models.CharField(max_length=100, blank=True)
    # NULL, not "": an access without a urlkey stays out of the unique constraint's index.
    urlkey = models.CharField(max_length=64, null=True, blank=True)  # noqa: DJ001
    client_ips = models.CharField(max_length=1000, blank=True)
    at = models.DateTimeField(db_index=True)

    class Meta:
        ordering = ["-at"]
        indexes = [models.Index(fields=["item", "kind"], name="access_item_kind")]
        constraints = [models.UniqueConstraint(fields=["urlkey"], name="access_urlkey_once",
                                               condition=models.Q(urlkey__isnull=False))]

    def __str__(self) -> str:
        return f"{self.kind} {self.item.ibi} {self.relation}"


class RegisteredArchive(models.Model):
    """An Archive registered at this resolver (RTC-11 §7): its archive service IBI and key.

    Only a hash of the registration key is kept; `included` is the switch the Archive turns
    with inclusionRequest / exclusionRequest.
    """

    archive_service_ibi = models.CharField(max_length=255, unique=True)
    key_hash = models.CharField(max_length=64, editable=False)
    email = models.EmailField(blank=True)
    address = models.CharField(max_length=255, blank=True,
                               help_text=_("host[:port] given at the last inclusion"))
    ip = models.CharField(max_length=64, blank=True)
    platform_version = models.CharField(max_length=100, blank=True)
    included = models.BooleanField(default=False)
    included_at = models.DateTimeField(null=True, blank=True)
    excluded_at = models.DateTimeField(null=True, blank=True)
    registered_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["archive_service_ibi"]

    def __str__(self) -> str:
        if self.included:
            return _("%(ibi)s (switched on)") % {"ibi": self.archive_service_ibi}
        return _("%(ibi)s (switched off)") % {"ibi": self.archive_service_ibi}
