"""Identified items, their files and Dublin Core, and the minting state of the subsystem."""
from __future__ import annotations

import re

import langcodes
from django.apps import apps
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models.functions import Now
from django.utils.translation import gettext_lazy as _

# A BCP 47 language tag as an item's language is written (RFC 5646 §2.1): a 2- or 3-letter
# language, then an optional script, region and variants, extensions, and a private-use tail.
# Not taken, though langcodes would: underscores (pt_BR, a locale name, not a tag), extended
# language subtags (zh-yue: RFC 5646 §4.1.2 prefers the language itself, yue; and pt-BRA is a
# mistyped region far more often than an extlang), grandfathered tags (i-klingon) and tags that
# are private use only (x-private): an item's language must mean the same to another Archive and
# to a harvester, which cannot know what a private-use tag means here.
LANGUAGE_TAG = re.compile(
    r"[A-Za-z]{2,3}(?:-[A-Za-z]{4})?(?:-(?:[A-Za-z]{2}|[0-9]{3}))?"
    r"(?:-(?:[A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3}))*"
    r"(?:-[0-9A-WYZa-wyz](?:-[A-Za-z0-9]{2,8})+)*"
    r"(?:-[Xx](?:-[A-Za-z0-9]{1,8})+)?")

# Dublin Core elements other than title and language (those two are Item fields).
DC_ELEMENTS = (
    "creator", "subject", "description", "publisher", "contributor", "date", "type",
    "format", "identifier", "source", "relation", "coverage", "rights",
)


def validate_language(value: str) -> None:
    """Refuse what is not a valid BCP 47 tag: well formed (LANGUAGE_TAG), and every subtag in
    the IANA registry (langcodes.tag_is_valid: zz, xx-YY and en-QQ are well formed, not valid).

    The admin, the API and the search form all validate through this one function, so they
    refuse the same tags. An empty value is no language, which the model allows.
    """
    if not value:
        return
    if "_" in value:
        raise ValidationError(
            _("%(value)s is a locale name, not a BCP 47 language tag: write %(tag)s"),
            params={"value": value, "tag": value.replace("_", "-")}, code="invalid")
    if not LANGUAGE_TAG.fullmatch(value) or not langcodes.tag_is_valid(value):
        raise ValidationError(_("%(value)s is not a BCP 47 language tag such as en or pt-BR"),
                              params={"value": value}, code="invalid")


def normalize_language(value: str) -> str:
    """The case RFC 5646 §2.1.1 recommends: pt-br → pt-BR, ZH-HANT-tw → zh-Hant-TW; language,
    variants, extensions and private use in lower case, script in title case, region in upper.

    >>> normalize_language("en-us-x-TWAIN")
    'en-US-x-twain'
    """
    parts = value.split("-")
    out = [parts[0].lower()]
    tail = False  # after a singleton (an extension or x): all lower case
    for part in parts[1:]:
        tail = tail or len(part) == 1
        if not tail and len(part) == 4 and part.isalpha():
            out.append(part.title())
        elif not tail and len(part) in (2, 3) and len(out) < 3:
            out.append(part.upper())
        else:
            out.append(part.lower())
    return "-".join(out)


class MintingState(models.Model):
    """The subsystem's last-date-for-suffix (Algorithm 4), shared by every minting process.

    One row per database: every IBI minted through this database comes after the previous
    one in time, whatever the configured hostname, IP or granularity.
    """

    name = models.CharField(_("name"), max_length=32, unique=True, default="default")
    last_date_for_suffix = models.CharField(
        _("last date for suffix"), max_length=64, blank=True,
        help_text=_("POSIX seconds, exact decimal; empty before the first IBI"))
    updated = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("minting state")
        verbose_name_plural = _("minting states")

    def __str__(self) -> str:
        return f"{self.name}: {self.last_date_for_suffix or '—'}"


class AccessRights(models.TextChoices):
    """Who may read an item's files: the COAR access rights (archive/access/policy.py decides,
    for every channel). Metadata are public at every level."""

    OPEN = "open", _("open")
    EMBARGOED = "embargoed", _("embargoed")
    RESTRICTED = "restricted", _("restricted")
    METADATA_ONLY = "metadata-only", _("metadata only")


