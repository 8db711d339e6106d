"""An item's preservation events (PREMIS 3), as /api/items/<ibi>/events answers them."""
from __future__ import annotations

from datetime import UTC

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from ...models import PREMIS_EVENT_CODES, PremisAgent, PremisEvent
from ...preservation.premis import EVENT_TYPE_URI


class AgentSerializer(serializers.ModelSerializer):
    """Who acted: a person's account, this software at a version, or another Archive."""

    type = serializers.ChoiceField(source="kind", choices=PremisAgent.Kind.choices,
                                   help_text="PREMIS agentType")

    class Meta:
        model = PremisAgent
        fields = ["type", "identifier_type", "identifier", "name"]


class EventSerializer(serializers.ModelSerializer):
    """One event: its Library of Congress type (and the type's URI), when (UTC), the file it
    tells of ("" for the item itself), its agent, outcome and detail."""

    type_uri = serializers.SerializerMethodField(
        help_text="the type in the Library of Congress vocabulary "
                  "(http://id.loc.gov/vocabulary/preservation/eventType/<code>)")
    at = serializers.DateTimeField(default_timezone=UTC)
    agent = AgentSerializer()

    class Meta:
        model = PremisEvent
        fields = ["identifier", "type", "type_uri", "at", "file", "agent", "outcome", "detail",
                  "outcome_detail"]

    @extend_schema_field(serializers.URLField())
    def get_type_uri(self, event: PremisEvent) -> str:
        return EVENT_TYPE_URI.format(code=PREMIS_EVENT_CODES[event.type])
