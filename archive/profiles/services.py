"""The built-in profiles and vocabularies put back where missing: migration 0035 made them; a
flush (tests) empties the tables, and post_migrate calls ensure_builtin (apps.py)."""
from __future__ import annotations

from django.db import transaction

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
            VocabularyTerm.objects.bulk_create(
                VocabularyTerm(vocabulary=vocabulary, value=value, label_pt_br=label_pt,
                               label_en=label_en, position=n)
                for n, (value, label_pt, label_en) in enumerate(terms))
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
