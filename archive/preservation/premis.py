"""An item's preservation record as PREMIS 3.0 XML (premis.xml in its bag, bagit.py), and the
events read back from one (a rebuild restores them).

    <premis version="3.0">
      <object xsi:type="intellectualEntity">   the item, by its IBI
      <object xsi:type="file">                 one per file: IBI/name, SHA-256, size, format
      <event>                                  every event, oldest first, linked to its agent
                                               and to the file (or the item) it tells of
      <agent>                                  every agent the events name

Each object, event and agent says version="3.0" too, so that one read alone (as Artefactual's
metsrw premisrw reads them) knows its namespace. Event types carry their Library of Congress
URI (id.loc.gov/vocabulary/preservation/eventType/<code>).
"""
from __future__ import annotations

from datetime import datetime

from lxml import etree

from ..models import PREMIS_EVENT_CODES, Item, PremisAgent, PremisEvent
from . import events as event_service

NS = "http://www.loc.gov/premis/v3"
XSI = "http://www.w3.org/2001/XMLSchema-instance"
LOCATION = "http://www.loc.gov/standards/premis/v3/premis.xsd"
VERSION = "3.0"
EVENT_TYPES = "http://id.loc.gov/vocabulary/preservation/eventType"
EVENT_TYPE_URI = EVENT_TYPES + "/{code}"
ITEM_ID_TYPE = "IBI"  # the item: its IBI; a file: IBI/name
EVENT_ID_TYPE = "UUID"


def _el(parent, name: str, text: str | None = None, **attributes) -> etree._Element:
    element = etree.SubElement(parent, f"{{{NS}}}{name}", **attributes)
    if text is not None:
        element.text = text
    return element


def _identifier(parent, kind: str, id_type: str, value: str) -> None:
    holder = _el(parent, kind)
    prefix = kind[:-len("Identifier")] if kind.endswith("Identifier") else kind
    _el(holder, f"{prefix}IdentifierType", id_type)
    _el(holder, f"{prefix}IdentifierValue", value)


def object_id(ibi: str, file: str = "") -> str:
    """A PREMIS object's identifier: the item's IBI, or a file's IBI/name."""
    return f"{ibi}/{file}" if file else ibi


def document(item: Item) -> bytes:
    """The item's premis.xml."""
    found = list(event_service.of_item(item.ibi))
    root = etree.Element(f"{{{NS}}}premis", nsmap={"premis": NS, "xsi": XSI},
                         version=VERSION)
    root.set(f"{{{XSI}}}schemaLocation", f"{NS} {LOCATION}")
    by_object: dict[str, list[PremisEvent]] = {}
    for event in found:
        by_object.setdefault(event.file, []).append(event)
    entity = _el(root, "object", version=VERSION)
    entity.set(f"{{{XSI}}}type", "premis:intellectualEntity")
    _identifier(entity, "objectIdentifier", ITEM_ID_TYPE, item.ibi)
    _el(entity, "originalName", item.title)
    _linking_events(entity, by_object.get("", []))
    for row in item.files.order_by("name"):
        _file(root, item, row, by_object.get(row.name, []))
    for event in found:
        _event(root, event)
    agents = {event.agent_id: event.agent for event in found}
    for agent in sorted(agents.values(), key=lambda a: a.pk):
        _agent(root, agent)
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True)


def _linking_events(parent, linked: list[PremisEvent]) -> None:
    for event in linked:
        _identifier(parent, "linkingEventIdentifier", EVENT_ID_TYPE, str(event.identifier))


def _file(root, item: Item, row, linked: list[PremisEvent]) -> None:
    element = _el(root, "object", version=VERSION)
    element.set(f"{{{XSI}}}type", "premis:file")
    _identifier(element, "objectIdentifier", ITEM_ID_TYPE, object_id(item.ibi, row.name))
    characteristics = _el(element, "objectCharacteristics")
    _el(characteristics, "compositionLevel", "0")
    fixity = _el(characteristics, "fixity")
    _el(fixity, "messageDigestAlgorithm", "SHA-256")
    _el(fixity, "messageDigest", row.sha256)
    _el(characteristics, "size", str(row.size))
    format_ = _el(characteristics, "format")
    designation = _el(format_, "formatDesignation")
    _el(designation, "formatName", row.format_name or row.format_mime or row.content_type)
    if row.format_version:
        _el(designation, "formatVersion", row.format_version)
    if row.format_puid:
        registry = _el(format_, "formatRegistry")
        _el(registry, "formatRegistryName", "PRONOM")
        _el(registry, "formatRegistryKey", row.format_puid)
        _el(registry, "formatRegistryRole", "identification")
    _el(element, "originalName", row.name)
    relationship = _el(element, "relationship")
    _el(relationship, "relationshipType", "structural")
    _el(relationship, "relationshipSubType", "is included in")
    related = _el(relationship, "relatedObjectIdentifier")
    _el(related, "relatedObjectIdentifierType", ITEM_ID_TYPE)
    _el(related, "relatedObjectIdentifierValue", item.ibi)
    _linking_events(element, linked)


