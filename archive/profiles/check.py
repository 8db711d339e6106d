"""A deposit's or a change's values checked against a collection's profile: the one check the
admin's form and the API share (archive/deposit/services.py calls it for both). Pure: the
profile and the values come in as plain data.

    >>> title = Entry("dc.title.alternative", "en", required=False, repeatable=False)
    >>> author = Entry("dc.contributor.author", required=True, repeatable=False,
    ...                authority="lattes")
    >>> lattes = "4727357182510680"
    >>> check([title, author], {"dc.contributor.author": [Row("Silva, M.", "", lattes)]})
    >>> check([title, author], {"dc.subject": [Row("x")]})  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    ProfileRefusal: dc.subject is not a field of this collection's profile

What was stored before and is given again unchanged is not checked again (an import may have
stored a field the profile lacks); what is required is checked on the item as it would be.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from django.utils.translation import gettext as _

from ..refusals import Refusal

_LATTES = re.compile(r"[0-9]{16}")
_ORCID = re.compile(r"[0-9]{4}-[0-9]{4}-[0-9]{4}-[0-9]{3}[0-9X]")


class Row(NamedTuple):
    """A value as the check reads it: its text, language and authority id (cleaned)."""

    value: str
    language: str = ""
    authority: str = ""


@dataclass(frozen=True)
class Term:
    value: str
    label_pt_br: str = ""
    label_en: str = ""


@dataclass(frozen=True)
class Entry:
    """A field of a profile: the registry's field by name, its language ("" any or none)."""

    name: str
    language: str = ""
    required: bool = False
    repeatable: bool = True
    input_type: str = "text"
    authority: str = ""  # "", "lattes", "orcid", "lattes-orcid"
    terms: tuple[Term, ...] | None = None  # a controlled list's
    label: str = ""
    help: str = ""
    vocabulary: str = ""
    position: int = field(default=0, compare=False)

    @property
    def key(self) -> str:
        """dc.subject[pt-BR]; dc.subject for any language."""
        return f"{self.name}[{self.language}]" if self.language else self.name

    def term_of(self, value: str, authority: str = "") -> Term | None:
        """The term a controlled value names: by its value, or its label in either language
        (case aside). A label two terms share (CNPq's Gravimetria, in Chemistry and in
        Geophysics) names neither alone; with an authority id, the term of that value, if
        the value is its value or label."""
        folded = value.strip().casefold()
        terms = [t for t in self.terms or () if authority in ("", t.value)]
        for term in terms:
            if folded == term.value.casefold():
                return term
        named = [t for t in terms if folded in (t.label_pt_br.casefold(), t.label_en.casefold())]
        return named[0] if len(named) == 1 else None


class ProfileRefusal(Refusal):
    """A value the collection's profile refuses; `field` names the profile's field (or the
    value's field and language where the profile has none)."""

    def __init__(self, message: str, field: str) -> None:
        super().__init__(message)
        self.field = field


def entry_of(entries: Iterable[Entry], name: str, language: str) -> Entry | None:
    """The profile's entry a value of `name` in `language` belongs to: the one of that
    language, else the field's any-language one."""
    entries = [e for e in entries if e.name == name]
    exact = [e for e in entries if e.language and e.language.lower() == language.lower()]
    return (exact or [e for e in entries if not e.language] or [None])[0]


def _authority_ok(kind: str, authority: str) -> bool:
    if not authority or not kind:
        return True
    return ("lattes" in kind and bool(_LATTES.fullmatch(authority))
            or "orcid" in kind and bool(_ORCID.fullmatch(authority)))


def check(entries: list[Entry], given: Mapping[str, list[Row]],
          stored: Mapping[str, list[Row]] | None = None) -> None:
    """Refuse (ProfileRefusal, naming the field) what the profile does not allow in the item
    that `given` (field → all its values, replacing the stored ones) makes of `stored` (field
    → values, the item as it is; none for a deposit)."""
    stored = stored or {}
    for name, rows in given.items():
        kept = set(stored.get(name, ()))
        for row in rows:
            if row in kept:
                continue
            entry = entry_of(entries, name, row.language)
            if entry is None:
                shown = f"{name}[{row.language}]" if row.language else name
                raise ProfileRefusal(_("%(field)s is not a field of this collection's profile")
                                     % {"field": shown}, shown)
            _check_value(entry, row)
    result = {**stored, **given}
    for entry in entries:
        count = sum(1 for row in result.get(entry.name, ())
                    if entry_of(entries, entry.name, row.language) == entry)
        if entry.required and not count:
            raise ProfileRefusal(_("%(field)s is required in this collection") % {
                "field": entry.key}, entry.key)
        if count > 1 and not entry.repeatable and entry.name in given:
            raise ProfileRefusal(_("%(field)s takes one value, not %(count)d") % {
                "field": entry.key, "count": count}, entry.key)


def _check_value(entry: Entry, row: Row) -> None:
    if entry.terms is not None:
        if entry.term_of(row.value, row.authority) is None:
            raise ProfileRefusal(_("%(field)s: %(value)r is not in its list (%(vocabulary)s)")
                                 % {"field": entry.key, "value": row.value,
                                    "vocabulary": entry.vocabulary}, entry.key)
    if not _authority_ok(entry.authority, row.authority):
        kinds = {"lattes": _("a Lattes CV id"), "orcid": _("an ORCID iD"),
                 "lattes-orcid": _("a Lattes CV id or an ORCID iD")}
        raise ProfileRefusal(_("%(field)s: %(value)r is not %(kind)s") % {
            "field": entry.key, "value": row.authority, "kind": kinds[entry.authority]},
            entry.key)
