"""A collection's submission profile as the API reads it (/api/collections/<slug>/profile):
output only, from the entries archive/profiles/selectors.py reads."""
from __future__ import annotations

from rest_framework import serializers

from ...models import ProfileField


class TermSerializer(serializers.Serializer):
    value = serializers.CharField(help_text="what the field stores as its value or authority "
                                            "id, e.g. 1.03.00.00-7 or mestrado")
    label_pt_br = serializers.CharField()
    label_en = serializers.CharField(allow_blank=True)


class ProfileEntrySerializer(serializers.Serializer):
    """A field of the profile, in the profile's order."""

    field = serializers.CharField(source="name",
                                  help_text="schema.element.qualifier, e.g. dc.contributor.advisor")
    language = serializers.CharField(allow_blank=True,
                                     help_text="BCP 47 tag its values have; empty: any or none")
    label = serializers.CharField(help_text="the field's label in the request's language")
    required = serializers.BooleanField()
    repeatable = serializers.BooleanField()
    input_type = serializers.ChoiceField(choices=ProfileField.InputType.values)
    authority = serializers.ChoiceField(
        choices=ProfileField.Authority.values,
        help_text="with authority: what a value's authority id is; empty: none")
    help = serializers.CharField(allow_blank=True, help_text="in the request's language")
    vocabulary = serializers.CharField(allow_blank=True,
                                       help_text="slug of its controlled list; empty: none")
    terms = TermSerializer(many=True, allow_null=True,
                           help_text="a controlled list's terms; null: free text")


class ProfileSerializer(serializers.Serializer):
    """The submission profile a collection's items are checked against when deposited or
    changed through the API or the admin."""

    slug = serializers.CharField()
    name = serializers.CharField(help_text="in the request's language")
    collection = serializers.CharField(help_text="slug of the collection asked about")
    fields = ProfileEntrySerializer(many=True)
