"""CNPq's Tabela de Áreas do Conhecimento: its codes and their check digit, and the whole
table shipped in data/cnpq-areas.tsv (the grand areas, their areas, sub-areas and
specialities, labels in Portuguese; in English for the grand areas). Pure: no Django.

A code is grand area, area, sub-area and speciality, then a check digit: the digits weighed
3 to 9 from the left, their sum modulo 11 (10 is written 0)::

    >>> check_digit("1.03.00.00")
    '7'
    >>> check_digit("4.01.00.00"), check_digit("7.00.00.00")
    ('6', '0')
    >>> is_code("1.00.00.00-3"), is_code("1.00.00.00-4"), is_code("1.3")
    (True, False, False)

Each code but a grand area's lies under the one its last non-zero pair is zeroed in::

    >>> parent("1.03.03.02-2"), parent("1.03.03.00-6"), parent("1.03.00.00-7")
    ('1.03.03.00-6', '1.03.00.00-7', '1.00.00.00-3')
    >>> parent("1.00.00.00-3") is None
    True
"""
from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import NamedTuple

DATA = Path(__file__).resolve().parent / "data" / "cnpq-areas.tsv"
_CODE = re.compile(r"([0-9])\.([0-9]{2})\.([0-9]{2})\.([0-9]{2})-([0-9])")


def check_digit(code: str) -> str:
    """The check digit of a code's first eight digits (`1.03.00.00`)."""
    digits = [int(c) for c in code.replace(".", "")[:7]]
    total = sum(weight * digit for weight, digit in zip(range(3, 10), digits, strict=True)) % 11
    return str(0 if total == 10 else total)


def is_code(text: str) -> bool:
    """Whether `text` is a code of the table's form with its check digit right."""
    found = _CODE.fullmatch(text.strip())
    return bool(found) and check_digit(text.strip()[:10]) == found.group(5)


def parent(code: str) -> str | None:
    """The code a code lies under (a speciality's sub-area, a sub-area's area, an area's
    grand area), with its check digit; None for a grand area."""
    pairs = code.strip()[:10].split(".")
    for level in (3, 2, 1):
        if pairs[level] != "00":
            head = ".".join([*pairs[:level], *["00"] * (4 - level)])
            return f"{head}-{check_digit(head)}"
    return None


class Area(NamedTuple):
    code: str
    label_pt_br: str
    label_en: str


@functools.cache
def table() -> tuple[Area, ...]:
    """The shipped table, in its order: by code, each code after the one it lies under."""
    rows = []
    for line in DATA.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            code, pt, en = (line.split("\t") + ["", ""])[:3]
            rows.append(Area(code.strip(), pt.strip(), en.strip()))
    return tuple(rows)
