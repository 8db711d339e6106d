"""An item's record as the API answers it: both IBI forms, state, files with their URLs, Dublin
Core, links; a deleted item's record is its tombstone, wherever one is shown. Output only."""
from __future__ import annotations

from datetime import UTC, datetime

from django.utils import timezone
from django.utils.translation import get_language
from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field
from rest_framework import serializers

from ...access import policy
from ...accounts import selectors as accounts
from ...deposit import links, selectors
from ...metadata import cite
from ...metadata.selectors import record_of
from ...models import DC_ELEMENTS, AccessRights, Confidence, Item, ItemFile
from ...web.addresses import base_url
from .fields import CreatorField, DcElementField, MetadataListField, creators_of


def iso_utc(moment: datetime) -> str:
    """2014-01-02T17:23:57Z, the timestamp form of the resolution standard."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _base(serializer: serializers.Serializer) -> str:
    """Where the request a serializer answers reached this Archive (web/addresses.py)."""
    return base_url(serializer.context.get("request"))


def _reader(serializer: serializers.Serializer) -> policy.Reader:
    """Who reads (the views put it in the context: privileged or the public)."""
    return serializer.context.get("reader", policy.PUBLIC)


class AccessSerializer(serializers.Serializer):
    """Who may read the item's files (archive/access/policy.py): a COAR access level, the first
    day an embargo is over, and why."""

    rights = serializers.ChoiceField(choices=AccessRights.values)
    embargo_until = serializers.DateField(
        allow_null=True, help_text="with embargoed: the first day the files are open to all")
    reason = serializers.CharField(allow_blank=True)


class CreatorSerializer(serializers.Serializer):
    """A creator with the ORCID iD deposited with it ("" when none)."""

    name = serializers.CharField()
    orcid = serializers.CharField(help_text="bare ORCID iD, e.g. 0000-0002-1825-0097; "
                                            "empty when unknown")
    orcid_authenticated = serializers.BooleanField(
        help_text="whether the ORCID iD is authenticated: its holder signed in with ORCID "
                  "and it is linked to them (false for an iD only typed or imported)")


class MetadataValueSerializer(serializers.Serializer):
    """One value of a field of the metadata registry (/api/ docs: the metadata registry)."""

    field = serializers.CharField(
        max_length=200, help_text="schema.element.qualifier, e.g. dc.contributor.advisor; "
                                  "schema.element for no qualifier")
    value = serializers.CharField()
    language = serializers.CharField(required=False, allow_blank=True, max_length=35,
                                     default="", help_text="BCP 47, e.g. pt-BR; empty: none")
    authority = serializers.CharField(
        required=False, allow_blank=True, max_length=255, default="",
        help_text="authority id: a bare ORCID iD, a Lattes CV id (16 digits) or another "
                  "authority's key; empty: none")
    confidence = serializers.ChoiceField(
        choices=Confidence.values, required=False, default=Confidence.UNSET,
        help_text="DSpace's confidence in the authority id: -1 unset, 0 no value, "
                  "100 rejected, 200 failed, 300 not found, 400 ambiguous, 500 uncertain, "
                  "600 accepted")


class DublinCoreFields(serializers.Serializer):
    creator = CreatorField()
    subject = DcElementField()
    description = DcElementField()
    publisher = DcElementField()
    contributor = DcElementField()
    date = DcElementField()
    type = DcElementField()
    format = DcElementField()
    identifier = DcElementField()
    source = DcElementField()
    relation = DcElementField()
    coverage = DcElementField()
    rights = DcElementField()
    metadata = MetadataListField(
        child=MetadataValueSerializer(), required=False,
        help_text="every value with its field of the registry, language, authority id and "
                  "confidence; the top-level Dublin Core keys are the values of dc.<element> "
                  "itself (no qualifier). A field given here replaces all its values")


class FileSerializer(serializers.ModelSerializer):
    """A file; one the requester may not read (archive/access/policy.py) has no URL and no
    checksum."""

    url = serializers.SerializerMethodField(
        help_text="where it is served; null when the requester may not read it")
    sha256 = serializers.SerializerMethodField(help_text="null when the requester may not "
                                                         "read the file")

    class Meta:
        model = ItemFile
        fields = ["name", "size", "sha256", "content_type", "restricted", "url"]

    def _readable(self, file: ItemFile) -> bool:
        return policy.may_read(_reader(self), file.item_id, file.item.access_rights,
                               file.restricted)

    def get_url(self, file: ItemFile) -> str | None:
        if not self._readable(file):
            return None
        return links.file_url(file.item.ibi, file.name, _base(self))

    def get_sha256(self, file: ItemFile) -> str | None:
        return file.sha256 if self._readable(file) else None


def shown_files(item: Item, reader: policy.Reader) -> list[ItemFile]:
    """The files an item's record lists for this reader: none of a metadata-only item but
    to the privileged."""
    return list(item.files.all()) if policy.shows_files(reader, item.access_rights) else []


class TombstoneSerializer(serializers.ModelSerializer):
    """A deleted item's record, wherever the API shows one (an item, a list, a search): the
    site's tombstone policy (archive/site/views.py `_tombstone`). Its identifiers, state,
    title, citation, the date and reason of its deletion and the newer edition; never its
    description, other metadata or files."""

    timestamp = serializers.SerializerMethodField(help_text="last change, ISO 8601 UTC")
    persistent_url = serializers.SerializerMethodField()
    citation = serializers.SerializerMethodField(help_text="as the tombstone page cites it")
    newer_edition = serializers.SerializerMethodField(
        help_text="IBI of the next (else latest) edition, if any")

    class Meta:
        model = Item
        fields = ["ibi", "ibip", "state", "title", "timestamp", "persistent_url", "citation",
                  "deleted_at", "deletion_reason", "newer_edition"]
        read_only_fields = fields

    def get_timestamp(self, item: Item) -> str:
        return iso_utc(item.updated)

    def get_persistent_url(self, item: Item) -> str:
        return links.persistent_url(item.ibi, _base(self))

    def get_citation(self, item: Item) -> str:
        record = cite.with_creators(record_of(item, _base(self)), item)
        return cite.block(record, None, get_language() or "en",
                          today=timezone.localdate())["text"]

    def get_newer_edition(self, item: Item) -> str | None:
        newer = selectors.newer_edition(item)
        return newer.ibi if newer is not None else None


class ItemSerializer(DublinCoreFields, serializers.ModelSerializer):
    """An item's record: both IBI forms, state, files with their URLs, Dublin Core, links.
    A deleted item's record is its tombstone (TombstoneSerializer), here and in lists."""

    timestamp = serializers.SerializerMethodField(help_text="last update, ISO 8601 UTC")
    target_file = serializers.SerializerMethodField(
        help_text="the default file; empty when there is none, or the files are not shown")
    files = serializers.SerializerMethodField(
        help_text="none of a metadata-only item, except to librarians")
    access = serializers.SerializerMethodField()
    persistent_url = serializers.SerializerMethodField()
    landing_url = serializers.SerializerMethodField()
    previous_edition = serializers.SerializerMethodField(
        help_text="IBI of the previous edition, wherever it is held")
    next_edition = serializers.SerializerMethodField(
        help_text="IBI of the next edition, wherever it is held")
    translation_of = serializers.SerializerMethodField(
        help_text="IBI of the item translated, wherever it is held")
    translations = serializers.SlugRelatedField(slug_field="ibi", many=True, read_only=True)
    creators = serializers.SerializerMethodField(
        help_text="the creators with their ORCID iDs, in the order of creator")
    metadata = serializers.SerializerMethodField(
        help_text="every value with its field of the registry (schema.element.qualifier), "
                  "language, authority id and confidence, by field and in order; the "
                  "top-level Dublin Core keys are the values of dc.<element> itself")
    collection = serializers.SlugRelatedField(
        slug_field="slug", read_only=True, help_text="slug of its owning collection")
    mapped_collections = serializers.SlugRelatedField(
        slug_field="slug", many=True, read_only=True,
        help_text="slugs of the other collections it is mapped into")

    class Meta:
        model = Item
        fields = ["ibi", "ibip", "state", "title", "language", "timestamp", "target_file",
                  "files", "access", "persistent_url", "landing_url", *DC_ELEMENTS, "creators",
                  "metadata", "collection", "mapped_collections",
                  "previous_edition",
                  "next_edition", "translation_of", "translations", "transferable", "created",
                  "deleted_at", "source_archive", "copied_at", "origin_timestamp"]

    def get_fields(self) -> dict:
        # A record is output only: writes go through the input serializers below.
        fields = super().get_fields()
        for field in fields.values():
            field.read_only = True
        return fields

    def to_representation(self, item: Item) -> dict:
        if item.is_deleted:
            return TombstoneSerializer(item, context=self.context).data
        return super().to_representation(item)

    def get_timestamp(self, item: Item) -> str:
        # A copy's timestamp is its original's, as the archive service answers it.
        if item.state == Item.State.COPY and item.origin_timestamp:
            return iso_utc(item.origin_timestamp)
        return iso_utc(item.updated)

    def get_persistent_url(self, item: Item) -> str:
        return links.persistent_url(item.ibi, _base(self))

    def get_target_file(self, item: Item) -> str:
        return item.target_file if policy.shows_files(_reader(self), item.access_rights) else ""

    @extend_schema_field(FileSerializer(many=True))
    def get_files(self, item: Item) -> list[dict]:
        return FileSerializer(shown_files(item, _reader(self)), many=True,
                              context=self.context).data

    @extend_schema_field(AccessSerializer)
    def get_access(self, item: Item) -> dict:
        return {"rights": item.access_rights,
                "embargo_until": item.embargo_until.isoformat() if item.embargo_until else None,
                "reason": item.access_reason}

    def get_landing_url(self, item: Item) -> str:
        return links.landing_url(item.ibi, _base(self))

    @extend_schema_field(CreatorSerializer(many=True))
    def get_creators(self, item: Item) -> list[dict[str, str]]:
        creators = creators_of(item)
        authenticated = accounts.authenticated_orcids(v.orcid for v in creators)
        return [{"name": v.value, "orcid": v.orcid,
                 "orcid_authenticated": bool(v.orcid) and v.orcid in authenticated}
                for v in creators]

    @extend_schema_field(MetadataValueSerializer(many=True))
    def get_metadata(self, item: Item) -> list[dict]:
        rows = sorted(item.dc_values.all(), key=lambda v: (v.field.name, v.position, v.id))
        return [{"field": v.field.name, "value": v.value, "language": v.language,
                 "authority": v.authority, "confidence": v.confidence} for v in rows]

    # An item's links name related items held here, else those held on other Archives that its
    # relations remember (Item.origin_relations: a Copy's Original's, a migrated Original's
    # former Archive's): a Copy refreshed from this record keeps them (#25, 1.).
    def get_previous_edition(self, item: Item) -> str | None:
        if item.previous_edition_id:
            return item.previous_edition.ibi
        return item.origin_relations.get(".previousedition")

    def get_next_edition(self, item: Item) -> str | None:
        following = getattr(item, "next_edition", None)  # reverse one-to-one: may not exist
        if following is not None:
            return following.ibi
        return item.origin_relations.get(".nextedition")

    def get_translation_of(self, item: Item) -> str | None:
        if item.translation_of_id:
            return item.translation_of.ibi
        return item.origin_relations.get(".translationof")


def records(*, many: bool = False) -> PolymorphicProxySerializer:
    """In the schema, what ItemSerializer gives: a live item's record or a tombstone."""
    return PolymorphicProxySerializer(
        component_name="ItemOrTombstone", serializers=[ItemSerializer, TombstoneSerializer],
        resource_type_field_name=None, many=many)
