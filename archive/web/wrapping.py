"""Long identifiers and file names that wrap at their separators, never mid-word: an IBI at
its slashes, a file name also after a dot, hyphen or underscore (a <wbr> there). The admin's
lists and the landing page's file table (issue 43: nothing scrolls sideways at 375 px).

    >>> str(breakable("relatorio_final.pdf"))
    'relatorio_<wbr>final.<wbr>pdf'
    >>> str(breakable("sid.inpe.br/mtc-m19/2013", "/"))
    'sid.inpe.br/<wbr>mtc-m19/<wbr>2013'
    >>> str(breakable("a_b.pdf", shorter_whole=24))
    'a_b.pdf'
"""
from __future__ import annotations

import re

from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

FILE_NAME = "/._-"


def breakable(text: str, after: str = FILE_NAME, shorter_whole: int = 0) -> SafeString:
    """`text` escaped, with a <wbr> after each separator in `after` but the last piece's;
    whole, as written, when it is no longer than `shorter_whole` characters."""
    text = str(text)
    if len(text) <= shorter_whole:
        return format_html("{}", text)
    pieces = [piece for piece in re.split(f"(?<=[{re.escape(after)}])", text) if piece]
    return mark_safe("".join(  # noqa: S308  (each piece escaped by format_html)
        format_html("{}<wbr>", piece) if piece[-1:] in after and n < len(pieces) - 1
        else format_html("{}", piece) for n, piece in enumerate(pieces)))
