"""PREMIS events are append-only (issue 38): the app has no path that changes or deletes one,
and the database refuses both, whatever asks; only a flush empties the table."""
from __future__ import annotations

import pytest
from django.core.management import call_command
from django.db import DatabaseError, connection, transaction
from django.db.models import ProtectedError

from archive.models import PremisAgent, PremisEvent
from archive.preservation import events
from tests import factories as make

pytestmark = pytest.mark.django_db


def test_an_event_names_its_item_file_agent_and_outcome(django_user_model):
    item = make.item("paper.pdf")
    librarian = django_user_model.objects.create(username="maria")
    event = events.record(events.Type.INGESTION, ibi=item.ibi, file="paper.pdf",
                          agent=events.person(librarian), detail="deposit through the admin")
    # (The deposit recorded its own events, by this software: tests/test_premis_coverage.py.)
    assert [(e.type, e.file, e.agent.kind, e.agent.identifier, e.agent.name, e.outcome)
            for e in events.of_item(item.ibi).filter(agent__kind="person")] == [
        ("ingestion", "paper.pdf", "person", str(librarian.pk), "maria", "success")]
    assert event.identifier and event.at.tzinfo is not None
    # The same agent is one row however often it acts.
    events.record(events.Type.FIXITY_CHECK, ibi=item.ibi, agent=events.software())
    events.record(events.Type.FIXITY_CHECK, ibi=item.ibi, agent=events.software())
    assert PremisAgent.objects.filter(kind="software").count() == 1
    assert events.software().name == f"ibirepo {events.software_version()}"


def test_the_app_has_no_way_to_change_or_delete_an_event():
    event = events.record(events.Type.DELETION, ibi="sid.inpe.br/x/2026/11.29.11.00",
                          agent=events.software())
    event.detail = "rewritten"
    with pytest.raises(TypeError):
        event.save()
    with pytest.raises(TypeError):
        event.delete()
    with pytest.raises(TypeError):
        PremisEvent.objects.filter(pk=event.pk).update(detail="rewritten")
    with pytest.raises(TypeError):
        PremisEvent.objects.filter(pk=event.pk).delete()
    with pytest.raises(ProtectedError):  # an agent with events stays
        event.agent.delete()


@pytest.mark.parametrize("sql", [
    "UPDATE archive_premisevent SET detail = 'rewritten'",
    "DELETE FROM archive_premisevent",
])
def test_the_database_refuses_a_change_or_deletion(sql):
    events.record(events.Type.DELETION, ibi="sid.inpe.br/x/2026/11.29.11.00",
                  agent=events.software(), detail="as it was")
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(sql)
    assert list(PremisEvent.objects.values_list("detail", flat=True)) == ["as it was"]


@pytest.mark.django_db(transaction=True)
def test_only_a_flush_empties_the_table():
    events.record(events.Type.INGESTION, ibi="sid.inpe.br/x/2026/11.29.11.01",
                  agent=events.software())
    with pytest.raises(DatabaseError), connection.cursor() as cursor:
        cursor.execute("DELETE FROM archive_premisevent")
    call_command("flush", interactive=False, verbosity=0)
    assert not PremisEvent.objects.exists()
