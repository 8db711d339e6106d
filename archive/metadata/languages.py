"""Language tags as readers read them: "Português (Brasil)" for pt-BR, in the reader's language.

Babel holds the names (CLDR); a tag it has no name for is shown as written.

    >>> language_name("pt-BR", "pt-br"), language_name("pt-BR", "en")
    ('Português (Brasil)', 'Portuguese (Brazil)')
    >>> language_name("en", "pt-br"), language_name("x-klingon", "en")
    ('Inglês', 'x-klingon')
"""
from __future__ import annotations

import functools

import babel


@functools.lru_cache(maxsize=4096)
def language_name(tag: str, reader_language: str) -> str:
    try:
        name = babel.Locale.parse(tag, sep="-").get_display_name(
            babel.Locale.parse(reader_language, sep="-"))
    except (ValueError, TypeError, babel.UnknownLocaleError):
        return tag
    return name[:1].upper() + name[1:] if name else tag
