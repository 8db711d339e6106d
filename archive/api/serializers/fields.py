"""The API's own fields: Dublin Core elements, creators with their ORCID iD, an IBI naming an
item, a list of checksums, the files of a multipart form."""
from __future__ import annotations

import re

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.exceptions import ValidationError

from ...deposit import selectors, services, values
from ...deposit import values as values_module
from ...models import Item


@extend_schema_field(OpenApiTypes.DATE)
class DayField(serializers.CharField):
    """A day, YYYY-MM-DD, as the schema says; read by the service, which says what is wrong
    with it in the repository's words (not a date, not after today …)."""


def creators_of(item: Item) -> list:
    """The values (DcValue) given as creators, in order: every field whose simple Dublin Core
    element is creator (dc.creator, dc.contributor.author, dcterms.creator)."""
    return sorted((v for v in item.dc_values.all() if v.element == "creator"),
                  key=lambda v: (v.position, v.id))


class DcElementField(serializers.ListField):
    """The values of one Dublin Core element, named by the field, as a list of strings."""

    child = serializers.CharField(allow_blank=True)

    def __init__(self, **kwargs) -> None:
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)

    def get_attribute(self, item: Item) -> list[str]:
        # dc.<element>'s own values: a qualified field's are in `metadata`.
        return [v.value for v in item.values_of(f"dc.{self.field_name}")]

    def to_internal_value(self, data) -> list[str]:
        # One value is a list of one, in JSON as in a form (where a field may simply not repeat).
        return super().to_internal_value([data] if isinstance(data, str) else data)


class CreatorField(DcElementField):
    """dc:creator: each value a name ("Family, Given") or {"name": …, "orcid": …} with an
    ORCID iD (bare or as its https://orcid.org/ URL). In a multipart form an object is sent as
    its JSON text. Cleans to [(name, bare iD or "")]; out, the names as every element's."""

    child = serializers.JSONField()

    def get_attribute(self, item: Item) -> list[str]:
        # Every creator, as oai_dc gives them: dc.creator's and a DSpace thesis's
        # dc.contributor.author (the registry's simple Dublin Core column says creator).
        return [v.value for v in creators_of(item)]

    def to_internal_value(self, data) -> list[tuple[str, str]]:
        values = [data] if isinstance(data, str | dict) else data
        if not isinstance(values, list):
            raise ValidationError(_("a creator is a name, an object {\"name\", \"orcid\"}, "
                                    "or a list of them"))
        return [self._one(value) for value in values]

    @staticmethod
    def _one(value) -> tuple[str, str]:
        if isinstance(value, str) and value.lstrip().startswith("{"):
            try:  # a multipart form's way of sending an object
                value = values.read_json(value)
            except ValueError:
                raise ValidationError(_("a creator that starts with { must be a JSON object "
                                        "{\"name\", \"orcid\"}")) from None
        if isinstance(value, str):
            return value, ""
        if (not isinstance(value, dict) or set(value) - {"name", "orcid"}
                or not isinstance(value.get("name"), str)
                or not isinstance(value.get("orcid", ""), str | None)):
            raise ValidationError(_('a creator object is {"name": "…", "orcid": "…"}, '
                                    "both strings"))
        try:
            return value["name"], services.clean_orcid(value.get("orcid") or "")
        except services.ServiceError as exc:
            raise ValidationError(str(exc)) from None


class ItemIbiField(serializers.CharField):
    """An IBI in either form, any case, naming an item of this repository."""

    def to_internal_value(self, data) -> Item:
        text = super().to_internal_value(data)
        item = selectors.item_by_ibi(text, selectors.public_items())
        if item is None:
            raise ValidationError(_("no item of this repository has the IBI %(ibi)r")
                                  % {"ibi": text})
        return item


class ChecksumsField(serializers.ListField):
    """sha256 of each file, in order: repeated fields, or one field separated by commas."""

    child = serializers.RegexField(r"^[0-9a-fA-F]{64}$", error_messages={
        "invalid": gettext_lazy("a sha256 is 64 hexadecimal digits")})

    def to_internal_value(self, data) -> list[str]:
        values = [data] if isinstance(data, str) else data
        if isinstance(values, list):
            values = [part for value in values for part in re.split(r"[\s,]+", str(value))
                      if part]
        return super().to_internal_value(values)


def files_field() -> serializers.ListField:
    return serializers.ListField(
        child=serializers.FileField(allow_empty_file=True, use_url=False), required=False,
        help_text="one or more files (repeat the field); or, or with them, `uploads`")


def uploads_field() -> serializers.ListField:
    return serializers.ListField(
        child=serializers.UUIDField(), required=False,
        help_text="ids of complete resumable uploads of yours (/api/uploads/), after `files`; "
                  "each is gone once deposited")


def at_least_one_file(attrs: dict) -> dict:
    """A deposit or an addition brings a file: sent with it, or uploaded before."""
    if not attrs.get("files") and not attrs.get("uploads"):
        raise serializers.ValidationError({"files": [gettext_lazy(
            "send one or more files, or name complete uploads in uploads")]})
    return attrs


class AccessField(serializers.JSONField):
    """Who may read the files: ``{"rights": …, "embargo_until": "YYYY-MM-DD" or null,
    "reason": …}``, each key optional (in a multipart form, that object as JSON text). Its
    values are checked by the deposit services (deposit/services.py `clean_access`)."""

    KEYS = ("rights", "embargo_until", "reason")

    def to_internal_value(self, data) -> dict:
        if isinstance(data, str):
            try:  # a multipart form's way of sending an object (never nested deep: values.py)
                data = values.read_json(data)
            except ValueError:
                data = None
        if (not isinstance(data, dict) or set(data) - set(self.KEYS)
                or not all(isinstance(v, str) or (v is None and k == "embargo_until")
                           for k, v in data.items())):
            raise ValidationError(_('access is an object {"rights": …, "embargo_until": '
                                    '"YYYY-MM-DD" or null, "reason": …} of texts (in a '
                                    "multipart form, as JSON text)"))
        return data


class MetadataListField(serializers.ListField):
    """`metadata`: values of the registry's fields, each {"field", "value", "language",
    "authority", "confidence"}. In JSON a list of objects; in a multipart form each repeat of
    the field is the JSON text of one object or of a list of them."""

    def to_internal_value(self, data) -> list[dict]:
        values = [data] if isinstance(data, str | dict) else data
        if not isinstance(values, list):
            raise ValidationError(_("metadata is a list of objects {\"field\", \"value\", "
                                    "\"language\", \"authority\", \"confidence\"}"))
        found = []
        for value in values:
            if isinstance(value, str):
                try:  # a multipart form's way of sending objects
                    value = values_module.read_json(value)
                except ValueError:
                    raise ValidationError(_("a metadata value sent as text must be the JSON "
                                            "of an object or of a list of objects")) from None
            found.extend(value if isinstance(value, list) else [value])
        return super().to_internal_value(found)
