"""Language tags shown by name: `{{ item.language|language_name }}` → "Português (Brasil)"
for a reader of Portuguese, "Portuguese (Brazil)" for a reader of English; `autonym` names a
language in itself, as the language switcher offers them."""
from __future__ import annotations

from django import template
from django.utils.translation import get_language

from ..metadata.languages import language_name as _name

register = template.Library()


@register.filter
def language_name(tag: str) -> str:
    return _name(tag, get_language() or "en") if tag else ""


@register.filter
def autonym(tag: str) -> str:
    return _name(tag, tag) if tag else ""
