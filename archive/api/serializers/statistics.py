"""An item's access statistics as the API answers them (usage/selectors.py)."""
from __future__ import annotations

from rest_framework import serializers


class CountsSerializer(serializers.Serializer):
    downloads = serializers.IntegerField()
    acknowledgments = serializers.IntegerField()
    total = serializers.IntegerField()


class FamilySerializer(CountsSerializer):
    items = serializers.ListField(child=serializers.DictField(),
                                  help_text="each member: ibi, counts, edition or language")


class UniqueSerializer(serializers.Serializer):
    item = CountsSerializer()
    editions = CountsSerializer()
    translations = CountsSerializer()


class StatisticsSerializer(serializers.Serializer):
    item = CountsSerializer()
    editions = FamilySerializer()
    translations = FamilySerializer()
    unique = UniqueSerializer(help_text="COUNTER R5 Unique_Item_Requests: once per reader "
                              "session (client address, User-Agent, UTC hour)")
