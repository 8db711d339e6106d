"""Identified items: the IBI, the state, the edition chain and translations, the access level."""
from __future__ import annotations

from django.apps import apps
from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from .access import AccessRights
from .languages import validate_language


class Item(models.Model):
    """An identified item. Its IBI (both forms) is minted on first save and never changes."""

    class State(models.TextChoices):
        ORIGINAL = "Original", pgettext_lazy("item state", "Original")
        COPY = "Copy", pgettext_lazy("item state", "Copy")
        DELETED = "Deleted", pgettext_lazy("item state", "Deleted")

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
    # Its owning collection, and the others it is mapped into (issue 34): DSpace's tree.
    # Null only in the database of SQLite (see migration 0032): save() puts an item created
    # without one (blank: a copy, a deposit naming none) into the default collection; the
    # services move and map it.
    collection = models.ForeignKey(
        "Collection", null=True, blank=True, on_delete=models.PROTECT, related_name="items",
        verbose_name=_("collection"))
    mapped_collections = models.ManyToManyField(
        "Collection", blank=True, related_name="mapped_items",
        verbose_name=_("also in the collections"))

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
            # A collection's page, newest first, as item_listed_newest for one collection:
            # a page of a collection of 500 among a million items reads 20 index entries.
            models.Index(models.F("collection"), models.F("created").desc(),
                         models.F("id").desc(), name="item_collection_newest",
                         condition=models.Q(is_archive_service=False)
                         & ~models.Q(state="Deleted")),
        ]

    def __str__(self) -> str:
        return f"{self.ibi} {self.title}"

    def save(self, *args, **kwargs) -> None:
        # The promise of the issue: an IBI at save time, however the item is created.
        if not self.ibi:
            # Through the app config: the models import no package of the app, so that
            # identifiers/minting.py, which reads MintingState from them, is no circle.
            self.ibi, self.ibip = apps.get_app_config(self._meta.app_label).mint_ibi()
        if self.collection_id is None:
            # The same promise for the tree: every item is in a collection.
            self.collection_id = apps.get_app_config(self._meta.app_label).default_collection()
        if not self.edition_family:
            previous = self.previous_edition
            self.edition_family = previous.edition_family if previous else self.ibi
            self.edition_number = previous.edition_number + 1 if previous else 1
        super().save(*args, **kwargs)

    @property
    def is_deleted(self) -> bool:
        return self.state == self.State.DELETED

    def dc(self, element: str) -> list[str]:
        """Values of one Dublin Core element, in order (uses prefetched rows when present):
        those of every field given as it (dc.contributor.advisor's are contributors)."""
        return [v.value for v in self.dc_values.all() if v.element == element]

    def values_of(self, field: str) -> list:
        """The values (DcValue) of one field of the registry by name, dc.creator, in order
        (uses prefetched rows, with their fields, when present)."""
        return sorted((v for v in self.dc_values.all() if v.field.name == field),
                      key=lambda v: (v.position, v.id))
