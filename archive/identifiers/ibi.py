"""The IBI generation standard (RTC-10, "System for IBI Generation"), in pure Python.

An IBI has two forms, both minted from the (hostname or IP, port) of the identification subsystem
and the date the temporal distributor (Algorithm 4) gives the item:

* the repository name (Algorithms 1-3), readable and lower case::

      >>> repository_name("mtc-m18.sid.inpe.br", 80, datetime(2009, 2, 16, 17, 46, tzinfo=UTC))
      'sid.inpe.br/mtc-m18/2009/02.16.17.46'

* the IBIp (Algorithms 5-7), opaque and upper case::

      >>> ibip("150.163.34.243", 800, 1234806360)
      '8JMKD3MGP8W/34PGRBS'

`parse` reads either form (any case, and the `@` port separator used before August 2010) into an
`Ibi` that compares equal to every other spelling of the same IBI.

Dates are POSIX seconds held exactly: `int`, `Decimal`, `Fraction` or an aware `datetime` in,
`Decimal` out. Binary floats are refused: 1287588115.3462 is not a float, and a suffix minted from
a rounded float would name another instant.

Decisions where the standard leaves room (each one is tested in tests/test_ibi.py):

* IBIp fraction coding. Algorithm 6 codes "the fraction" with CONVERTFROMDECIMAL, which takes an
  integer: the fraction digits read as an integer, so .5 and .05 would both code as W + code(5).
  We keep the standard's form exactly when the fraction has no leading zero (.25 -> W + code(25))
  and write one more W per leading zero (.05 -> WW + code(5), .005 -> WWW + code(5)). W never occurs
  inside a coded number and Table 7.1 (word = 1*ALPHANUM) allows it, so the IBIp stays injective
  and decodable. Fraction digits are always the shortest (no trailing zero).
* Only the canonical IBIp is accepted: no coded number starting with "2" (the zero digit), no
  explicit port 800, no fraction code ending in a zero digit. Each would be a second spelling of
  an IBIp, and IBIp equality is on the text.
* An IP text starting with "0" cannot be coded: the leading zero digit would vanish. IPv6 texts are
  coded lower case as given (the text is the number, so "::" shortening matters); an IPv6 text with
  a dotted IPv4 tail or a zone index has characters outside Table 7.5 and is refused.
* Hostnames: a trailing root dot is dropped when minting and ignored when comparing.
* INT in Algorithm 4 is the floor; it is the integer part for every POSIX date after 1970.
"""

from __future__ import annotations

import calendar
import functools
import ipaddress
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from fractions import Fraction
from math import floor

__all__ = [
    "IBIP_DIGITS", "IBIP_EPOCH", "IPV4_DIGITS", "IPV6_DIGITS", "Ibi", "IbiError",
    "TemporalDistributor", "convert_from_decimal", "convert_to_decimal", "decode_ibip",
    "fraction_digits", "ibip", "ibip_prefix", "ibip_suffix", "parse", "repository_name",
    "repository_prefix", "repository_suffix", "to_datetime", "to_decimal", "to_fraction",
    "validate_hostname", "validate_port",
]

IBIP_DIGITS = "23456789ABCDEFGHJKLMNPQRSTU"  # Table 7.6: 0 -> "2" ... 26 -> "U"
IPV4_DIGITS = "0123456789."  # Table 7.4
IPV6_DIGITS = "0123456789abcdef:"  # Table 7.5
IBIP_EPOCH = 807235200  # 1995-08-01T00:00:00Z, subtracted to keep IBIp suffixes short
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
When = int | Decimal | Fraction | datetime  # POSIX seconds, exact; datetimes must be aware
_CODE = f"[{IBIP_DIGITS}]+"
_MAX_LENGTH = 1000  # a hostname has at most 253 characters, the rest of a name is short
_WORD = re.compile(r"[a-z0-9](?:[a-z0-9-]*[a-z0-9])?")  # Table 6.1 word
_LAST_WORD = re.compile(r"[a-z](?:[a-z0-9-]*[a-z0-9])?")  # Table 6.1 last-word


