"""A collection's profile read, as check.py and the edges read it."""
from __future__ import annotations

from ..models import DEFAULT_PROFILE, Collection, ProfileField, SubmissionProfile
from .check import Entry, Term


def profile_of(collection: Collection | None) -> SubmissionProfile | None:
    """The collection's profile, else the built-in default (None if even that is gone)."""
    if collection is not None and collection.profile_id is not None:
        return collection.profile
    return SubmissionProfile.objects.filter(slug=DEFAULT_PROFILE).first()


def entries_of(profile: SubmissionProfile | None) -> list[Entry]:
    """The profile's fields in order, each with its controlled list's terms (two queries)."""
    if profile is None:
        return []
    rows = list(ProfileField.objects.filter(profile=profile)
                .select_related("field__schema", "vocabulary")
                .prefetch_related("vocabulary__terms").order_by("position", "id"))
    return [Entry(
        name=row.field.name, language=row.language, required=row.required,
        repeatable=row.repeatable, input_type=row.input_type, authority=row.authority,
        terms=(tuple(Term(t.value, t.label_pt_br, t.label_en) for t in row.vocabulary.terms.all())
               if row.vocabulary is not None else None),
        label=row.label, help=row.help,
        vocabulary=row.vocabulary.slug if row.vocabulary is not None else "",
        position=row.position) for row in rows]
