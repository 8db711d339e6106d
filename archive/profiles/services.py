"""The built-in profiles and vocabularies put back where missing: migration 0035 made them; a
flush (tests) empties the tables, and post_migrate calls ensure_builtin (apps.py)."""
from __future__ import annotations

from collections.abc import Iterable

from django.db import connection, transaction

from ..models import MetadataField, ProfileField, SubmissionProfile, Vocabulary, VocabularyTerm
from . import builtin


@transaction.atomic
def ensure_builtin() -> None:
    """The built-in vocabularies and profiles, made where missing (two queries when there)."""
    if SubmissionProfile.objects.filter(slug__in=builtin.PROFILES).count() == len(
            builtin.PROFILES):
        return
    vocabularies = {}
    for slug, (pt, en, terms) in builtin.vocabularies().items():
        vocabulary, made = Vocabulary.objects.get_or_create(
            slug=slug, defaults={"name_pt_br": pt, "name_en": en})
        vocabularies[slug] = vocabulary
        if made:
            _insert_terms(vocabulary.pk, terms)
    fields = {f.name: f for f in MetadataField.objects.select_related("schema")}
    for slug, (pt, en, description, entries) in builtin.PROFILES.items():
        profile, made = SubmissionProfile.objects.get_or_create(
            slug=slug, defaults={"name_pt_br": pt, "name_en": en, "description": description})
        if not made:
            continue
        labels = builtin.LABELS.get(slug, {})
        ProfileField.objects.bulk_create(
            ProfileField(profile=profile, field=fields[name], language=language,
                         position=n, required=required, repeatable=repeatable,
                         input_type=input_type, vocabulary=vocabularies.get(vocabulary),
                         authority=authority, help_pt_br=help_pt, help_en=help_en,
                         label_pt_br=labels.get((name, language), ("", ""))[0],
                         label_en=labels.get((name, language), ("", ""))[1])
            for n, (name, language, required, repeatable, input_type, vocabulary, authority,
                    help_pt, help_en) in enumerate(entries))


def _insert_terms(vocabulary: int, terms: Iterable[tuple[str, str, str]]) -> None:
    """A vocabulary's terms in one statement run for all: the CNPq table's 1 290 terms cost
    a twentieth of what bulk_create's model instances and per-value SQL do (a test
    database's flush puts them back each time)."""
    meta = VocabularyTerm._meta
    quote = connection.ops.quote_name
    names = ("vocabulary", "value", "label_pt_br", "label_en", "position")
    columns = ", ".join(quote(meta.get_field(name).column) for name in names)
    with connection.cursor() as cursor:
        cursor.executemany(
            f"INSERT INTO {quote(meta.db_table)} ({columns}) VALUES (%s, %s, %s, %s, %s)",
            [(vocabulary, value, label_pt, label_en, n)
             for n, (value, label_pt, label_en) in enumerate(terms)])
