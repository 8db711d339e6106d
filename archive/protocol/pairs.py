"""The pair list: the text/plain body of every answer in the resolution standard.

RTC-11 §6.2, Table 6.2::

    pair-list = pair *(space pair)        space = SP | CRLF
    pair      = name 1*SP value           name  = word
    value     = word | "{" word 1*(SP word) "}"
    word      = 1*(%x21-7A | %x7C | %x7E)  ; printable ASCII but { and }

Example 6.2 (an Archive's answer to a urlRequest), as read by `loads`::

    >>> pairs = loads("contenttype Data\\n"
    ...               "ibi {rep sid.inpe.br/mtc-m19/2013/09.04.12.27.57 "
    ...               "ibip 8JMKD3MGP7W/3EPGUE5}\\n")
    >>> pairs[1]
    ('ibi', ['rep', 'sid.inpe.br/mtc-m19/2013/09.04.12.27.57', 'ibip', '8JMKD3MGP7W/3EPGUE5'])
    >>> for line in dumps(pairs).split("\\r\\n"):
    ...     print(line)
    contenttype Data
    ibi {rep sid.inpe.br/mtc-m19/2013/09.04.12.27.57 ibip 8JMKD3MGP7W/3EPGUE5}

We write pairs separated by CRLF and nothing after the last one, as Table 6.2 says (its
``space`` is SP or CRLF). We read what other Archives write more freely: SP, CRLF, or a bare
LF as Unix programs write it, one line break at the end, and several spaces between the words
of a list as between a name and its value (``ibi {rep  X  ibip  Y}``); `loads(text,
strict=True)` reads Table 6.2 to the letter.

Characters a word cannot hold are written ``%XX``, one per byte (§6.2). The standard's own example
wrote ``ó`` in ISO-8859-1 (``Relat%f3rio``); we write UTF-8 and read both (`unquote_word`).
Pure Python: no Django import.
"""

from __future__ import annotations

import re
from urllib.parse import quote

Value = str | list[str]
Pair = tuple[str, Value]


class PairListError(ValueError):
    """Text that is not a pair list of Table 6.2, or pairs that cannot be written as one."""


_WORD_CHARS = r"\x21-\x7a\x7c\x7e"
_WORD = re.compile(f"[{_WORD_CHARS}]+")
_NOT_WORD_CHAR = re.compile(f"[^{_WORD_CHARS}]")
_NOT_WORD_CHAR_OR_PERCENT = re.compile(f"[^{_WORD_CHARS}]|%")
_ESCAPES = re.compile(r"(?:%[0-9A-Fa-f]{2})+")
_LONE_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
# RFC 3986 gen-delims and sub-delims, plus "%" so that existing escapes survive.
_URL_SAFE = ":/?#[]@!$&'()*+,;=%~"


def _escape_char(match: re.Match[str]) -> str:
    return "".join(f"%{byte:02X}" for byte in match.group().encode("utf-8"))


def encode_value(text: str) -> str:
    """Escape free text as one word, losslessly: `unquote_word(encode_value(t)) == t`.

    Every character a word cannot hold (non-ASCII, controls, space, ``{``, ``}``) and ``%`` itself
    becomes ``%XX`` per UTF-8 byte, upper-case hex (Table 6.1 writes space ``%20``, ``%`` ``%25``)::

        >>> encode_value("Relatório Final.pdf")
        'Relat%C3%B3rio%20Final.pdf'
        >>> encode_value("100%")
        '100%25'

    Use `quote_url` for URLs instead: their ``%XX`` escapes are already meant as such.
    """
    return _NOT_WORD_CHAR_OR_PERCENT.sub(_escape_char, text)


def quote_url(url: str) -> str:
    """Percent-encode a URL so that it is one word: no space, brace or non-ASCII character.

    URL syntax and existing ``%XX`` escapes are kept; a ``%`` starting no escape becomes ``%25``::

        >>> quote_url("http://h/col/sid.inpe.br/mtc-m19/2013/09.04.12.27.57/doc/Relatório X.pdf")
        'http://h/col/sid.inpe.br/mtc-m19/2013/09.04.12.27.57/doc/Relat%C3%B3rio%20X.pdf'
    """
    return _LONE_PERCENT.sub("%25", quote(url, safe=_URL_SAFE))


def decode_bytes(raw: bytes) -> str:
    """Bytes that travelled as ``%XX``, as text: UTF-8 where they are valid UTF-8, each other
    byte as ISO-8859-1, the coding of the standard's own example (§6.2)::

        >>> decode_bytes(b"Relat\\xc3\\xb3rio"), decode_bytes(b"Relat\\xf3rio")
        ('Relatório', 'Relatório')
    """
    text = raw.decode("utf-8", "surrogateescape")
    return "".join(chr(ord(c) - 0xDC00) if "\udc80" <= c <= "\udcff" else c for c in text)


def _decode_bytes(match: re.Match[str]) -> str:
    return decode_bytes(bytes.fromhex(match.group().replace("%", "")))


def unquote_word(word: str) -> str:
    """Decode the ``%XX`` escapes of a word: UTF-8 where valid, else ISO-8859-1 per byte.

        >>> unquote_word("Relat%C3%B3rio%20Final.pdf")
        'Relatório Final.pdf'
        >>> unquote_word("Relat%f3rio%20Final.pdf")   # Example 6.2, written in ISO-8859-1
        'Relatório Final.pdf'

    A ``%`` that starts no escape is kept as it is.
    """
    return _ESCAPES.sub(_decode_bytes, word)


