"""Persistent URLs of the resolution standard: what the resolver reads from ``/<ibi>[mdf][/path]``.

RTC-11 §8.1, Tables 8.1–8.5::

    URL-persistente = "http://urlib.net/" IBI [mdf] [path-absolute] ["?" pergunta]
    mdf = ([u [t]] | [t [u]]) [m [t]]      u = "!"   t = "+" ["(" idioma ["-" país] ")"]
                                           m = ":" ["(" formato ")"]
    ibiurl.verblist = verbo *("+" verbo)   ; GetTranslation[(..)] GetLastEdition
                                           ; GetMetadata[(formato)] GetFileList
    formato = "oai_dc" | "datacite" | "csljson" | "bibtex" | "ris" | "schemaorg"

The standard names only oai_dc; the other formats are this Archive's extension, named as
archive/metadata/formats.py serves them (``:(bibtex)`` → ``.metadata(bibtex)``).

Example 8.8 of the standard (Table 8.8 lists what the resolver extracted)::

    >>> url = parse("/LK47B6W/362SFKH+",
    ...             "ibiurl.requireditemstatus=Original&ibiurl.verblist=GetMetadata")
    >>> url.ibi, url.filepath, url.required_item_status, url.verblist_text()
    ('LK47B6W/362SFKH', None, 'Original', 'GetTranslation GetMetadata')
    >>> url.relation()                      # the archive-service relation of Table 9.5
    '.translation.metadata'

Pure Python: no Django import. The IBI is only checked for its shape here (Tables 6.1 and 7.1 of
the generation standard); archive/identifiers/ibi.py knows what it means.

Its error messages reach readers (the bad-URL alert page), in their language, yet this module
imports no Django: a `PersistentUrlError` carries an English message template, marked for the
catalogue by the local `gettext_noop` (makemessages extracts calls by that name), and its
parameters; `str(error)` is the English text, and the edge shows
``gettext(error.message) % error.params``::

    >>> error = PersistentUrlError(gettext_noop("%(name)s is given more than once"),
    ...                            name="ibiurl.verblist")
    >>> str(error)
    'ibiurl.verblist is given more than once'
    >>> error.message, error.params
    ('%(name)s is given more than once', {'name': 'ibiurl.verblist'})
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from urllib.parse import parse_qsl, unquote_plus

from archive.metadata.formats import FORMATS
from archive.protocol.pairs import unquote_word


def gettext_noop(message: str) -> str:
    """The message itself: marks it for the catalogue, which the edge translates it from."""
    return message


class PersistentUrlError(ValueError):
    """A path or query that is not a persistent URL of RTC-11 §8.1; the message says why.

    `message`: an English template with ``%(name)s`` placeholders, `params`: their values
    (already quoted as the message shows them)."""

    def __init__(self, message: str, **params: str) -> None:
        self.message, self.params = message, params
        super().__init__(message % params)


class NoIbiError(PersistentUrlError):
    """The path does not even start with an IBI: some other page, not a bad persistent URL."""


_IBIP_WORD = re.compile("[2-9A-HJ-NP-UWXa-hj-np-uwx]+")  # Table 7.1: no 0 O 1 I V Y Z
_IBIP_LAST = re.compile(r"([2-9A-HJ-NP-UWXa-hj-np-uwx]+)(.*)", re.S)
_HOST_WORD = "[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
_SUBDOMAIN = re.compile(rf"(?:{_HOST_WORD}\.)*[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.?")
_FIRST_WORD = re.compile(rf"{_HOST_WORD}(?:[.@][0-9]+)?")  # "@": names minted before Aug. 2010
_YEAR = re.compile("[0-9]{4,}")
_DATE_LAST = re.compile(r"([0-9]{2}\.[0-9]{2}\.[0-9]{2}\.[0-9]{2}(?:\.[0-9]{2}(?:\.[0-9]+)?)?)(.*)",
                        re.S)

_MODIFIER_TOKEN = re.compile(r"([!+:])(?:\(([^()]*)\))?")
_VERB = re.compile(r"([A-Za-z]+)(?:\(([^()]*)\))?")
_LANGUAGE = re.compile("([A-Za-z]{2,3})(?:-([A-Za-z]{2}))?")
_VERB_NAMES = {v.lower(): v for v in ("GetTranslation", "GetLastEdition", "GetMetadata",
                                      "GetFileList")}
_SYNONYMS = {"!": "GetLastEdition", "+": "GetTranslation", ":": "GetMetadata"}  # Table 8.5
_SYMBOLS = {verb: symbol for symbol, verb in _SYNONYMS.items()}
_RELATIONS = {"GetLastEdition": ".lastedition", "GetTranslation": ".translation",
              "GetMetadata": ".metadata"}  # Table 9.5
# Table 8.2, plus the empty modifier; the same 15 strings as the grammar mdf above.
_COMPOSITIONS = frozenset(["", ":", ":+", "!", "!+", "!:", "!+:", "!:+", "!+:+",
                           "+", "+!", "+:", "+!:", "+:+", "+!:+"])


@dataclass(frozen=True)
class PersistentUrl:
    """What the resolver captures from a persistent URL (Table 8.6), without the client data."""

    ibi: str  # as written, without the modifier
    modifier: str = ""  # as written, e.g. "!+(pt-BR):"
    verbs: tuple[str, ...] = ()  # parsedibiurl.verblist, e.g. ("GetLastEdition", "GetMetadata")
    filepath: str | None = None  # parsedibiurl.filepath, decoded, e.g. "/reference.bib"
    required_item_status: str | None = None  # "Original" or None

    def verblist_text(self) -> str:
        """The value of the ``parsedibiurl.verblist`` pair: the verbs separated by spaces."""
        return " ".join(self.verbs)

    def relation(self) -> str:
        """The relation of Table 9.5 the verbs ask for, e.g. ``!:(oai_dc)`` →
        ``.lastedition.metadata(oai_dc)``; ``""`` is the item itself. GetFileList is no relation.
        """
        parts = []
        for verb in self.verbs:
            name, paren, argument = verb.partition("(")
            if name in _RELATIONS:
                parts.append(_RELATIONS[name] + paren + argument)
        return "".join(parts)


def _language(tag: str) -> str:
    match = _LANGUAGE.fullmatch(tag)
    if not match:
        raise PersistentUrlError(gettext_noop("bad language tag %(tag)s: expected "
                                              "language[-COUNTRY], e.g. pt-BR"), tag=repr(tag))
    language, country = match.groups()
    return language.lower() + (f"-{country.upper()}" if country else "")


def _verb(name: str, argument: str | None) -> str:
    """The canonical spelling of a verb of Table 8.4 (names and formats are case-insensitive)."""
    canonical = _VERB_NAMES.get(name.lower())
    if canonical is None:
        raise PersistentUrlError(gettext_noop("unknown verb %(verb)s (Table 8.4: GetTranslation, "
                                              "GetLastEdition, GetMetadata, GetFileList)"),
                                 verb=repr(name))
    if argument is None:
        return canonical
    if canonical == "GetTranslation":
        return f"GetTranslation({_language(argument)})"
    if canonical == "GetMetadata":
        if argument.lower() not in FORMATS:
            raise PersistentUrlError(gettext_noop("unknown metadata format %(format)s: one of "
                                                  "%(formats)s"),
                                     format=repr(argument), formats=", ".join(FORMATS))
        return f"GetMetadata({argument.lower()})"
    raise PersistentUrlError(gettext_noop("%(verb)s takes no argument, got (%(argument)s)"),
                             verb=canonical, argument=argument)


def _check_composition(verbs: list[str], what: str, **params: str) -> None:
    """PersistentUrlError(what, symbols=…, **params) unless the verbs compose a modifier of
    Table 8.2; `what` is the message."""
    symbols = "".join(_SYMBOLS.get(v.partition("(")[0], "") for v in verbs)
    if symbols not in _COMPOSITIONS:
        raise PersistentUrlError(what, symbols=repr(symbols), **params)


def _split_ibi(segments: list[str]) -> tuple[str, str, list[str]]:
    """(IBI, modifier text, remaining raw segments).

    The repository-name shape is tried first: a name minted for a two-label host such as
    ``banner.net`` starts ``net/banner/…``, which also looks like an IBIp, whereas an IBIp
    followed by a file path ``/YYYY/MM.DD.hh.mm`` is far-fetched.
    """
    words = [unquote_word(s) for s in segments[:4]]
    if (len(words) == 4 and _SUBDOMAIN.fullmatch(words[0]) and _FIRST_WORD.fullmatch(words[1])
            and _YEAR.fullmatch(words[2]) and (last := _DATE_LAST.fullmatch(words[3]))):
        return "/".join([*words[:3], last[1]]), last[2], segments[4:]
    if (len(words) >= 2 and _IBIP_WORD.fullmatch(words[0])
            and (last := _IBIP_LAST.fullmatch(words[1]))):
        return f"{words[0]}/{last[1]}", last[2], segments[2:]
    start = "/" + "/".join(segments[:4])
    if (len(words) >= 3 and _SUBDOMAIN.fullmatch(words[0]) and _FIRST_WORD.fullmatch(words[1])
            and _YEAR.fullmatch(words[2])):
        # subdomain/word/year: a repository name with a broken date, not some other page.
        raise PersistentUrlError(gettext_noop(
            "%(start)s is no repository name: after the year comes the date "
            "MM.DD.hh.mm[.ss[.fraction]], e.g. 09.04.12.27.57"), start=repr(start))
    raise NoIbiError(gettext_noop("no IBI at the start of %(start)s: expected an IBIp "
                                  "(e.g. LK47B6W/362SFKH) or a repository name "
                                  "(e.g. iconet.com.br/banon/2009/09.09.22.01)"),
                     start=repr(start))


def _modifier_verbs(ibi: str, modifier: str) -> list[str]:
    verbs, pos = [], 0
    while pos < len(modifier):
        token = _MODIFIER_TOKEN.match(modifier, pos)
        if not token:
            raise PersistentUrlError(gettext_noop(
                "unexpected %(char)s after the IBI %(ibi)s (a modifier is made of '!', "
                "'+(..)' and ':(..)')"), char=repr(modifier[pos]), ibi=repr(ibi))
        symbol, argument = token.groups()
        if symbol == "!" and argument is not None:
            raise PersistentUrlError(gettext_noop("'!' takes no argument, got (%(argument)s)"),
                                     argument=argument)
        verbs.append(_verb(_SYNONYMS[symbol], argument))
        pos = token.end()
    _check_composition(verbs, gettext_noop(
        "the modifier %(modifier)s composes %(symbols)s, which is not one of the modifiers of "
        "Table 8.2"), modifier=repr(modifier))
    return verbs


def _filepath(segments: list[str]) -> str | None:
    if not segments or segments == [""]:
        return None
    path = unquote_word("/" + "/".join(segments))
    if any(unicodedata.category(c) in ("Cc", "Cs") for c in path):
        raise PersistentUrlError(gettext_noop("control character in the file path %(path)s"),
                                 path=repr(path))
    if "\\" in path:
        raise PersistentUrlError(gettext_noop("backslash in the file path %(path)s"),
                                 path=repr(path))
    parts = path[1:].split("/")
    if ".." in parts:
        raise PersistentUrlError(gettext_noop("'..' in the file path %(path)s"), path=repr(path))
    if "." in parts or "" in parts:
        raise PersistentUrlError(gettext_noop("empty or '.' segment in the file path %(path)s"),
                                 path=repr(path))
    return path


def _query_pairs(query: str) -> dict[str, str]:
    try:
        fields = parse_qsl(query, keep_blank_values=True, strict_parsing=True)
    except ValueError as error:
        raise PersistentUrlError(gettext_noop("malformed query %(query)s: Table 8.1 wants "
                                              "name=value pairs joined by '&'"),
                                 query=repr(query)) from error
    found: dict[str, str] = {}
    for name, value in fields:
        if name.startswith("ibiurl."):  # other pairs are for the item itself, not for us
            if name in found:
                raise PersistentUrlError(gettext_noop("%(name)s is given more than once"),
                                         name=name)
            found[name] = value
    return found


def _listed_verbs(verblist: str) -> list[str]:
    # Verbs are joined by "+"; form-decoding turns a raw "+" into a space, so take either.
    if verblist == "":
        return []
    verbs = []
    for text in re.split("[+ ]", verblist):
        match = _VERB.fullmatch(text)
        if not match:
            raise PersistentUrlError(gettext_noop("bad verb %(verb)s in ibiurl.verblist=%(list)s"),
                                     verb=repr(text), list=repr(verblist))
        verbs.append(_verb(*match.groups()))
    return verbs


def parse(path: str, query: str = "") -> PersistentUrl:
    """Read a persistent URL from its path (percent-encoded, as it arrived) and raw query string.

    ``path`` may also carry the query after a ``?``. The 2010 draft's trailing ``??`` (the query
    ``?``) asks for the metadata, like ``:``. The verb list is the modifier's verbs as written,
    then each ``ibiurl.verblist`` verb not already there (§8.2, Table 8.6)::

        >>> parse("/8JMKD3MGP8W/35MMLL8!:(oai_dc)").verbs
        ('GetLastEdition', 'GetMetadata(oai_dc)')
        >>> url = parse("/sid.inpe.br/mtc-m18@80/2009/02.16.17.46??")
        >>> url.ibi, url.verbs
        ('sid.inpe.br/mtc-m18@80/2009/02.16.17.46', ('GetMetadata',))

    Anything else raises `PersistentUrlError` saying what is wrong.
    """
    if "?" in path:
        if query:
            raise PersistentUrlError(gettext_noop(
                "the path contains '?' and a query was given as well"))
        path, _, query = path.partition("?")
    if not path.startswith("/"):
        raise PersistentUrlError(gettext_noop("a persistent URL path starts with '/', got "
                                              "%(path)s"), path=repr(path))
    legacy_metadata = query.startswith("?")
    query = query.removeprefix("?")

    ibi, modifier, rest = _split_ibi(path[1:].split("/"))
    verbs = _modifier_verbs(ibi, modifier)
    asked = _query_pairs(query)
    extra = (["GetMetadata"] if legacy_metadata else []) + _listed_verbs(
        asked.get("ibiurl.verblist", ""))
    for verb in extra:
        if verb not in verbs:
            verbs.append(verb)
    _check_composition(verbs, gettext_noop(
        "the verb list %(listed)s composes %(symbols)s, which is not one of the modifiers of "
        "Table 8.2"), listed=repr(" ".join(verbs)))

    status = asked.get("ibiurl.requireditemstatus")
    if status is not None:
        if status.lower() != "original":
            raise PersistentUrlError(gettext_noop(
                "ibiurl.requireditemstatus=%(status)s: only Original"), status=repr(status))
        status = "Original"
    return PersistentUrl(ibi, modifier, tuple(verbs), _filepath(rest), status)


def item_query(query: str) -> str:
    """The pairs of a persistent URL's query that are not the resolution system's, as written
    and in order: they are for the item itself (§8.1: "caso contrário, o par será ignorado por
    este sistema", to be "interpretados … pelo próprio item identificado"), so the redirect
    passes them on (`carried`)::

        >>> item_query("choice=oai_dc&ibiurl.verblist=GetMetadata&page=2")
        'choice=oai_dc&page=2'
        >>> item_query("?ibiurl.requireditemstatus=Original")    # the 2010 draft's "??"
        ''
    """
    fields = query.removeprefix("?").split("&")
    return "&".join(field for field in fields
                    if field and not unquote_plus(field.partition("=")[0]).startswith("ibiurl."))


def carried(url: str, pairs: str) -> str:
    """The URL with the item's pairs (`item_query`) added to its query, before any fragment::

        >>> carried("http://h/col/x/doc/metadata.cgi?choice=oai_dc#top", "page=2")
        'http://h/col/x/doc/metadata.cgi?choice=oai_dc&page=2#top'
    """
    if not pairs:
        return url
    base, hash_sign, fragment = url.partition("#")
    joiner = "&" if "?" in base else "?"
    return f"{base}{joiner}{pairs}{hash_sign}{fragment}"

