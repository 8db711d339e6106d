"""The registry read: its fields by name."""
from __future__ import annotations

from ..db.arrays import among
from ..models import DcValue, MetadataField


def fields_by_name() -> dict[str, MetadataField]:
    """name (dc.contributor.advisor) → field, every field of the registry in one query."""
    return {field.name: field for field in MetadataField.objects.select_related("schema")}


def field_named(name: str) -> MetadataField | None:
    """The field of that name, or None."""
    return fields_by_name().get(name.strip())


def dc_fields() -> dict[str, MetadataField]:
    """element → dc.<element> (no qualifier), the fields of simple Dublin Core, in one query."""
    return {field.element: field for field in MetadataField.objects.select_related("schema")
            .filter(schema__name="dc", qualifier="")}


def metadata_of(item_ids) -> dict[int, list[dict]]:
    """item id → its values as the API and the bags give them, {field, value, language,
    authority, confidence}, by field then position (one query)."""
    found: dict[int, list[dict]] = {}
    rows = (DcValue.objects.filter(among(DcValue, "item_id", item_ids))
            .values_list("item_id", "field__schema__name", "field__element", "field__qualifier",
                         "value", "language", "authority", "confidence")
            .order_by("item_id", "field__schema__name", "field__element", "field__qualifier",
                      "position", "id"))
    for item_id, schema, element, qualifier, value, language, authority, confidence in rows:
        found.setdefault(item_id, []).append({
            "field": ".".join(p for p in (schema, element, qualifier) if p), "value": value,
            "language": language, "authority": authority, "confidence": confidence})
    return found


def rows_of(item_ids) -> dict[int, list[tuple[str, str, str, str, str, str, int]]]:
    """item id → its values as (schema, element, qualifier, language, value, authority,
    confidence), by field then position (one query): what dim and exportsaf write."""
    found: dict[int, list[tuple[str, str, str, str, str, str, int]]] = {}
    rows = (DcValue.objects.filter(among(DcValue, "item_id", item_ids))
            .values_list("item_id", "field__schema__name", "field__element", "field__qualifier",
                         "language", "value", "authority", "confidence")
            .order_by("item_id", "field__schema__name", "field__element", "field__qualifier",
                      "position", "id"))
    for item_id, *row in rows:
        found.setdefault(item_id, []).append(tuple(row))
    return found
