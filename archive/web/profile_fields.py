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
from typing import NamedTuple

from django import forms
from django.utils.html import format_html, format_html_join
from django.utils.translation import get_language

from ..deposit import services
from ..models import DC_ELEMENTS, Confidence, DcValue
from ..profiles.check import Entry, entry_of
from ..registry.names import Qualified

# A name's authority id after a bar: "Silva, Maria | 4727357182510680".
SEPARATOR = "|"

# A controlled list longer than this (CNPq's table: some 1 300 areas) is no select, whose
# options a librarian would scroll through, but text boxes offering its terms as one types
# (an HTML datalist: by code or by any word of the label).
LONG_LIST = 40
# The empty boxes a long list's repeatable field has after its values: another needs a save.
EMPTY_BOXES = 2


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
        if len(choices) > LONG_LIST:
            field = forms.MultipleChoiceField if entry.repeatable else forms.ChoiceField
            return field(choices=choices, widget=TermBoxes(entry.repeatable, label),
                         **common)
        if entry.repeatable:
            return forms.MultipleChoiceField(choices=choices, widget=forms.SelectMultiple(
                attrs={"size": 8}), **common)
        return forms.ChoiceField(choices=[("", "—"), *choices], **common)
    if entry.input_type == "textarea":
        return forms.CharField(widget=forms.Textarea(attrs={"rows": 6, "cols": 80}), **common)
    if entry.repeatable:
        return forms.CharField(widget=forms.Textarea(attrs=lines), **common)
    return forms.CharField(widget=forms.TextInput(attrs={"size": 60}), **common)


class TermBoxes(forms.Widget):
    """A long controlled list's text boxes: one per value (and EMPTY_BOXES more when the
    field is repeatable), each offering the list's terms as one types. A box takes a term's
    value (1.03.00.00-7), its value and label as offered ("1.03.00.00-7 Ciência da
    Computação") or its label alone, if no other term has it; anything else reaches the field
    as typed, which refuses it as a choice not in the list."""

    def __init__(self, multiple: bool, label: str = "", attrs=None):
        super().__init__(attrs)
        self.multiple, self.label = multiple, label
        self.choices: list[tuple[str, str]] = []

    def id_for_label(self, id_: str) -> str:
        return f"{id_}_0" if id_ else id_

    def value_from_datadict(self, data, files, name):
        given = [v.strip() for v in (data.getlist(name) if hasattr(data, "getlist")
                                     else [data.get(name, "")]) if v and v.strip()]
        found = [self._value_of(text) for text in given]
        return found if self.multiple else (found or [""])[0]

    def value_omitted_from_data(self, data, files, name) -> bool:
        return False  # no box sent is no value chosen, as an empty select multiple

    def _value_of(self, text: str) -> str:
        values = {str(value) for value, _label in self.choices}
        head = text.split(" ", 1)[0]
        if text in values or head in values:
            return text if text in values else head
        folded = text.casefold()
        named = [str(value) for value, label in self.choices
                 if folded in (str(label).casefold(), str(label).split(" ", 1)[-1].casefold())]
        return named[0] if len(named) == 1 else text  # a label two terms share names neither

    def render(self, name, value, attrs=None, renderer=None) -> str:
        attrs = self.build_attrs(self.attrs, attrs)
        base = attrs.pop("id", None) or f"id_{name}"
        values = ([str(v) for v in value or [] if v] if self.multiple
                  else [str(value)] if value else [])
        count = len(values) + EMPTY_BOXES if self.multiple else 1
        boxes = []
        for n, text in enumerate(values + [""] * (count - len(values))):
            box = {**attrs, "type": "text", "name": name, "value": text, "size": 60,
                   "id": f"{base}_{n}", "list": f"{base}-list", "autocomplete": "off"}
            if n:  # the first box is named by the field's <label>, and needs a value
                box.pop("required", None)
                box.pop("aria-required", None)
                if self.label:
                    box["aria-label"] = f"{self.label} ({n + 1})"
            boxes.append(format_html("<input{}>", forms.utils.flatatt(box)))
        options = format_html_join("", '<option value="{}">{}</option>', (
            (value, label_) for value, label_ in self.choices))
        boxes_html = format_html_join("", "<div>{}</div>", ((b,) for b in boxes))
        return format_html('<div class="ibi-term-boxes">{}</div><datalist id="{}-list">{}'
                           "</datalist>", boxes_html, base, options)


def _choice_label(term) -> str:
    pt = (get_language() or "").lower().startswith("pt")
    label = term.label_pt_br if pt else (term.label_en or term.label_pt_br)
    return f"{term.value} {label}" if any(c.isdigit() for c in term.value) else label


def form_fields(entries: list[Entry]) -> dict[str, forms.Field]:
    return {field_name(entry): form_field(entry) for entry in own_entries(entries)}


class Stored(NamedTuple):
    """A value as a form shows it: an item's DcValue, a submission's metadata row."""

    name: str
    value: str
    language: str = ""
    authority: str = ""


def _line(value: Stored | Qualified) -> str:
    return f"{value.value} {SEPARATOR} {value.authority}" if value.authority else value.value


def initial(entries: list[Entry], stored: list[DcValue]) -> dict[str, object]:
    """Each own field's initial value from the item's stored values."""
    return initial_of(own_entries(entries), entries, [
        Stored(v.field.name, v.value, v.language, v.authority) for v in stored])


def initial_of(shown: list[Entry], entries: list[Entry], stored: list[Stored]
               ) -> dict[str, object]:
    """The initial value of the field of each of `shown` (entries of the profile `entries`)
    from the values `stored`."""
    found: dict[str, object] = {}
    for entry in shown:
        rows = [v for v in stored if v.name == entry.name
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
