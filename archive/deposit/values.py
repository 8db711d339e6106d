"""What a deposit's date may be, checked alike for the admin, the API and `importitems`
(services.clean_date; a language is checked by models.validate_language), and how JSON from
outside is read (`read_json`, `json_depth`: API bodies, deposit fields, a peer's answers, bags,
import files). Pure: no Django.

A date is ISO 8601 as EDTF level 0 reads it (the Library of Congress' Extended Date/Time
Format, parsed by the `edtf` package): a year, a month, a day, a date and time, or an interval
of two of them, its start not after its end::

    >>> [is_date(v) for v in ("2013", "2013-09", "2013-09-04", "2013/2014", "2013-09/2014")]
    [True, True, True, True, True]
    >>> [is_date(v) for v in ("2013-02-30", "04/09/2013", "setembro de 2013", "2014/2013")]
    [False, False, False, False]
"""
from __future__ import annotations

import functools
import json
import re
from datetime import date

DATE_EXAMPLES = "2013, 2013-09, 2013-09-04, 2013/2014"
# The forms nearly every date takes, decided without the grammar (which costs tens of
# milliseconds a date: a collection's import would spend most of its time there).
_CALENDAR = re.compile(r"([0-9]{4})(?:-([0-9]{2})(?:-([0-9]{2}))?)?")
# Arrays and objects inside one another: nothing this repository reads nests deeper than 3.
MAX_JSON_DEPTH = 32


def is_date(value: str) -> bool:
    """Whether `value` is an EDTF level 0 date (ISO 8601's calendar dates and intervals)."""
    text = value.strip()
    if not text or text != value:
        return False
    simple = _CALENDAR.fullmatch(text)
    if simple and simple.group(1) != "0000":  # year 0000 is EDTF's, not Python's: the grammar
        year, month, day = simple.groups()
        try:
            date(int(year), int(month or 1), int(day or 1))
        except ValueError:
            return False
        return True
    return _is_edtf_level0(text)


@functools.lru_cache(maxsize=4096)
def _is_edtf_level0(text: str) -> bool:
    # The EDTF grammar (pyparsing) is imported at the first date that is not a plain calendar
    # date: building it costs every process a tenth of a second at start otherwise.
    from edtf import parse_edtf
    from edtf.parser.edtf_exceptions import EDTFParseException
    from edtf.parser.parser_classes import Date, DateAndTime, Interval

    try:
        parsed = parse_edtf(text)
    except (EDTFParseException, ValueError, TypeError):
        return False
    # Level 0 only: the parser also reads level 1 and 2 (seasons, "2013?", "../2013"), which
    # DataCite, OAI-PMH and citation styles read as no date at all.
    if type(parsed) in (Date, DateAndTime):
        return True
    if type(parsed) is Interval:
        return parsed.lower.lower_strict() <= parsed.upper.upper_strict()
    return False


class TooDeep(ValueError):
    """JSON nested deeper than MAX_JSON_DEPTH."""

    def __init__(self) -> None:
        super().__init__(f"JSON nested deeper than {MAX_JSON_DEPTH} levels")


def json_depth(value: object) -> int:
    """How deep arrays and objects nest in a parsed JSON value, counted without recursion.

    >>> json_depth("x"), json_depth([]), json_depth({"a": [1, {"b": []}]})
    (0, 1, 4)
    """
    deepest, stack = 0, [(value, 1)]
    while stack:
        current, level = stack.pop()
        children = (current.values() if isinstance(current, dict)
                    else current if isinstance(current, list) else None)
        if children is None:
            continue
        deepest = max(deepest, level)
        if level > MAX_JSON_DEPTH:
            break  # deep enough to refuse: the rest need not be walked
        stack.extend((child, level + 1) for child in children)
    return deepest


def read_json(text: str | bytes) -> object:
    """JSON text as a value, or ValueError: not JSON, or nested deeper than MAX_JSON_DEPTH
    (`TooDeep`). Python's parser recurses once per level, so a thousand levels would be a
    RecursionError, which is no ValueError; what does parse must not be that deep either, or
    the first recursive walk over it (an encoder, a validator) fails instead.

    >>> read_json('{"title": "T"}')
    {'title': 'T'}
    >>> read_json("[" * 100_000 + "]" * 100_000)
    Traceback (most recent call last):
    ...
    archive.deposit.values.TooDeep: JSON nested deeper than 32 levels
    """
    try:
        value = json.loads(text)
    except RecursionError:
        raise TooDeep from None
    if json_depth(value) > MAX_JSON_DEPTH:
        raise TooDeep
    return value
