"""premis.xml in every bag (issue 38, 1): valid against the official PREMIS 3.0 schema, read
back by Artefactual's metsrw (its premisrw) with the same events, covered by the bag's tag
manifest, and restored by a rebuild from the bags."""
from __future__ import annotations

import io

import bagit as bagit_python
import pytest
from django.core.management import call_command
from lxml import etree
from metsrw.plugins import premisrw

from archive.models import PREMIS_EVENT_CODES, PremisEvent
from archive.preservation import bagit, events, formats
from tests import factories as make
from tests import xml_schemas
from tests.fake_archive import forget

pytestmark = pytest.mark.django_db

NS = {"premis": "http://www.loc.gov/premis/v3"}


@pytest.fixture
def item(librarian_api, librarian):
    """An item with a history: deposited through the API (a person), its formats identified
    (this software), a fixity check, an access change."""
    made = make.posted(librarian_api, ("tese.pdf", make.pdf("Tese")), ("dados.csv", b"a,b\n"),
                       title="Com história").json()
    from archive.models import Item

    item = Item.objects.get(ibi=made["ibi"])
    formats.identify(item.files.values_list("pk", flat=True))
    events.record(events.Type.FIXITY_CHECK, ibi=item.ibi, file="tese.pdf",
                  detail="SHA-256 …", agent=events.software())
    librarian_api.patch(f"/api/items/{item.ibi}", {"access": {"rights": "restricted",
                                                              "reason": "Patente"}},
                        format="json", secure=True)
    return item


def _exported(item, tmp_path):
    out = io.StringIO()
    call_command("exportbags", str(tmp_path), item.ibi, stdout=out)
    return bagit.bag_folder(tmp_path, item.ibi)


def test_every_bag_has_a_valid_premis_xml_with_every_event(item, tmp_path):
    folder = _exported(item, tmp_path)
    bag = bagit_python.Bag(str(folder))
    bag.validate()
    assert "premis.xml" in bag.tagfile_entries()  # the tag manifest covers it
    document = etree.parse(str(folder / "premis.xml"))
    xml_schemas.assert_valid(xml_schemas.premis(), document.getroot())
    held = list(events.of_item(item.ibi))
    assert len(held) >= 7
    written = document.findall("premis:event", NS)
    assert [e.findtext("premis:eventIdentifier/premis:eventIdentifierValue", namespaces=NS)
            for e in written] == [str(e.identifier) for e in held]
    for element, event in zip(written, held, strict=True):
        kind = element.find("premis:eventType", NS)
        assert kind.text == event.type
        assert kind.get("valueURI") == (
            "http://id.loc.gov/vocabulary/preservation/eventType/"
            + PREMIS_EVENT_CODES[event.type])
    # One object per file (IBI/name, its SHA-256, its PRONOM format), and the item itself.
    objects = {o.findtext("premis:objectIdentifier/premis:objectIdentifierValue",
                          namespaces=NS): o for o in document.findall("premis:object", NS)}
    assert set(objects) == {item.ibi, f"{item.ibi}/tese.pdf", f"{item.ibi}/dados.csv"}
    pdf = objects[f"{item.ibi}/tese.pdf"]
    row = item.files.get(name="tese.pdf")
    assert pdf.findtext(".//premis:messageDigest", namespaces=NS) == row.sha256
    assert pdf.findtext(".//premis:formatRegistryKey", namespaces=NS) == row.format_puid
    assert row.format_puid.startswith("fmt/")
    # Every agent an event names is described.
    agents = {a.findtext("premis:agentIdentifier/premis:agentIdentifierValue", namespaces=NS)
              for a in document.findall("premis:agent", NS)}
    assert agents == {e.agent.identifier for e in held}


def test_metsrw_reads_back_the_same_events(item, tmp_path):
    folder = _exported(item, tmp_path)
    root = etree.parse(str(folder / "premis.xml")).getroot()
    read = [premisrw.PREMISEvent(data=premisrw.premis_to_data(element))
            for element in root.findall("premis:event", NS)]
    held = list(events.of_item(item.ibi))
    assert len(read) == len(held)
    assert [(e.event_type, e.event_identifier_value) for e in read] == [
        (e.type, str(e.identifier)) for e in held]
    agents = [premisrw.PREMISAgent(data=premisrw.premis_to_data(element))
              for element in root.findall("premis:agent", NS)]
    assert {a.agent_identifier_value for a in agents} == {e.agent.identifier for e in held}
    objects = [premisrw.PREMISObject(data=premisrw.premis_to_data(element))
               for element in root.findall("premis:object", NS)
               if "file" in element.get("{http://www.w3.org/2001/XMLSchema-instance}type")]
    assert sorted(o.object_identifier_value for o in objects) == sorted(
        f"{item.ibi}/{name}" for name in ("tese.pdf", "dados.csv"))


def test_a_rebuild_restores_the_events(item, tmp_path):
    folder = _exported(item, tmp_path)
    held = [(str(e.identifier), e.type, e.at, e.file, e.agent.identifier, e.outcome, e.detail)
            for e in events.of_item(item.ibi)]
    forget(item)  # the database loses the item; its events stay (append-only): not doubled
    call_command("rebuild", str(tmp_path), stdout=io.StringIO())
    again = list(events.of_item(item.ibi))
    assert [(str(e.identifier), e.type, e.at, e.file, e.agent.identifier, e.outcome, e.detail)
            for e in again][:len(held)] == held
    assert again[-1].type == "ingestion" and "rebuilt from its bag" in again[-1].detail
    assert folder.is_dir()


@pytest.mark.django_db(transaction=True)
def test_a_rebuild_into_an_empty_database_restores_every_event(item, tmp_path):
    """A fresh instance (flushed: not one event) rebuilt from the bags has the item's events
    again, with their identifiers, times, agents, outcomes and details."""
    _exported(item, tmp_path)
    held = [(str(e.identifier), e.type, e.at, e.file, e.agent.kind, e.agent.identifier,
             e.agent.name, e.outcome, e.detail, e.outcome_detail)
            for e in events.of_item(item.ibi)]
    call_command("flush", interactive=False, verbosity=0)
    assert not PremisEvent.objects.exists()
    call_command("rebuild", str(tmp_path), stdout=io.StringIO())
    again = [(str(e.identifier), e.type, e.at, e.file, e.agent.kind, e.agent.identifier,
              e.agent.name, e.outcome, e.detail, e.outcome_detail)
             for e in events.of_item(item.ibi)]
    assert again[:-1] == held and again[-1][1] == "ingestion"
    # And the rebuilt bag's premis.xml is the one exported, with one event more.
    second = tmp_path / "again"
    call_command("exportbags", str(second), item.ibi, stdout=io.StringIO())
    root = etree.parse(str(bagit.bag_folder(second, item.ibi) / "premis.xml")).getroot()
    assert len(root.findall("premis:event", NS)) == len(held) + 1


def test_a_damaged_premis_xml_fails_its_bag(item, tmp_path):
    folder = _exported(item, tmp_path)
    (folder / "premis.xml").write_bytes(b"<premis/>")
    forget(item)
    report = bagit.rebuild(tmp_path)
    assert report.created == [] and list(report.failed) == [f"col/{item.ibi}"]