def gettext_noop(message: str) -> str:
    """The message itself: marks it for the catalogue (makemessages finds the calls by this
    name), from which the edges translate it; this module stays free of Django."""
    return message


class IbiError(ValueError):
    """An input the standard cannot mint from, or a text that is not an IBI; says what is wrong.

    `message`: an English template with ``%(name)s`` placeholders, `params`: their values as
    the message shows them; str(error) is the English text, `translated(gettext)` a reader's."""

    def __init__(self, message: str, **params: str | IbiError) -> None:
        self.message, self.params = message, params
        super().__init__(message % {k: str(v) for k, v in params.items()})

    def translated(self, gettext) -> str:
        """The message in the reader's language (a nested IbiError's too)."""
        message = gettext(self.message)
        if not self.params:
            return message
        return message % {k: v.translated(gettext) if isinstance(v, IbiError) else v
                          for k, v in self.params.items()}


# -- Dates -------------------------------------------------------------------------------------

def to_fraction(when: When) -> Fraction:
    """POSIX seconds as an exact Fraction: `to_fraction(Decimal("1287588115.3462"))`."""
    if isinstance(when, float):
        raise IbiError(gettext_noop("float date %(when)s: give an int, Decimal, Fraction or "
                                    "aware datetime"), when=repr(when))
    if isinstance(when, datetime):
        if when.utcoffset() is None:
            raise IbiError(gettext_noop("naive datetime: give an aware UTC datetime"))
        delta = when - _EPOCH
        return Fraction(delta.days * 86400 + delta.seconds) + Fraction(delta.microseconds, 10**6)
    if isinstance(when, bool) or not isinstance(when, int | Decimal | Fraction):
        raise IbiError(gettext_noop("unsupported date %(when)s: give an int, Decimal, Fraction "
                                    "or datetime"), when=repr(when))
    try:
        return Fraction(when)
    except (ValueError, OverflowError) as exc:  # Decimal NaN or Infinity
        raise IbiError(gettext_noop("date %(when)s is not a finite number"),
                       when=repr(when)) from exc


def to_datetime(when: When) -> datetime:
    """The aware UTC datetime of a date, to the microsecond: 1234806360 -> 2009-02-16 17:46Z."""
    try:
        return _EPOCH + timedelta(microseconds=floor(to_fraction(when) * 10**6))
    except OverflowError as exc:
        raise IbiError(gettext_noop("date %(when)s is outside the years 1-9999"),
                       when=repr(when)) from exc