def _as_word(text: str) -> str:
    # Only what a word cannot hold is escaped; "%" is left alone so that words already escaped
    # (URLs from quote_url, words from encode_value or from loads) are written unchanged.
    return _NOT_WORD_CHAR.sub(_escape_char, text)


def _value_text(value: Value) -> str:
    words = [w for w in value.split(" ") if w] if isinstance(value, str) else list(value)
    if any(w == "" for w in words):
        raise PairListError("a word cannot be empty")
    words = [_as_word(w) for w in words]
    # One word is written bare: Table 6.2 has no one-word list; "{}" is Table 9.3's empty value.
    return words[0] if len(words) == 1 else "{" + " ".join(words) + "}"


def dumps(pairs: list[Pair]) -> str:
    """Write pairs as a pair list of Table 6.2, one ``name value`` per line: CRLF between pairs,
    none after the last.

    A str value is split at spaces into words; a list value is a list of words. Zero or several
    words are written in braces, one word bare. Characters a word cannot hold are escaped
    ``%XX`` (UTF-8) but ``%`` is kept, so escape free text with `encode_value` first when it may
    contain ``%``::

        >>> dumps([("notice", "acknowledgment received"), ("ibi.platformsoftware", [])])
        'notice {acknowledgment received}\\r\\nibi.platformsoftware {}'
    """
    lines = []
    for name, value in pairs:
        if not _WORD.fullmatch(name):
            raise PairListError(f"name {name!r} is not a word of Table 6.2")
        lines.append(f"{name} {_value_text(value)}")
    return "\r\n".join(lines)


def _error(text: str, pos: int, message: str) -> PairListError:
    line = text.count("\n", 0, pos) + 1
    column = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return PairListError(f"pair list, line {line} column {column}: {message}")


def _found(text: str, pos: int) -> str:
    if pos >= len(text):
        return "the end of the text"
    names = {" ": "a space", "\n": "a line feed", "\r": "a carriage return", "{": "'{'", "}": "'}'"}
    char = text[pos]
    return names.get(char, f"{char!r}, which a word cannot hold (write it %XX)")


def _word(text: str, pos: int, expected: str) -> tuple[str, int]:
    match = _WORD.match(text, pos)
    if not match:
        raise _error(text, pos, f"expected {expected}, found {_found(text, pos)}")
    return match.group(), match.end()


def _value(text: str, pos: int, strict: bool) -> tuple[Value, int]:
    if not text.startswith("{", pos):
        return _word(text, pos, "a value")
    opened, pos, words = pos, pos + 1, []
    while not text.startswith("}", pos):
        if pos >= len(text):
            raise _error(text, opened, "this '{' is never closed")
        if words:
            if not text.startswith(" ", pos):
                raise _error(text, pos, f"expected a space or '}}', found {_found(text, pos)}")
            pos += 1
            while not strict and text.startswith(" ", pos):  # several, as between name and value
                pos += 1
        if pos >= len(text):
            raise _error(text, opened, "this '{' is never closed")
        word, pos = _word(text, pos, "a word")
        words.append(word)
    # "{}" is not in Table 6.2 but Table 9.3 asks for it (ibi.platformsoftware); a one-word list
    # "{w}" is not in the grammar either, but it is unambiguous, so we read it too.
    return words, pos + 1


def loads(text: str, *, strict: bool = False) -> list[Pair]:
    """Read a pair list (Table 6.2); words are returned as written, not unquoted.

    Pairs are separated by one space or one line break (CRLF, or LF as Unix programs write it);
    one final line break is allowed, and several spaces between the words of a list. With
    `strict`, only what Table 6.2 allows: one SP or one CRLF between pairs, one SP between the
    words of a list, nothing after the last pair. Anything else raises `PairListError` saying
    where::

        >>> loads("notice {acknowledgment received}")
        [('notice', ['acknowledgment', 'received'])]
        >>> loads("state")
        Traceback (most recent call last):
        ...
        archive.protocol.pairs.PairListError: pair list, line 1 column 1: name 'state' has no value
    """
    pairs: list[Pair] = []
    pos = 0
    while pos < len(text):
        start = pos
        name, pos = _word(text, pos, "a name")
        if not text.startswith(" ", pos):
            if pos >= len(text) or text[pos] in "\r\n":
                raise _error(text, start, f"name {name!r} has no value")
            raise _error(text, pos, f"expected a space, found {_found(text, pos)}")
        while text.startswith(" ", pos):
            pos += 1
        value, pos = _value(text, pos, strict)
        pairs.append((name, value))
        if pos == len(text):
            break
        separators = ("\r\n", " ") if strict else ("\r\n", "\n", " ")
        separator = next((s for s in separators if text.startswith(s, pos)), None)
        if separator is None:
            expected = "a space or CRLF" if strict else "a space or a line break"
            raise _error(text, pos, f"expected {expected}, found {_found(text, pos)}")
        pos += len(separator)
        if pos == len(text) and (strict or separator == " "):
            raise _error(text, pos - len(separator), "the text ends with a separator"
                         if strict else "the text ends with a space")
    return pairs


def to_dict(pairs: list[Pair]) -> dict[str, Value]:
    """The pairs as a dict; a name given twice raises `PairListError`.

        >>> to_dict(loads("state Original\\ncontenttype Data"))
        {'state': 'Original', 'contenttype': 'Data'}
    """
    result: dict[str, Value] = {}
    for name, value in pairs:
        if name in result:
            raise PairListError(f"name {name!r} appears twice in the pair list")
        result[name] = value
    return result
