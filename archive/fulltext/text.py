"""Pure rules of text extraction (no Django): which files have text to extract, text decoded
whatever its encoding, cut into pages, and whether OCR found words or garbage.

A file without pages of its own (plain text, HTML, a DOCX) is cut into pages of about
PAGE_CHARS characters, at a line's end where there is one, so that a match is shown with a
place in the file and no page outgrows a search document::

    >>> [len(p) for p in paginate("a" * 7000)]
    [3000, 3000, 1000]
    >>> paginate("one\\fpage two\\f")
    ['one', 'page two']
"""
from __future__ import annotations

import re
import unicodedata

PAGE_CHARS = 3000
# Per page and per file: a hostile file's "text" is bounded before it reaches the database.
MAX_PAGE_CHARS = 100_000
MAX_FILE_CHARS = 50_000_000

PDF, DOCX, ODT, HTML, PLAIN, IMAGE = "pdf", "docx", "odt", "html", "plain text", "image"

_TYPES = {
    "application/pdf": PDF,
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": DOCX,
    "application/vnd.oasis.opendocument.text": ODT,
    "text/html": HTML, "application/xhtml+xml": HTML,
    "text/plain": PLAIN, "text/markdown": PLAIN,
    "image/png": IMAGE, "image/jpeg": IMAGE, "image/tiff": IMAGE, "image/gif": IMAGE,
    "image/webp": IMAGE, "image/bmp": IMAGE,
}
_SUFFIXES = {".pdf": PDF, ".docx": DOCX, ".odt": ODT, ".html": HTML, ".htm": HTML,
             ".xhtml": HTML, ".txt": PLAIN, ".md": PLAIN, ".png": IMAGE, ".jpg": IMAGE,
             ".jpeg": IMAGE, ".tif": IMAGE, ".tiff": IMAGE, ".gif": IMAGE, ".webp": IMAGE,
             ".bmp": IMAGE}


def kind_of(name: str, content_type: str) -> str | None:
    """The kind of a file, from its stored content type, else its name's suffix; None for a
    file without text to extract (a dataset, an archive, audio)::

        >>> kind_of("tese.pdf", "application/octet-stream"), kind_of("x.bin", "text/plain")
        ('pdf', 'plain text')
        >>> kind_of("dados.zip", "application/zip") is None
        True
    """
    media = (content_type or "").split(";")[0].strip().lower()
    if media in _TYPES:
        return _TYPES[media]
    dot = name.rfind(".")
    return _SUFFIXES.get(name[dot:].lower()) if dot >= 0 else None


def thumbnailed(kind: str | None) -> bool:
    """Whether a file of this kind gets a thumbnail of its first page: PDFs and images."""
    return kind in (PDF, IMAGE)


def decode(data: bytes, declared: str = "") -> str:
    """Text from bytes in whatever encoding, never an exception: UTF-16 by its BOM, UTF-8
    (with or without its BOM) when it is, the declared charset when it decodes, else
    Windows-1252 (which reads ISO-8859-1 too: the Portuguese texts that are not UTF-8 are
    nearly all in one of them) when it decodes, else charset_normalizer's guess, else
    ISO-8859-1, which decodes any bytes::

        >>> decode("ação".encode("cp1252")), decode("ação".encode("utf-8"))
        ('ação', 'ação')
        >>> isinstance(decode(b"\\x81\\x8d\\xff"), str)  # not Windows-1252: a guess
        True
    """
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", "replace")
    for encoding in ("utf-8-sig", declared, "cp1252"):
        if encoding:
            try:
                return data.decode(encoding)
            except (LookupError, UnicodeDecodeError):
                pass
    from charset_normalizer import from_bytes

    best = from_bytes(data[:1_000_000]).best()
    if best is not None:
        try:
            return data.decode(best.encoding)
        except (LookupError, UnicodeDecodeError):
            pass
    return data.decode("latin-1")


def clean(text: str) -> str:
    """A page's text as kept: NFC, no NUL or other control characters but line ends and
    tabs, no trailing blanks, bounded."""
    text = unicodedata.normalize("NFC", text)
    text = "".join(c for c in text if c in "\n\t" or unicodedata.category(c) != "Cc")
    return "\n".join(line.rstrip() for line in text.strip().splitlines())[:MAX_PAGE_CHARS]


def paginate(text: str, size: int = PAGE_CHARS) -> list[str]:
    """Pages of a text without pages of its own: at its form feeds if it has any, else in
    pieces of about `size` characters cut after a line's end (or a space) where one is near."""
    if "\f" in text:
        return [p for p in (clean(page) for page in text.split("\f")) if p]
    pages, text = [], text[:MAX_FILE_CHARS]
    while text:
        if len(text) <= size:
            cut = len(text)
        else:
            cut = max(text.rfind("\n", size // 2, size), text.rfind(" ", size // 2, size))
            cut = cut + 1 if cut > 0 else size
        piece = clean(text[:cut])
        if piece:
            pages.append(piece)
        text = text[cut:]
    return pages


def has_text(page: str) -> bool:
    """Whether a page of a PDF has text of its own (else it is a scan, for OCR): a few
    letters, not a stray page number::

        >>> has_text("  12  "), has_text("Introdução")
        (False, True)
    """
    return sum(c.isalpha() for c in page) >= 3


# The commonest words of Portuguese and English: a page OCR read is text when enough of its
# words are among them, garbage (a photo, a stain, a wrong language) when hardly any are.
COMMON_WORDS = frozenset("""
a à ao aos as às até com como da das de dela dele deles do dos e é ela elas ele eles em entre
era essa esse esta está este eu foi for foram há isso já lhe mais mas me mesmo muito na nas
não nem no nos nós o os ou para pela pelas pelo pelos por qual quando que quem se sem ser seu
seus será sido só sua suas também te tem têm um uma umas uns você sobre são foi pode ainda
onde após sob estudo trabalho resultados análise dados sistema pesquisa universidade
the of and to in is was for on that with as by it be are at from this which or an not have
has were had but their they its been also more one all can than other these there into
study results analysis data system research university we our between using
""".split())


def garbage(words: list[str], confidences: list[float]) -> str | None:
    """Why OCR's words of a page are no text (None: they are): none at all, a mean confidence
    below 50, or, among ten words or more, fewer than one in twenty a common Portuguese or
    English word. English messages; callers translate::

        >>> garbage([], [])
        'no words'
        >>> garbage("a análise dos dados".split(), [90, 91, 88, 93]) is None
        True
        >>> garbage(["~~", "||", "ll1"] * 4, [30] * 12)
        'mean confidence 30'
    """
    tokens = [w for w in (re.sub(r"\W", "", w).lower() for w in words) if w]
    if not tokens:
        return "no words"
    mean = sum(confidences) / len(confidences) if confidences else 0.0
    if mean < 50:
        return f"mean confidence {mean:.0f}"
    known = sum(t in COMMON_WORDS for t in tokens)
    if len(tokens) >= 10 and known * 20 < len(tokens):
        return f"{known} common words of {len(tokens)}"
    return None