class Item(models.Model):
    """An identified item. Its IBI (both forms) is minted on first save and never changes."""

    class State(models.TextChoices):
        ORIGINAL = "Original", _("Original")
        COPY = "Copy", _("Copy")
        DELETED = "Deleted", _("Deleted")

    ibi = models.CharField(_("repository name"), max_length=255, unique=True, editable=False)
    ibip = models.CharField(_("IBIp"), max_length=128, unique=True, editable=False)
    state = models.CharField(_("state"), max_length=8, choices=State.choices,
                             default=State.ORIGINAL, db_index=True)
    transferable = models.BooleanField(_("transferable"), default=True)
    is_archive_service = models.BooleanField(_("archive service"), default=False, editable=False)
    title = models.CharField(_("title"), max_length=1000)
    language = models.CharField(_("language"), max_length=35, blank=True,
                                validators=[validate_language],
                                help_text=_("BCP 47 tag of the original language, e.g. pt-BR"))
    target_file = models.CharField(_("target file"), max_length=255, blank=True,
                                   help_text=_("the default file, opened by the persistent URL"))
    previous_edition = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="next_edition",
        verbose_name=_("previous edition"))
    # The edition chain, flattened so that "the last edition" is one indexed query however
    # long the chain: every edition carries its first edition's IBI and its place in the chain.
    edition_family = models.CharField(_("first edition"), max_length=255, blank=True,
                                      db_index=True, editable=False)
    edition_number = models.PositiveIntegerField(_("edition number"), default=1, editable=False)
    translation_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="translations",
        verbose_name=_("translation of"))
    created = models.DateTimeField(_("created"), auto_now_add=True)
    updated = models.DateTimeField(_("updated"), auto_now=True, db_index=True)
    deleted_at = models.DateTimeField(_("deleted at"), null=True, blank=True, editable=False)
    # Shown on the tombstone. db_default: rows loaded by COPY or plain SQL, which name only
    # the columns they know, still get "".
    deletion_reason = models.CharField(_("reason for deletion"), max_length=1000, blank=True,
                                       default="", db_default="", editable=False)
    # Deleted at its creators' request: the tombstone then cites it without their names.
    creators_withdrawn = models.BooleanField(
        _("removed at its creators' request"), default=False, db_default=False, editable=False)
    # Copies (RTC-11 §5.2): where the Original lives and the original's timestamp we copied.
    source_archive = models.CharField(_("source Archive"), max_length=255, blank=True,
                                      editable=False)
    copied_at = models.DateTimeField(_("copied at"), null=True, blank=True, editable=False)
    origin_timestamp = models.DateTimeField(_("timestamp at the source"), null=True, blank=True,
                                            editable=False)
    # An item's relations as the records of its Original's Archive state them (a Copy's, at
    # the last copy; a migrated Original keeps those of its former Archive): {".nextedition":
    # <IBI>, ".translation(pt)": <IBI>, ".previousedition": <IBI>, ".translationof": <IBI>}.
    # The archive service names those not held here (ibi<relation>) so that a resolver asks
    # the Archives that hold them, and the API's record states them, so that no refresh drops
    # a link because the related item is held elsewhere. A database default, so that bulk
    # COPY loads need not name the column.
    origin_relations = models.JSONField(
        _("relations at the source"), default=dict,
        db_default=models.Value({}, models.JSONField()), blank=True, editable=False)
    # Who may read the files (archive/access/policy.py): open to all, embargoed until a day
    # (the first open one; `manage.py liftembargoes` opens it), restricted to librarians and
    # holders of a secret link, or metadata only. Set through archive/access/services.py
    # `set_access`, which checks that a date goes with "embargoed" and with nothing else.
    access_rights = models.CharField(
        _("access"), max_length=16, choices=AccessRights.choices, default=AccessRights.OPEN,
        db_default=AccessRights.OPEN.value)
    embargo_until = models.DateField(
        _("embargoed until"), null=True, blank=True,
        help_text=_("the first day the files are open to all"))
    access_reason = models.CharField(_("reason for the access level"), max_length=1000,
                                     blank=True, default="", db_default="")

    class Meta:
        verbose_name = _("item")
        verbose_name_plural = _("items")
        ordering = ["-created", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["is_archive_service"],
                                    condition=models.Q(is_archive_service=True),
                                    name="one_archive_service"),
        ]
        indexes = [
            # The site's newest-first listings (home, browse) read this in order and stop
            # after a page. The API's cursor walks the primary key.
            models.Index(models.F("created").desc(), models.F("id").desc(),
                         name="item_listed_newest",
                         condition=models.Q(is_archive_service=False)
                         & ~models.Q(state="Deleted")),
            # OAI-PMH's keyset pages (harvest/selectors.py `page`): (updated, id) > (last
            # served) in this order, one index range whatever the depth, even when many items
            # share a datestamp (a collection loaded at once), where `updated` alone would sort
            # every tie on each page.
            models.Index(fields=["updated", "id"], name="item_oai_keyset",
                         condition=models.Q(is_archive_service=False)),
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

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="dc_values",
                             verbose_name=_("item"))
    element = models.CharField(_("element"), max_length=16,
                               choices=[(e, e) for e in DC_ELEMENTS])
    value = models.TextField(_("value"))
    position = models.PositiveIntegerField(_("position"), default=0)
    # A creator's ORCID iD, bare (0000-0002-1825-0097), checked by the deposit services
    # (identifiers/orcid.py). db_default: rows loaded by COPY or plain SQL still get "".
    orcid = models.CharField(_("ORCID iD"), max_length=19, blank=True, default="", db_default="")

    class Meta:
        ordering = ["element", "position", "id"]
        verbose_name = _("Dublin Core value")
        verbose_name_plural = _("Dublin Core values")

    def __str__(self) -> str:
        return f"{self.element}: {self.value}"


