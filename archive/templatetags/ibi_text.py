"""{{ name|breakable }}: a long file name that may wrap at its separators (the landing page's
file table, issue 43: nothing scrolls sideways at 375 px). The admin has its own for IBIs
(archive/admin/items.py `breakable`)."""
from __future__ import annotations

import re

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

register = template.Library()

SEPARATORS = "/._-"
_AFTER = re.compile(f"(?<=[{re.escape(SEPARATORS)}])")


# A name this short fits a phone's file table whole: it stays as written.
SHORT = 24


@register.filter
def breakable(text: str) -> SafeString:
    """`text` escaped, with a <wbr> after each separator when it is longer than SHORT:
    "relatorio_final-versao_revisada.pdf" → "relatorio_<wbr>final-<wbr>versao_<wbr>…"."""
    text = str(text)
    if len(text) <= SHORT:
        return format_html("{}", text)
    pieces = [p for p in _AFTER.split(text) if p]
    return format_html_join("", "{}{}", ((p, SafeString("<wbr>") if p[-1] in SEPARATORS
                                          and i < len(pieces) - 1 else "")
                                         for i, p in enumerate(pieces)))
