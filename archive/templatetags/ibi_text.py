"""{{ name|breakable }}: a long file name that may wrap at its separators (archive/web/wrapping.py),
on the landing page's file table."""
from __future__ import annotations

from django import template
from django.utils.safestring import SafeString

from ..web import wrapping

register = template.Library()

# A name this short fits a phone's file table whole: it stays as written.
SHORT = 24


@register.filter
def breakable(text: str) -> SafeString:
    return wrapping.breakable(text, shorter_whole=SHORT)