class SearchVectorField(models.Field):
    """PostgreSQL's tsvector; plain text elsewhere (SQLite keeps it NULL and unused)."""

    description = "a text search vector"

    def db_type(self, connection) -> str:
        return "tsvector" if connection.vendor == "postgresql" else "text"


class ItemSearch(models.Model):
    """What search reads for one item, kept current by the database's own triggers
    (installed by migration 0007_full_text_search) on every write
    to archive_item and archive_dcvalue, whoever writes: the services, the admin, raw SQL,
    COPY. `manage.py reindex` rebuilds it.

    PostgreSQL fills `document` (weighted, stemmed and unaccented: the README's "Search"),
    SQLite fills `text` (lower case, accents folded). No foreign key:
    a COPY into archive_item need not wait for it, and the triggers remove a deleted item's row.
    """

    item = models.OneToOneField(Item, primary_key=True, on_delete=models.DO_NOTHING,
                                db_constraint=False, related_name="search_entry",
                                verbose_name=_("item"))
    # NULL (its database default) until the triggers fill it; its GIN index is made by the
    # migration on PostgreSQL only.
    document = SearchVectorField(_("document"), null=True)
    text = models.TextField(_("text"), default="", db_default="")
    # What the site's listings show (neither a tombstone nor the archive service): a search
    # of the site then reads this table alone, whatever the number of matches.
    listed = models.BooleanField(_("listed"), default=False, db_default=False)

    class Meta:
        verbose_name = _("search entry")
        verbose_name_plural = _("search entries")

    def __str__(self) -> str:
        return f"search entry of item {self.item_id}"


class ItemFile(models.Model):
    """A file of an item, stored at col/<repository name>/doc/<name>."""

    item = models.ForeignKey(Item, on_delete=models.PROTECT, related_name="files",
                             verbose_name=_("item"))
    name = models.CharField(_("name"), max_length=255)
    size = models.BigIntegerField(_("size"))
    sha256 = models.CharField("SHA-256", max_length=64)
    content_type = models.CharField(_("content type"), max_length=255,
                                    default="application/octet-stream")
    created = models.DateTimeField(_("created"), auto_now_add=True)
    # Fixity: when the stored bytes were last hashed again, and what was found.
    checked_at = models.DateTimeField(_("checked"), null=True, blank=True, db_index=True)
    fixity_problem = models.CharField(_("problem"), max_length=255, blank=True)
    # Closed to the public even when its item is open (a public article, a restricted
    # dataset): for librarians and holders of a secret link, as a restricted item's files.
    restricted = models.BooleanField(_("restricted"), default=False, db_default=False)

    class Meta:
        verbose_name = _("item file")
        verbose_name_plural = _("item files")
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["item", "name"], name="one_name_per_item")]

    def __str__(self) -> str:
        return f"{self.item.ibi}/doc/{self.name}"


