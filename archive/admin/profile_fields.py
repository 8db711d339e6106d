"""The item form's fields as the owning collection's submission profile names them: the
simple Dublin Core elements it has always had where the profile has dc.<element> in any
language, and a field of its own for every other entry (dc.contributor.advisor, the abstract
in Portuguese, CNPq's area…), each as its input type says: a line or several, a long text, a
date, a choice from its controlled list, a name and its authority id after a bar.

What each field is given as reaches the services as qualified values (registry/names.py
`Qualified`), which check them against the profile (profiles/check.py): the form only reads
the librarian's text."""
from __future__ import annotations

import re
from collections import Counter

from django import forms
from django.utils.translation import get_language

from ..deposit import services
from ..models import DC_ELEMENTS, Confidence, DcValue
from ..profiles.check import Entry, entry_of
from ..registry.names import Qualified

# A name's authority id after a bar: "Silva, Maria | 4727357182510680".
SEPARATOR = "|"


def plain_elements(entries: list[Entry]) -> list[str]:
    """The elements of simple Dublin Core the form's classic fields show: dc.<element> in
    any language, the field's one entry."""
    count = Counter(e.name for e in entries)
    return [e.name[3:] for e in entries if e.name.startswith("dc.") and not e.language
            and e.name[3:] in DC_ELEMENTS and count[e.name] == 1]


def own_entries(entries: list[Entry]) -> list[Entry]:
    """The entries that have a field of their own."""
    plain = {f"dc.{element}" for element in plain_elements(entries)}
    return [e for e in entries if e.name not in plain]


def field_name(entry: Entry) -> str:
    """md_dc_contributor_advisor; md_dc_subject_pt_br for dc.subject[pt-BR]."""
    return "md_" + re.sub(r"[^a-z0-9]+", "_", entry.key.lower()).strip("_")


def form_field(entry: Entry) -> forms.Field:
    """The form field of an entry, by its input type."""
    label = f"{entry.label} [{entry.language}]" if entry.language else entry.label
    common = {"label": label, "required": entry.required, "help_text": entry.help}
    lines = {"rows": 3 if entry.repeatable else 1, "cols": 60}
    if entry.input_type == "controlled" and entry.terms is not None:
        choices = [(t.value, _choice_label(t)) for t in entry.terms]
        if entry.repeatable:
            return forms.MultipleChoiceField(choices=choices, widget=forms.SelectMultiple(
                attrs={"size": 8}), **common)
        return forms.ChoiceField(choices=[("", "—"), *choices], **common)
    if entry.input_type == "textarea":
        return forms.CharField(widget=forms.Textarea(attrs={"rows": 6, "cols": 80}), **common)
    if entry.repeatable:
        return forms.CharField(widget=forms.Textarea(attrs=lines), **common)
    return forms.CharField(widget=forms.TextInput(attrs={"size": 60}), **common)


def _choice_label(term) -> str:
    pt = (get_language() or "").lower().startswith("pt")
    label = term.label_pt_br if pt else (term.label_en or term.label_pt_br)
    return f"{term.value} {label}" if any(c.isdigit() for c in term.value) else label


def form_fields(entries: list[Entry]) -> dict[str, forms.Field]:
    return {field_name(entry): form_field(entry) for entry in own_entries(entries)}


def _line(value: DcValue | Qualified) -> str:
    return f"{value.value} {SEPARATOR} {value.authority}" if value.authority else value.value


def initial(entries: list[Entry], stored: list[DcValue]) -> dict[str, object]:
    """Each own field's initial value from the item's stored values."""
    found: dict[str, object] = {}
    for entry in own_entries(entries):
        rows = [v for v in stored if v.field.name == entry.name
                and entry_of(entries, entry.name, v.language) == entry]
        if entry.input_type == "controlled" and entry.terms is not None:
            values = [(entry.term_of(v.authority) or entry.term_of(v.value)) for v in rows]
            chosen = [t.value for t in values if t is not None]
            found[field_name(entry)] = chosen if entry.repeatable else (chosen or [""])[0]
        elif entry.input_type == "authority":
            found[field_name(entry)] = "\n".join(_line(v) for v in rows)
        elif entry.input_type == "textarea" and not entry.repeatable:
            found[field_name(entry)] = "\n\n".join(v.value for v in rows)
        else:
            found[field_name(entry)] = "\n".join(v.value for v in rows)
    return found


def clean(entry: Entry, given, kept_dates=()) -> list[Qualified]:
    """The qualified values of what a field was given, or a ValidationError saying why."""
    language = entry.language
    if entry.input_type == "controlled" and entry.terms is not None:
        chosen = given if isinstance(given, list) else [given] if given else []
        terms = {t.value: t for t in entry.terms}
        return [Qualified(terms[value].label_pt_br, language, value, Confidence.ACCEPTED)
                for value in chosen if value in terms]
    # A browser sends a textarea's line breaks as CRLF (HTML's form encoding): kept as LF.
    text = (given or "").replace("\r\n", "\n").strip()
    if not text:
        return []
    if entry.input_type == "textarea" and not entry.repeatable:
        return [Qualified(text, language)]
    values = []
    for line in (text.splitlines() if entry.repeatable else [text]):
        line = line.strip()
        if not line:
            continue
        if entry.input_type == "authority":
            head, bar, tail = line.rpartition(SEPARATOR)
            name, authority = (head.strip(), tail.strip()) if bar else (line, "")
            try:
                authority = services.clean_authority(entry.key, authority)
            except services.ServiceError as exc:
                raise forms.ValidationError(str(exc)) from None
            values.append(Qualified(name, language, authority,
                                    Confidence.ACCEPTED if authority else Confidence.UNSET))
            continue
        if entry.input_type == "date" and line not in kept_dates:
            try:
                line = services.clean_date(line)
            except services.ServiceError as exc:
                raise forms.ValidationError(str(exc)) from None
        values.append(Qualified(line, language))
    return values


def kept(entries: list[Entry], stored: list[DcValue]
         ) -> list[tuple[str, Entry | None, Qualified]]:
    """The stored values of the own fields' registry fields that the form does not show (in
    a language no entry has; a controlled field's value not in its list, as an import wrote
    it), each with its field's name and entry (None: no entry): given back unchanged, so
    that saving the form loses none of them (the form drops one a single-valued field's new
    value replaces)."""
    names = {e.name for e in own_entries(entries)}
    found = []
    for v in stored:
        if v.field.name not in names:
            continue
        entry = entry_of(entries, v.field.name, v.language)
        unlisted = (entry is not None and entry.input_type == "controlled"
                    and entry.terms is not None
                    and entry.term_of(v.authority or v.value) is None
                    and entry.term_of(v.value) is None)
        if entry is None or unlisted:
            found.append((v.field.name, entry,
                          Qualified(v.value, v.language, v.authority, v.confidence)))
    return found