def _event(root, event: PremisEvent) -> None:
    element = _el(root, "event", version=VERSION)
    _identifier(element, "eventIdentifier", EVENT_ID_TYPE, str(event.identifier))
    _el(element, "eventType", event.type, authority="eventType",
        authorityURI=EVENT_TYPES, valueURI=EVENT_TYPE_URI.format(
            code=PREMIS_EVENT_CODES[event.type]))
    _el(element, "eventDateTime", event.at.isoformat())
    if event.detail:
        _el(_el(element, "eventDetailInformation"), "eventDetail", event.detail)
    outcome = _el(element, "eventOutcomeInformation")
    _el(outcome, "eventOutcome", event.outcome)
    if event.outcome_detail:
        _el(_el(outcome, "eventOutcomeDetail"), "eventOutcomeDetailNote", event.outcome_detail)
    agent = _el(element, "linkingAgentIdentifier")
    _el(agent, "linkingAgentIdentifierType", event.agent.identifier_type)
    _el(agent, "linkingAgentIdentifierValue", event.agent.identifier)
    _el(agent, "linkingAgentRole", "executing program"
        if event.agent.kind == PremisAgent.Kind.SOFTWARE else "implementer")
    # A file gone since (a Copy's refresh dropped it) is still the object its event names.
    linked = _el(element, "linkingObjectIdentifier")
    _el(linked, "linkingObjectIdentifierType", ITEM_ID_TYPE)
    _el(linked, "linkingObjectIdentifierValue", object_id(event.ibi, event.file))


def _agent(root, agent: PremisAgent) -> None:
    element = _el(root, "agent", version=VERSION)
    _identifier(element, "agentIdentifier", agent.identifier_type, agent.identifier)
    _el(element, "agentName", agent.name)
    _el(element, "agentType", agent.kind)
    if agent.kind == PremisAgent.Kind.SOFTWARE:
        _el(element, "agentVersion", agent.name.rpartition(" ")[2])


# -- Reading back -----------------------------------------------------------------------------

def _text(element, path: str) -> str:
    found = element.find(path, {"premis": NS})
    return (found.text or "") if found is not None else ""


def events_in(xml: bytes) -> list[dict]:
    """The events of a premis.xml this module wrote, with their agents, as `restore` takes
    them. ValueError when it is not one."""
    try:
        root = etree.fromstring(xml, parser=etree.XMLParser(resolve_entities=False,
                                                            no_network=True))
    except etree.XMLSyntaxError as exc:
        raise ValueError(f"premis.xml is not XML: {exc}") from None
    if root.tag != f"{{{NS}}}premis":
        raise ValueError("premis.xml is not a PREMIS 3 document")
    agents = {}
    for element in root.findall("premis:agent", {"premis": NS}):
        key = (_text(element, "premis:agentIdentifier/premis:agentIdentifierType"),
               _text(element, "premis:agentIdentifier/premis:agentIdentifierValue"))
        agents[key] = {"kind": _text(element, "premis:agentType"),
                       "name": _text(element, "premis:agentName")}
    found = []
    for element in root.findall("premis:event", {"premis": NS}):
        agent = (_text(element, "premis:linkingAgentIdentifier/"
                                "premis:linkingAgentIdentifierType"),
                 _text(element, "premis:linkingAgentIdentifier/"
                                "premis:linkingAgentIdentifierValue"))
        if agent not in agents:
            raise ValueError(f"premis.xml: an event names the agent {agent}, not described")
        found.append({
            "identifier": _text(element, "premis:eventIdentifier/premis:eventIdentifierValue"),
            "type": _text(element, "premis:eventType"),
            "at": datetime.fromisoformat(_text(element, "premis:eventDateTime")),
            "object": _text(element, "premis:linkingObjectIdentifier/"
                                     "premis:linkingObjectIdentifierValue"),
            "detail": _text(element, "premis:eventDetailInformation/premis:eventDetail"),
            "outcome": _text(element, "premis:eventOutcomeInformation/premis:eventOutcome"),
            "outcome_detail": _text(element, "premis:eventOutcomeInformation/"
                                             "premis:eventOutcomeDetail/"
                                             "premis:eventOutcomeDetailNote"),
            "agent": {"identifier_type": agent[0], "identifier": agent[1], **agents[agent]},
        })
    return found


def restore(item: Item, found: list[dict]) -> int:
    """The events read from an item's premis.xml recorded again (a rebuild), with their own
    identifiers and times, their agents found or made; those held already left alone. How
    many were restored. In the caller's transaction."""
    held = {str(u) for u in PremisEvent.objects.filter(ibi=item.ibi).values_list(
        "identifier", flat=True)}
    restored = 0
    for event in found:
        if event["identifier"] in held:
            continue
        if event["type"] not in PremisEvent.Type.values:
            raise ValueError(f"premis.xml: {event['type']!r} is not an event type of ours")
        if event["outcome"] not in PremisEvent.Outcome.values:
            raise ValueError(f"premis.xml: {event['outcome']!r} is not an outcome of ours")
        if event["agent"]["kind"] not in PremisAgent.Kind.values:
            raise ValueError(f"premis.xml: {event['agent']['kind']!r} is not an agent type")
        prefix = item.ibi + "/"
        file = event["object"][len(prefix):] if event["object"].startswith(prefix) else ""
        agent, _ = PremisAgent.objects.get_or_create(
            identifier_type=event["agent"]["identifier_type"],
            identifier=event["agent"]["identifier"],
            defaults={"kind": event["agent"]["kind"], "name": event["agent"]["name"][:255]})
        PremisEvent.objects.create(
            identifier=event["identifier"], type=event["type"], at=event["at"], ibi=item.ibi,
            file=file, agent=agent, outcome=event["outcome"], detail=event["detail"],
            outcome_detail=event["outcome_detail"])
        restored += 1
    return restored