class IdempotencyKey(models.Model):
    """A client's Idempotency-Key for an API write (archive/deposit/idempotency.py): per user,
    with a hash of the request, the status it answers and, once written, the item it wrote.
    Kept IDEMPOTENCY_TTL."""

    user = models.ForeignKey("auth.User", on_delete=models.CASCADE, related_name="+",
                             verbose_name=_("user"))
    key = models.CharField(_("key"), max_length=255)
    fingerprint = models.CharField(_("fingerprint"), max_length=64)
    item = models.ForeignKey(Item, null=True, blank=True, on_delete=models.CASCADE,
                             related_name="+", verbose_name=_("item"))
    created = models.DateTimeField(_("created"), db_index=True)
    # The HTTP status of the first answer, replayed with the item (201: a deposit, files added).
    status = models.PositiveSmallIntegerField(_("status"), default=201, db_default=201)

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


class AccessKind(models.TextChoices):
    """What an access is: a download here, or an acknowledgment (a persistent URL resolved to
    this Archive, by our own resolver or another's)."""

    DOWNLOAD = "download", _("download")
    ACKNOWLEDGMENT = "acknowledgment", _("acknowledgment")


class DailyAccessCount(models.Model):
    """Accesses to an item on one UTC day, of one kind: COUNTER R5 Total_Item_Requests (n)
    and Unique_Item_Requests (unique_n: once per reader session, that is per client address,
    User-Agent and UTC hour, as COUNTER R5 defines a session without a session cookie).

    One row per item, day and kind, incremented by each batch of accesses written
    (archive/accesses/counter.py), so a year of statistics is at most 730 rows per item,
    whatever the traffic. What is counted, and what is filtered, is said there; no reader's
    address is kept here.
    """

    # The unique (item, day, kind) index serves lookups by item: no index of its own.
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="access_counts",
                             db_index=False, verbose_name=_("item"))
    day = models.DateField(_("day"))
    kind = models.CharField(_("kind"), max_length=16, choices=AccessKind.choices)
    n = models.PositiveBigIntegerField(_("accesses"), default=0, db_default=0)
    unique_n = models.PositiveBigIntegerField(_("unique accesses"), default=0, db_default=0)

    class Meta:
        verbose_name = _("daily access count")
        verbose_name_plural = _("daily access counts")
        constraints = [models.UniqueConstraint(fields=["item", "day", "kind"],
                                               name="daily_access_count_once")]

    def __str__(self) -> str:
        return f"{self.item_id} {self.day} {self.kind}: {self.n}"


class AcknowledgedUrlkey(models.Model):
    """A urlkey an acknowledgment was counted for, kept while the key could still be sent
    (IBI_URLKEY_MAX_AGE; an older key is refused anyway): a second acknowledgment of the same
    answer counts nothing. Swept by archive/accesses/counter.py as acknowledgments arrive."""

    urlkey = models.CharField(_("urlkey"), max_length=64, primary_key=True)
    at = models.DateTimeField(_("counted at"), db_index=True, db_default=Now())

    class Meta:
        verbose_name = _("acknowledged urlkey")
        verbose_name_plural = _("acknowledged urlkeys")

    def __str__(self) -> str:
        return self.urlkey


class RegisteredArchive(models.Model):
    """An Archive registered at this resolver (RTC-11 §7): its archive service IBI and key.

    Only a hash of the registration key is kept; `included` is the switch the Archive turns
    with inclusionRequest / exclusionRequest.
    """

    archive_service_ibi = models.CharField(_("archive service IBI"), max_length=255, unique=True)
    key_hash = models.CharField(_("key hash"), max_length=64, editable=False)
    email = models.EmailField(_("email"), blank=True)
    address = models.CharField(_("address"), max_length=255, blank=True,
                               help_text=_("host[:port] given at the last inclusion"))
    ip = models.CharField(_("IP address"), max_length=64, blank=True)
    platform_version = models.CharField(_("platform version"), max_length=100, blank=True)
    included = models.BooleanField(_("switched on"), default=False)
    included_at = models.DateTimeField(_("switched on at"), null=True, blank=True)
    excluded_at = models.DateTimeField(_("switched off at"), null=True, blank=True)
    registered_at = models.DateTimeField(_("registered at"), auto_now_add=True)

    class Meta:
        verbose_name = _("registered Archive")
        verbose_name_plural = _("registered Archives")
        ordering = ["archive_service_ibi"]

    def __str__(self) -> str:
        if self.included:
            return _("%(ibi)s (switched on)") % {"ibi": self.archive_service_ibi}
        return _("%(ibi)s (switched off)") % {"ibi": self.archive_service_ibi}


