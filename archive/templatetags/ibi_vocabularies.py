"""Controlled values shown by name: `{{ value|vocabulary_label }}` reads a dc:type or dc:rights
value stored as its URI (the admin's choices, metadata/vocabularies.py) as "Relatório técnico"
or "Creative Commons Atribuição 4.0 (CC BY 4.0)" in the reader's language; any other value is
shown as it is."""
from __future__ import annotations

from django import template
from django.utils.translation import gettext

from ..metadata.vocabularies import label_of

register = template.Library()


@register.filter
def vocabulary_label(value: str) -> str:
    label = label_of(value or "")
    return gettext(label) if label is not None else value
