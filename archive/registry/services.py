"""The registry written: a field added or changed by a librarian (the admin)."""
from __future__ import annotations

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from ..models import MetadataField, MetadataSchema
from ..refusals import Refusal


def _saved(row: MetadataField | MetadataSchema) -> MetadataField | MetadataSchema:
    try:
        row.full_clean()
    except ValidationError as exc:
        raise Refusal("; ".join(exc.messages)) from None
    row.save()
    return row


def schema_save(*, schema: MetadataSchema) -> MetadataSchema:
    """A schema added or changed, checked first (its short name's form, unique)."""
    return _saved(schema)


def field_check(*, field: MetadataField) -> None:
    """What field_save would refuse of a stored field's change, raised; nothing written."""
    if field.pk is not None and field.values.exists():
        stored = MetadataField.objects.get(pk=field.pk)
        if (stored.schema_id, stored.element, stored.qualifier) != (
                field.schema_id, field.element, field.qualifier):
            raise Refusal(_("%(field)s has values: its name cannot change")
                          % {"field": stored.name})


def field_save(*, field: MetadataField) -> MetadataField:
    """A field added or changed, checked first (its parts' form, unique in its schema). A
    field with values keeps its name: renaming it would rename what every item says."""
    field_check(field=field)
    return _saved(field)