class AccessRequest(models.Model):
    """A reader's request for a copy of an item's files (the landing page's form), and the
    librarian's answer. The reader's name and address serve to answer, nothing else; no IP
    address is kept."""

    class Status(models.TextChoices):
        PENDING = "pending", _("waiting")
        APPROVED = "approved", _("approved")
        REFUSED = "refused", _("refused")

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="access_requests",
                             verbose_name=_("item"))
    name = models.CharField(_("name"), max_length=200)
    email = models.EmailField(_("email"))
    reason = models.TextField(_("reason"), max_length=2000)
    # The reader's language when asking: the answer is written in it.
    language = models.CharField(_("language"), max_length=8, blank=True, default="")
    created = models.DateTimeField(_("asked"), auto_now_add=True, db_index=True)
    status = models.CharField(_("status"), max_length=8, choices=Status.choices,
                              default=Status.PENDING, db_index=True)
    decided_at = models.DateTimeField(_("answered"), null=True, blank=True)
    decided_by = models.ForeignKey("auth.User", null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+",
                                   verbose_name=_("answered by"))
    message = models.TextField(_("message to the reader"), blank=True, default="")
    # When the answer was mailed: empty after a decision while the mail still waits (or
    # failed: the librarian sees it).
    mailed_at = models.DateTimeField(_("answer mailed"), null=True, blank=True)
    # The answer's mail is owed (archive/access/services.py `mail_owed`): when a worker may
    # try it (again), how many tries it took, and the site's address the librarian answered
    # at, for the link. Empty once mailed, or given up.
    mail_due = models.DateTimeField(_("mail due"), null=True, blank=True, db_index=True)
    mail_attempts = models.PositiveSmallIntegerField(_("mail attempts"), default=0,
                                                     db_default=0)
    mail_base = models.CharField(_("site address"), max_length=255, blank=True, default="",
                                 db_default="")
    # When the reader's personal data (name, email, reason, the message to them) were erased,
    # IBI_ACCESS_REQUEST_DAYS after the request (archive/access/services.py).
    erased_at = models.DateTimeField(_("personal data erased"), null=True, blank=True)

    class Meta:
        verbose_name = _("access request")
        verbose_name_plural = _("access requests")
        ordering = ["-created", "-id"]

    def __str__(self) -> str:
        # What other records copy (the admin's history, a link's request): never the reader.
        return _("request %(id)s for %(ibi)s") % {"id": self.pk, "ibi": self.item.ibi}


class AccessLink(models.Model):
    """A secret link: it opens one item's files to whoever holds it, until `expires` (the
    first day it no longer works) or until revoked. Only a hash of its token is kept."""

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="access_links",
                             verbose_name=_("item"))
    token_hash = models.CharField(_("token hash"), max_length=64, unique=True, editable=False)
    note = models.CharField(_("note"), max_length=1000, blank=True, default="")
    expires = models.DateField(_("expires"), help_text=_("the first day it no longer works"))
    created = models.DateTimeField(_("created"), auto_now_add=True)
    created_by = models.ForeignKey("auth.User", null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+",
                                   verbose_name=_("created by"))
    revoked_at = models.DateTimeField(_("revoked"), null=True, blank=True)
    # The approved request it answers, if any.
    request = models.OneToOneField(AccessRequest, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="link",
                                   verbose_name=_("request"))

    class Meta:
        verbose_name = _("secret link")
        verbose_name_plural = _("secret links")
        ordering = ["-created", "-id"]

    def __str__(self) -> str:
        return _("link %(id)s to %(ibi)s") % {"id": self.pk, "ibi": self.item.ibi}


class AccessRead(models.Model):
    """The audit trail: one read of a file that is not open to all, by whom (a librarian,
    another Archive's account) or through which secret link, when. Never the reader's IP
    address (LGPD)."""

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="+",
                             verbose_name=_("item"))
    file_name = models.CharField(_("file"), max_length=255)
    at = models.DateTimeField(_("when"), db_index=True)
    user = models.ForeignKey("auth.User", null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="+", verbose_name=_("user"))
    # The user's name when reading: the trail outlives the account.
    who = models.CharField(_("who"), max_length=150, blank=True, default="")
    link = models.ForeignKey(AccessLink, null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="reads", verbose_name=_("secret link"))

    class Meta:
        verbose_name = _("read of a closed file")
        verbose_name_plural = _("reads of closed files")
        ordering = ["-at", "-id"]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.file_name}"


