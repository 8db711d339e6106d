"""What the API's writes take: a deposit, files added, a change of metadata, a deletion, a
hand-over, a Copy made elsewhere. Each checks its own shape; the services check the rest."""
from __future__ import annotations

from django.utils.translation import gettext as _
from rest_framework import serializers

from ...identifiers import ibi as ibilib
from ...models import Collection
from ..schema import StrictInput
from .fields import (
    AccessField,
    ChecksumsField,
    DayField,
    ItemIbiField,
    at_least_one_file,
    files_field,
    uploads_field,
)
from .items import DublinCoreFields


class DepositSerializer(StrictInput, DublinCoreFields):
    title = serializers.CharField(max_length=1000)
    files = files_field()
    uploads = uploads_field()
    target_file = serializers.CharField(required=False, allow_blank=True,
                                        help_text="the default file; the first one if empty")
    language = serializers.CharField(required=False, allow_blank=True, max_length=35,
                                     help_text="BCP 47, e.g. pt-BR")
    previous_edition = ItemIbiField(required=False, help_text="IBI of the previous edition")
    translation_of = ItemIbiField(required=False, help_text="IBI of the item translated")
    sha256 = ChecksumsField(required=False, help_text="sha256 of each file, in order")
    transferable = serializers.BooleanField(
        required=False, default=True,
        help_text="false: this Original may never migrate to another Archive")
    access = AccessField(required=False, help_text="who may read the files; open if not "
                         "given")
    restricted_files = serializers.ListField(
        child=serializers.CharField(), required=False,
        help_text="names of files closed to the public even when the item is open "
                  "(repeat the field)")
    collection = serializers.SlugRelatedField(
        slug_field="slug", queryset=Collection.objects.all(), required=False,
        help_text="slug of its owning collection; the default collection if not given "
                  "(its access defaults apply when access is not given)")

    def validate(self, attrs: dict) -> dict:
        return at_least_one_file(attrs)


class AddFilesSerializer(serializers.Serializer):
    files = files_field()
    uploads = uploads_field()
    sha256 = ChecksumsField(required=False, help_text="sha256 of each file, in order")

    def validate(self, attrs: dict) -> dict:
        return at_least_one_file(attrs)


class ItemUpdateSerializer(StrictInput, DublinCoreFields):
    """What PATCH may change; a DC element given replaces all values of that element."""

    title = serializers.CharField(max_length=1000, required=False)
    language = serializers.CharField(required=False, allow_blank=True, max_length=35)
    target_file = serializers.CharField(required=False, allow_blank=True)
    translation_of = ItemIbiField(required=False, allow_null=True, allow_blank=True,
                                  help_text="IBI of the item translated; empty or null: none")
    transferable = serializers.BooleanField(required=False)
    access = AccessField(required=False, help_text="who may read the files; keys not given "
                         "stay (a level other than embargoed drops the date)")
    restricted_files = serializers.ListField(
        child=serializers.CharField(), required=False,
        help_text="exactly the files closed to the public even when the item is open")
    collection = serializers.SlugRelatedField(
        slug_field="slug", queryset=Collection.objects.all(), required=False,
        help_text="slug of the collection to move it to (its owning collection)")
    mapped_collections = serializers.SlugRelatedField(
        slug_field="slug", queryset=Collection.objects.all(), many=True, required=False,
        help_text="slugs of exactly the other collections it is mapped into")

    def validate_translation_of(self, value):
        return value or None


class DeleteSerializer(serializers.Serializer):
    reason = serializers.CharField(required=False, allow_blank=True, max_length=1000,
                                   help_text="shown on the tombstone, e.g. a retraction")
    at_creators_request = serializers.BooleanField(
        required=False, default=False,
        help_text="the creators asked for the removal: the tombstone cites it without them")


class LinkSerializer(StrictInput):
    """A secret link to make."""

    expires = DayField(help_text="YYYY-MM-DD after today: the first day the link "
                                  "no longer works")
    note = serializers.CharField(required=False, allow_blank=True, max_length=1000,
                                 help_text="for the librarians: whom it is for")


class CopyNoticeSerializer(StrictInput):
    archive = serializers.CharField(max_length=255, help_text="the IBI of the archive service "
                                    "of the Archive that holds the Copy (either form)")
    refreshed = serializers.BooleanField(default=False, help_text="false: a Copy made there; "
                                         "true: a Copy there refreshed from the Original")

    def validate_archive(self, value: str) -> str:
        try:
            return str(ibilib.parse(value))
        except ValueError as exc:
            raise serializers.ValidationError(_("not an IBI: %(reason)s")
                                              % {"reason": exc}) from None


class HandOverSerializer(serializers.Serializer):
    target = serializers.URLField(help_text="base URL of the Archive that holds a complete "
                                  "Copy and becomes the Original's")