def fraction_digits(fraction: Fraction) -> str:
    """Shortest decimal digits of a fraction of a second in [0, 1): 1/4 -> "25", 0 -> ""."""
    if not 0 <= fraction < 1:
        raise IbiError(gettext_noop("fraction of a second %(fraction)s is not in [0, 1)"),
                       fraction=str(fraction))
    rest, twos, fives = fraction.denominator, 0, 0
    while rest % 2 == 0:
        rest, twos = rest // 2, twos + 1
    while rest % 5 == 0:
        rest, fives = rest // 5, fives + 1
    if rest != 1:
        raise IbiError(gettext_noop("fraction of a second %(fraction)s has no finite decimal "
                                    "expansion"), fraction=str(fraction))
    places = max(twos, fives)  # the least power of ten the denominator divides: no trailing zero
    if not places:
        return ""
    return str(fraction.numerator * 10**places // fraction.denominator).zfill(places)


def _split(when: When) -> tuple[int, str]:
    """Whole seconds (floor) and fraction digits: 1287588115.3462 -> (1287588115, "3462")."""
    value = to_fraction(when)
    seconds = floor(value)
    return seconds, fraction_digits(value - seconds)


def to_decimal(when: When) -> Decimal:
    """The exact Decimal of a date: Fraction(5149, 4) -> Decimal("1287.25"); 1/3 is refused."""
    value = to_fraction(when)
    seconds, digits = _split(abs(value))
    return Decimal(f"{'-' if value < 0 else ''}{seconds}{'.' if digits else ''}{digits}")


# -- Numbering systems (routines CONVERTTODECIMAL and CONVERTFROMDECIMAL) ----------------------

def convert_from_decimal(number: int, digits: str) -> str:
    """CONVERTFROMDECIMAL: `convert_from_decimal(19050, IBIP_DIGITS) == "U5H"` (Table 7.3)."""
    if number < 0:
        raise IbiError(gettext_noop("cannot code the negative number %(number)s"),
                       number=str(number))
    base, text = len(digits), ""
    while True:
        number, digit = divmod(number, base)
        text = digits[digit] + text
        if not number:
            return text


def convert_to_decimal(text: str, digits: str) -> int:
    """CONVERTTODECIMAL (Table 7.2): "150.163.2.174" with IPV4_DIGITS -> 4588904456580."""
    number = 0
    for char in text:
        if char not in digits:
            raise IbiError(gettext_noop("character %(char)s is not a digit of %(digits)s"),
                           char=repr(char), digits=repr(digits))
        number = number * len(digits) + digits.index(char)
    return number


# -- Repository names (Algorithms 1-3, Table 6.1) ---------------------------------------------

def validate_hostname(hostname: str) -> str:
    """The hostname, lower case, no root dot: "MTC-m18.sid.inpe.br." -> "mtc-m18.sid.inpe.br".

    Table 6.1: at least two labels (the prefix needs a subdomain), the last starting with a letter.
    """
    if not isinstance(hostname, str) or not hostname.isascii():
        raise IbiError(gettext_noop("hostname %(hostname)s is not an ASCII domain name"),
                       hostname=repr(hostname))
    name = hostname.lower().removesuffix(".")
    labels = name.split(".")
    if len(labels) < 2:
        raise IbiError(gettext_noop("hostname %(hostname)s has a single label: the prefix needs "
                                    "a subdomain"), hostname=repr(hostname))
    if len(name) > 253:
        raise IbiError(gettext_noop("hostname %(hostname)s is longer than 253 characters"),
                       hostname=repr(hostname))
    for label in labels:
        if not _WORD.fullmatch(label) or len(label) > 63:
            raise IbiError(gettext_noop("hostname %(hostname)s: %(label)s is not a DNS label "
                                        "(1-63 letters, digits or inner '-')"),
                           hostname=repr(hostname), label=repr(label))
    if not _LAST_WORD.fullmatch(labels[-1]):
        raise IbiError(gettext_noop("hostname %(hostname)s: last label %(labels_1)s must start "
                                    "with a letter"),
                       hostname=repr(hostname), labels_1=repr(labels[-1]))
    return name


def validate_port(port: int) -> int:
    """The port if it is an int in 1-65535."""
    if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
        raise IbiError(gettext_noop("port %(port)s is not an integer in 1-65535"), port=repr(port))
    return port


def repository_prefix(hostname: str, port: int) -> str:
    """Algorithm 1: split at the first dot; port 80 is left out. ("mtc-m18.sid.inpe.br", 8080) ->
    "sid.inpe.br/mtc-m18.8080"."""
    first_word, _, subdomain = validate_hostname(hostname).partition(".")
    if validate_port(port) == 80:
        return f"{subdomain}/{first_word}"
    return f"{subdomain}/{first_word}.{port}"


def repository_suffix(when: When) -> str:
    """Algorithm 2, in UTC: 1287588115.3462 -> "2010/10.20.15.21.55.3462", 1287588000 ->
    "2010/10.20.15.20" (seconds written only when not 00 or when a fraction follows)."""
    seconds, digits = _split(when)
    try:
        d = _EPOCH + timedelta(seconds=seconds)
    except OverflowError as exc:
        raise IbiError(gettext_noop("date %(when)s is outside the years 1-9999"),
                       when=repr(when)) from exc
    suffix = f"{d.year:04d}/{d.month:02d}.{d.day:02d}.{d.hour:02d}.{d.minute:02d}"
    if digits:
        return f"{suffix}.{d.second:02d}.{digits}"
    return f"{suffix}.{d.second:02d}" if d.second else suffix


def repository_name(hostname: str, port: int, when: When) -> str:
    """Algorithm 3: ("mtc-m18.sid.inpe.br", 80, 2009-02-16 17:46Z) ->
    "sid.inpe.br/mtc-m18/2009/02.16.17.46"."""
    return f"{repository_prefix(hostname, port)}/{repository_suffix(when)}"


# -- IBIp (Algorithms 5-7, Table 7.1) ---------------------------------------------------------

def _ip_text(ip: str | ipaddress.IPv4Address | ipaddress.IPv6Address) -> tuple[str, str, str]:
    """(text, digit table, separator) of an IP; Algorithm 5 line 5 tells IPv4 by its dot."""
    text = str(ip) if isinstance(ip, ipaddress.IPv4Address | ipaddress.IPv6Address) else ip
    if not isinstance(text, str):
        raise IbiError(gettext_noop("IP %(ip)s is not a string"), ip=repr(ip))
    if ":" in text and ("." in text or "%" in text):
        raise IbiError(gettext_noop("IPv6 %(text)s: a dotted IPv4 tail or a zone index cannot be "
                                    "coded"), text=repr(text))
    digits, separator = (IPV4_DIGITS, "W") if "." in text else (IPV6_DIGITS, "X")
    text = text.lower()  # IPv6's hex digits; an IPv4 text has no letter
    try:
        (ipaddress.IPv4Address if separator == "W" else ipaddress.IPv6Address)(text)
    except ValueError as exc:
        raise IbiError(gettext_noop("invalid IP address %(ip)s: %(exc)s"),
                       ip=repr(ip), exc=str(exc)) from exc
    if text.startswith("0"):
        raise IbiError(gettext_noop("IP text %(text)s starts with '0': the leading zero digit "
                                    "would vanish, so the IBIp could not be decoded back to it"),
                       text=repr(text))
    return text, digits, separator


def ibip_prefix(ip: str, port: int) -> str:
    """Algorithm 5: ("150.163.34.243", 800) -> "8JMKD3MGP8W" (port 800 is left out)."""
    text, digits, separator = _ip_text(ip)
    coded_port = "" if validate_port(port) == 800 else convert_from_decimal(port, IBIP_DIGITS)
    coded_ip = convert_from_decimal(convert_to_decimal(text, digits), IBIP_DIGITS)
    return coded_ip + separator + coded_port


def ibip_suffix(when: When) -> str:
    """Algorithm 6: 1234806360 -> "34PGRBS"; a fraction adds W + code, one more W per leading zero:
    1234806360.05 -> "34PGRBSWW7"."""
    seconds, digits = _split(when)
    if seconds < IBIP_EPOCH:
        raise IbiError(gettext_noop("date %(when)s is before 1995-08-01, the IBIp epoch"),
                       when=repr(when))
    suffix = convert_from_decimal(seconds - IBIP_EPOCH, IBIP_DIGITS)
    if digits:
        zeros = len(digits) - len(digits.lstrip("0"))
        suffix += "W" * (1 + zeros) + convert_from_decimal(int(digits), IBIP_DIGITS)
    return suffix


def ibip(ip: str, port: int, when: When) -> str:
    """Algorithm 7: ("150.163.34.243", 800, 1234806360) -> "8JMKD3MGP8W/34PGRBS"."""
    return f"{ibip_prefix(ip, port)}/{ibip_suffix(when)}"


def _number(code: str, what: str) -> int:
    if len(code) > 1 and code[0] == "2":  # a second spelling of the same number
        raise IbiError(gettext_noop("%(what)s code %(code)s starts with 2, the zero digit"),
                       what=str(what), code=repr(code))
    return convert_to_decimal(code, IBIP_DIGITS)


def _decode_ibip(text: str) -> tuple[str, int, Decimal]:
    upper = text.upper()
    for char in upper:
        if char in "01OIVYZ":
            kind = "digit" if char.isdigit() else "letter"
            raise IbiError(gettext_noop("%(kind)s %(char)s is not used in IBIp"),
                           kind=str(kind), char=str(char))
        if char not in IBIP_DIGITS + "WX/":
            raise IbiError(gettext_noop("character %(char)s is not allowed in an IBIp"),
                           char=repr(char))
    prefix, _, suffix = upper.partition("/")
    p = re.fullmatch(f"({_CODE})([WX])({_CODE})?", prefix)
    if not p:
        raise IbiError(gettext_noop("IBIp prefix %(prefix)s is not coded-IP, W (IPv4) or X "
                                    "(IPv6), coded-port"), prefix=repr(prefix))
    s = re.fullmatch(f"({_CODE})(?:(W+)({_CODE}))?", suffix)
    if not s:
        raise IbiError(gettext_noop("IBIp suffix %(suffix)s is not coded-seconds [W... "
                                    "coded-fraction]"), suffix=repr(suffix))
    version, digits = (4, IPV4_DIGITS) if p[2] == "W" else (6, IPV6_DIGITS)
    ip = convert_from_decimal(_number(p[1], "IP"), digits)
    try:
        valid = ipaddress.ip_address(ip).version == version  # a coded number has no leading 0
    except ValueError:
        valid = False
    if not valid:
        raise IbiError(gettext_noop("IBIp prefix %(prefix)s decodes to %(ip)s, not an "
                                    "IPv%(version)s address"),
                       prefix=repr(prefix), ip=repr(ip), version=str(version))
    port = 800 if p[3] is None else _number(p[3], "port")
    if p[3] is not None and port == 800:
        raise IbiError(gettext_noop("port 800 must be left out of an IBIp prefix"))
    if not 1 <= port <= 65535:
        raise IbiError(gettext_noop("IBIp port %(port)s out of range 1-65535"), port=str(port))
    date = Decimal(IBIP_EPOCH + _number(s[1], "seconds"))
    if s[2]:
        fraction = _number(s[3], "fraction")
        if fraction % 10 == 0:
            raise IbiError(gettext_noop("IBIp fraction %(fraction)s ends in a decimal zero (not "
                                        "the shortest)"), fraction=str(fraction))
        date = Decimal(f"{date}.{'0' * (len(s[2]) - 1)}{fraction}")
    return ip, port, date


def decode_ibip(text: str) -> tuple[str, int, Decimal]:
    """Inverse of `ibip`: "8JMKD3MGP8W/34PGRBS" -> ("150.163.34.243", 800, Decimal(1234806360))."""
    ibi = parse(text)
    if ibi.form != "ibip":
        raise IbiError(gettext_noop("%(text)s is a repository name, not an IBIp"), text=repr(text))
    return ibi.ip, ibi.port, ibi.date


# -- Parsing ----------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class Ibi:
    """A parsed IBI, equal (and hashing equal) to every other spelling of the same IBI:
    parse("sid.INPE.br/MTC-m18@80/2009/02.16.17.46") == parse("sid.inpe.br/mtc-m18/2009/…").

    A repository name and an IBIp are never equal: only a registry can relate them.
    """

    form: str  # "rep" or "ibip"
    text: str  # the canonical spelling: rep in lower case as spelled, IBIp in upper case
    prefix: str
    suffix: str
    port: int  # 80 when a repository name has none, 800 when an IBIp has none
    date: Decimal  # POSIX seconds, UTC, exact
    hostname: str | None = None  # rep only: first-word.subdomain, without a root dot
    ip: str | None = None  # ibip only

    @property
    def key(self) -> tuple:
        if self.form == "rep":
            return ("rep", self.hostname, self.port, self.date)
        return ("ibip", self.text)

    @property
    def subdomain(self) -> str | None:
        return self.hostname.partition(".")[2] if self.hostname else None

    @property
    def first_word(self) -> str | None:
        return self.hostname.partition(".")[0] if self.hostname else None

    def __eq__(self, other: object) -> bool:
        return self.key == other.key if isinstance(other, Ibi) else NotImplemented

    def __hash__(self) -> int:
        return hash(self.key)

    def __str__(self) -> str:
        return self.text


def _parse_rep(text: str) -> Ibi:
    subdomain, word_port, year, rest = text.lower().split("/")
    word, separator, port_text = re.fullmatch(r"([^.@]*)([.@]?)(.*)", word_port).groups()
    try:
        hostname = validate_hostname(f"{word}.{subdomain}")
    except IbiError as exc:
        raise IbiError(gettext_noop("prefix %(subdomain)s/%(word_port)s: %(exc)s"),
                       subdomain=str(subdomain), word_port=repr(word_port), exc=exc) from exc
    if separator and not port_text.isdigit():
        raise IbiError(gettext_noop("port %(port_text)s is not a number"),
                       port_text=repr(port_text))
    port = int(port_text) if separator else 80
    if not 1 <= port <= 65535:
        raise IbiError(gettext_noop("port %(port)s out of range 1-65535"), port=str(port))
    if not (len(year) == 4 and year.isdigit()):
        raise IbiError(gettext_noop("year %(year)s is not 4 digits"), year=repr(year))
    fields = rest.split(".")
    names = ("month", "day", "hour", "minute", "second")
    if not 4 <= len(fields) <= 6:
        raise IbiError(gettext_noop("%(rest)s is not MM.DD.hh.mm[.ss[.fraction]]"), rest=repr(rest))
    for name, field in zip(names, fields, strict=False):
        if not (len(field) == 2 and field.isdigit()):
            raise IbiError(gettext_noop("%(name)s %(field)s is not 2 digits"),
                           name=str(name), field=repr(field))
    if len(fields) == 6 and not fields[5].isdigit():
        raise IbiError(gettext_noop("fraction of a second %(fields_5)s is not digits"),
                       fields_5=repr(fields[5]))
    y, (mo, d, h, mi, s) = int(year), [int(f) for f in (fields + ["00"])[:5]]
    if y < 1:
        raise IbiError(gettext_noop("year 0000 out of range"))
    if not 1 <= mo <= 12:
        raise IbiError(gettext_noop("month %(mo)s out of range"), mo=str(mo))
    if not 1 <= d <= calendar.monthrange(y, mo)[1]:
        raise IbiError(gettext_noop("day %(d)s out of range for %(year)s-%(mo)s"),
                       d=str(d), year=str(year), mo=format(mo, '02d'))
    for name, value, top in (("hour", h, 23), ("minute", mi, 59), ("second", s, 59)):
        if value > top:
            raise IbiError(gettext_noop("%(name)s %(value)s out of range"),
                           name=str(name), value=str(value))
    seconds = calendar.timegm((y, mo, d, h, mi, s))
    fraction = Fraction(int(fields[5]), 10 ** len(fields[5])) if len(fields) == 6 else 0
    return Ibi(form="rep", text=text.lower(), prefix=f"{subdomain}/{word_port}",
               suffix=f"{year}/{rest}", port=port, date=to_decimal(seconds + fraction),
               hostname=hostname)


def parse(text: str) -> Ibi:
    """Read a repository name or an IBIp, in any case; the text must be exactly the IBI.

    `parse("8jmkd3mgp8w/34pgrbs").ip == "150.163.34.243"`
    """
    if not isinstance(text, str):
        raise TypeError(f"an IBI is a str, not {type(text).__name__}")
    return _parse(text)


def canonical(text: str) -> str:
    """The one spelling this app writes an IBI in (IbiError for what is no IBI): a repository
    name in lower case, an IBIp in upper case.

    `canonical("8jmkd3mgp7w/3epgue5") == "8JMKD3MGP7W/3EPGUE5"`
    """
    return parse(text).text


def same(a: str, b: str) -> bool:
    """Whether two texts are spellings of one IBI (any case, the legacy ``@`` port, an explicit
    port 80); False when either is no IBI. A repository name and an IBIp are never the same."""
    try:
        return parse(a) == parse(b)
    except (ValueError, TypeError):
        return False


@functools.lru_cache(maxsize=4096)  # a pure function of the text; the same IBIs are asked often
def _parse(text: str) -> Ibi:
    if not text:
        raise IbiError(gettext_noop("empty IBI"))
    if len(text) > _MAX_LENGTH:  # refused before any big-number arithmetic on its digits
        raise IbiError(gettext_noop("text of %(len_text)s characters is too long for an IBI"),
                       len_text=str(len(text)))
    if text != text.strip():
        raise IbiError(gettext_noop("surrounding whitespace is not accepted in %(text)s"),
                       text=repr(text))
    if not text.isascii():  # str.lower() maps some non-ASCII letters (K, the Kelvin sign) to ASCII
        raise IbiError(gettext_noop("non-ASCII character in %(text)s"), text=repr(text))
    slashes = text.count("/")
    if slashes == 0:
        raise IbiError(gettext_noop("missing '/' in %(text)s"), text=repr(text))
    if slashes == 3:
        return _parse_rep(text)
    if slashes > 3:
        raise IbiError(gettext_noop("too many '/' in %(text)s"), text=repr(text))
    if slashes == 2 or re.search(r"[.@-]", text):
        raise IbiError(gettext_noop("missing '/' in %(text)s: a repository name is "
                                    "subdomain/word[.port]/year/MM.DD.hh.mm[.ss[.fraction]]"),
                       text=repr(text))
    ip, port, date = _decode_ibip(text)
    prefix, _, suffix = text.upper().partition("/")
    return Ibi(form="ibip", text=text.upper(), prefix=prefix, suffix=suffix, port=port,
               date=date, ip=ip)


# -- Temporal distributor (Algorithm 4, Table 6.2) --------------------------------------------

def _granularity(value: int | str | Decimal | Fraction) -> Fraction:
    try:
        r = Fraction(value) if isinstance(value, str) else to_fraction(value)
    except IbiError:
        raise  # a float: say so
    except ValueError:
        r = None
    power_of_ten = r is not None and r.numerator == 1 and str(r.denominator).rstrip("0") == "1"
    if isinstance(value, datetime) or not (r == 60 or power_of_ten):
        raise IbiError(gettext_noop("granularity %(value)s is not 60 or 10**-k (1, 0.1, 0.01, "
                                    "...)"), value=repr(value))
    return r


class TemporalDistributor:
    """Algorithm 4: spreads the items of one identification subsystem on a grid of r seconds.

    `create(current)` returns (date_for_suffix, creation_date). It never sleeps: the caller waits
    until creation_date (lines 6-7) and serves one request at a time per subsystem (the standard's
    waiting room). `.last` is last-date-for-suffix; persist it and set it back before the next
    `create()`. With r = 1, Table 6.2: 1287588012.2930 after 1287587646 -> (1287588000, 1287588012),
    so the suffix is 2010/10.20.15.20.
    """

    def __init__(self, granularity: int | str | Decimal | Fraction = 1,
                 last: When | None = None) -> None:
        self.granularity = granularity
        self.last = last

    @property
    def granularity(self) -> Decimal:
        return to_decimal(self._r)

    @granularity.setter
    def granularity(self, value: int | str | Decimal | Fraction) -> None:
        self._r = _granularity(value)

    def create(self, current_date: When) -> tuple[Decimal, Decimal]:
        r, current = self._r, to_fraction(current_date)
        rounded = r * floor(current / r)  # line 1
        last = rounded - r if self.last is None else to_fraction(self.last)  # lines 2-3
        last = r * floor(last / r)  # line 4: r may have changed since the last call
        creation = max(last + r, rounded)  # line 5; lines 6-7 (WAIT) are the caller's
        short, s = creation, r  # lines 8-9
        while last < short:  # line 10: coarsen while the shorter date stays after last
            s *= 10
            if s == 10:  # line 12: from seconds the next step is the minute
                s = Fraction(60)
            t = short
            if s > 60:
                break
            short = s * floor(creation / s)
        self.last = to_decimal(t)  # lines 16-17
        return self.last, to_decimal(creation)