class AlternateIdentifier(models.Model):
    """Another name an item (or one of its files) had before it came here: its Handle, its
    DSpace UUID, a DSpace bitstream's UUID or sequence, the OAI identifier it was harvested
    under. The IBI stays the item's own; these keep old links and citations working
    (archive/dspace/, the old-link routes of site/legacy.py) and appear in its metadata.

    Each value belongs to one item in its scheme: a second item claiming a Handle already held
    here is refused by the unique constraint, whoever writes."""

    class Scheme(models.TextChoices):
        HANDLE = "handle", _("Handle")
        DSPACE_ITEM = "dspace-item", _("DSpace item UUID")
        DSPACE_BITSTREAM = "dspace-bitstream", _("DSpace bitstream UUID")
        # "<handle>/<sequence>": DSpace's /bitstream/<handle>/<sequence>/<name> links.
        DSPACE_SEQUENCE = "dspace-sequence", _("DSpace bitstream sequence")
        OAI = "oai", _("OAI identifier")

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="alternate_ids",
                             verbose_name=_("item"))
    scheme = models.CharField(_("scheme"), max_length=16, choices=Scheme.choices)
    # Handles are case-insensitive in ASCII (RFC 3650 §3): stored in lower case.
    value = models.CharField(_("value"), max_length=255)
    # For a bitstream's UUID or sequence: the name of the file it is here ("" for the item).
    file_name = models.CharField(_("file name"), max_length=255, blank=True, default="")

    class Meta:
        verbose_name = _("alternate identifier")
        verbose_name_plural = _("alternate identifiers")
        ordering = ["scheme", "id"]
        constraints = [models.UniqueConstraint(fields=["scheme", "value"],
                                               name="one_item_per_alternate_identifier")]

    def __str__(self) -> str:
        return f"{self.scheme}:{self.value}"


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


class OwedAcknowledgment(models.Model):
    """An acknowledgment (Table 8.11) this resolver owes the Archive that gave a URL (RTC-11
    §8.2 step 5): written with the resolution, sent by a worker, tried again with backoff
    until it is delivered, refused or given up (archive/resolver/outbox.py). One per
    resolution: a broker outage delays acknowledgments and loses none, and none is sent
    twice. Kept while its urlkey could be sent (IBI_URLKEY_MAX_AGE) after it is done."""

    archive = models.ForeignKey(RegisteredArchive, on_delete=models.CASCADE, related_name="+",
                                verbose_name=_("Archive"))
    key = models.CharField(_("key"), max_length=64, unique=True,
                           help_text=_("random, one per resolution acknowledged"))
    pairs = models.JSONField(_("pairs"))
    created = models.DateTimeField(_("created"), db_default=Now())
    # When it may be tried (again): a worker that takes it moves this past its attempt, so that
    # a worker killed mid-send leaves it to the next one.
    due = models.DateTimeField(_("due"), db_default=Now())
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0, db_default=0)
    done_at = models.DateTimeField(_("done at"), null=True, blank=True)
    outcome = models.CharField(_("outcome"), max_length=255, blank=True, default="",
                               db_default="")

    class Meta:
        verbose_name = _("owed acknowledgment")
        verbose_name_plural = _("owed acknowledgments")
        indexes = [
            models.Index(fields=["due"], name="acknowledgment_owed_due",
                         condition=models.Q(done_at=None)),
            models.Index(fields=["done_at"], name="acknowledgment_done",
                         condition=~models.Q(done_at=None)),
        ]

    def __str__(self) -> str:
        return f"{self.archive_id}: {self.pairs.get('urlkey', '')}"


class CopyJob(models.Model):
    """A copy of an item from another Archive that was asked for (the admin, the hourly
    refresh, `copyitem`): its state in the database, where the admin reads its progress, so
    that a worker killed mid-copy loses nothing; another takes it over once its heartbeat is
    older than IBI_COPY_LEASE (archive/preservation/jobs.py). One at work per IBI."""

    class State(models.TextChoices):
        QUEUED = "queued", _("queued")
        RUNNING = "running", _("running")
        DONE = "done", _("done")
        FAILED = "failed", _("failed")

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
