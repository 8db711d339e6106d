"""A reader's search text, read once: words, "phrases", prefixes (relat*), -exclusions, OR.

Pure: no Django, no database. The same reading serves both databases: PostgreSQL turns each
term into a text search query (archive/search/selectors.py), SQLite into substrings of the
folded text (`fold`).

    >>> parse('relat* "série temporal" -draft or avaliações')
    [[Term(kind='prefix', text='relat'), Term(kind='phrase', text='série temporal'), \
Term(kind='word', text='draft', negated=True)], [Term(kind='word', text='avaliações')]]
    >>> fold("Relatório ANUAL, Æsir")
    'relatorio anual, aesir'
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

# Letters NFKD does not take apart, folded as PostgreSQL's unaccent rules do.
_EXTRA = {"Æ": "ae", "æ": "ae", "Ø": "o", "ø": "o", "Œ": "oe", "œ": "oe", "ß": "ss",
          "Đ": "d", "đ": "d", "Ł": "l", "ł": "l", "Þ": "th", "þ": "th", "Ð": "d", "ð": "d",
          "ı": "i", "Ħ": "h", "ħ": "h", "Ŧ": "t", "ŧ": "t"}


def _folds() -> dict[str, str]:
    """Every letter of Latin-1 and Latin Extended-A, upper and lower case, to its plain
    lower-case form: what `fold` applies, as SQLite's triggers do (migration
    0007_full_text_search holds their copy of this table)."""
    table = {}
    for code in range(0xC0, 0x180):
        char = chr(code)
        if char in _EXTRA:
            table[char] = _EXTRA[char]
            continue
        base = "".join(c for c in unicodedata.normalize("NFKD", char)
                       if not unicodedata.combining(c))
        if base != char and base.isascii() and base.isalpha():
            table[char] = base.lower()
    return table


FOLDS: dict[str, str] = _folds()
_TRANSLATE = str.maketrans({**FOLDS, **{chr(c): chr(c + 32) for c in range(65, 91)}})


def fold(text: str) -> str:
    """Accents off and ASCII lower case, exactly as SQLite's search text is stored: letters
    outside the table (Greek, Cyrillic, …) keep their case there, so they keep it here."""
    return text.translate(_TRANSLATE)


@dataclass(frozen=True)
class Term:
    kind: Literal["word", "phrase", "prefix"]
    text: str
    negated: bool = False

    def __repr__(self) -> str:
        negated = ", negated=True" if self.negated else ""
        return f"Term(kind={self.kind!r}, text={self.text!r}{negated})"


# A "phrase", a word (with a leading - for exclusion and a trailing * for a prefix).
_TOKEN = re.compile(r'(-?)"([^"]*)"?|(\S+)')
_WORD = re.compile(r"\w+")


def parse(q: str) -> list[list[Term]]:
    """The query as groups joined by OR, each a list of terms that must all match.

    Punctuation only separates words (as the text search parsers do); "or" between two
    terms, any case, joins them; a term that is only punctuation is dropped.

    >>> parse("Banon, G. OR Silva")
    [[Term(kind='word', text='Banon'), Term(kind='word', text='G')], \
[Term(kind='word', text='Silva')]]
    """
    groups: list[list[Term]] = [[]]
    for match in _TOKEN.finditer(q):
        if match.group(2) is not None:
            words = _WORD.findall(match.group(2))
            if words:
                groups[-1].append(Term("phrase", " ".join(words), negated=bool(match.group(1))))
            continue
        token = match.group(3)
        if token.lower() == "or":
            if groups[-1]:
                groups.append([])
            continue
        negated = token.startswith("-") and len(token) > 1
        prefix = token.endswith("*")
        words = _WORD.findall(token)
        for n, word in enumerate(words):
            last = n == len(words) - 1
            groups[-1].append(Term("prefix" if prefix and last else "word", word,
                                   negated=negated))
    return [group for group in groups if group]


def words(q: str) -> list[str]:
    """Every piece of text the query names, folded: what SQLite looks for as substrings.

    >>> words('Relatório "séries temporais" -x relat*')
    ['relatorio', 'series temporais', 'x', 'relat']
    """
    return [fold(term.text) for group in parse(q) for term in group]
