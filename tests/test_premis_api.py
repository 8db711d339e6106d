"""An item's preservation events for librarians (issue 38, 1): GET /api/items/<ibi>/events
(in the OpenAPI schema, cursor-paginated; anonymous 401, a reader or the copying peer 403)
and the item's page in the admin, in pt-BR and English; POST /api/items/<ibi>/copies, where
the Archive copying with an account here tells of its Copy (a replication event)."""
from __future__ import annotations

import io
from datetime import datetime

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from archive.models import PremisEvent
from archive.preservation import events
from tests import factories as make

pytestmark = pytest.mark.django_db

URI = "http://id.loc.gov/vocabulary/preservation/eventType/"


def _events(api, ibi: str, **query):
    return api.get(f"/api/items/{ibi}/events", query, secure=True)


def test_librarians_read_the_events_with_their_agents(librarian_api, librarian):
    made = make.posted(librarian_api, ("a.pdf", b"%PDF a"), title="Eventos")
    ibi = made.json()["ibi"]
    librarian_api.patch(f"/api/items/{ibi}", {"title": "Eventos, de novo"}, format="json",
                        secure=True)
    answer = _events(librarian_api, ibi)
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert set(body) == {"next", "previous", "results"}
    rows = body["results"]
    assert [(r["type"], r["file"]) for r in rows] == [
        ("ingestion", ""), ("ingestion", "a.pdf"), ("metadata modification", "")]
    first = rows[0]
    assert set(first) == {"identifier", "type", "type_uri", "at", "file", "agent", "outcome",
                          "detail", "outcome_detail"}
    assert first["type_uri"] == URI + "ing" and rows[2]["type_uri"] == URI + "mem"
    assert first["agent"] == {"type": "person", "identifier_type": "local account",
                              "identifier": str(librarian.pk), "name": "librarian"}
    assert first["outcome"] == "success" and "deposit (new)" in first["detail"]
    at = datetime.fromisoformat(first["at"])
    assert first["at"].endswith("Z") and at.utcoffset().total_seconds() == 0
    assert rows[2]["detail"] == "changed: title"
    # The other form of the IBI names the same item; a page of one, and the next.
    paged = _events(librarian_api, made.json()["ibip"], page_size=1).json()
    assert len(paged["results"]) == 1 and paged["next"]
    second = librarian_api.get(paged["next"], secure=True).json()
    assert second["results"][0]["identifier"] == rows[1]["identifier"]


def test_the_events_are_the_librarians_only(librarian_api, anonymous_api):
    item = make.item()
    assert _events(anonymous_api, item.ibi).status_code == 401
    reader = make.token_client(User.objects.create_user("leitora", password="x"))
    assert _events(reader, item.ibi).status_code == 403
    # The account another Archive copies with reads records and files, not this history.
    peer_account = User.objects.create_user("peer", password="x")
    from django.contrib.auth.models import Permission

    peer_account.user_permissions.add(Permission.objects.get(codename="view_item"))
    assert _events(make.token_client(peer_account), item.ibi).status_code == 403
    assert _events(librarian_api, item.ibi).status_code == 200
    assert _events(librarian_api, "sid.inpe.br/nada/2099/01.01.00.00").status_code == 404


def _peer_api() -> APIClient:
    """The account another Archive copies with, as `manage.py createpeer` makes it."""
    from django.contrib.auth.models import Permission

    account = User.objects.create_user("archive-b")
    account.user_permissions.add(Permission.objects.get(codename="view_item"))
    return make.token_client(account)


OTHER_SERVICE = "sid.inpe.br/archive-b/2026/01.01.00.00"


def test_a_copy_told_by_the_copying_archive_is_its_replication_event(librarian_api):
    item = make.item()
    peer = _peer_api()
    made = peer.post(f"/api/items/{item.ibip}/copies", {"archive": OTHER_SERVICE},
                     format="json", secure=True)
    assert made.status_code == 201, made.content
    refreshed = peer.post(f"/api/items/{item.ibi}/copies",
                          {"archive": OTHER_SERVICE.upper(), "refreshed": True},
                          format="json", secure=True)
    assert refreshed.status_code == 201, refreshed.content
    rows = [r for r in _events(librarian_api, item.ibi).json()["results"]
            if r["type"] == "replication"]
    assert [r["identifier"] for r in rows] == [made.json()["identifier"],
                                              refreshed.json()["identifier"]]
    assert [r["detail"] for r in rows] == [
        f"Copy made at {OTHER_SERVICE}, as told by its account archive-b",
        f"Copy refreshed at {OTHER_SERVICE}, as told by its account archive-b"]
    assert {(r["agent"]["type"], r["agent"]["identifier_type"], r["agent"]["identifier"])
            for r in rows} == {("organization", "IBI", OTHER_SERVICE)}
    assert rows[0]["type_uri"] == URI + "rep" and rows[0]["file"] == ""


@pytest.mark.parametrize("body, status, said", [
    ({}, 400, "archive"),
    ({"archive": "not an ibi"}, 400, "not an IBI"),
    ({"archive": OTHER_SERVICE, "made": True}, 400, "unknown field made"),
    ({"archive": OTHER_SERVICE, "refreshed": "sometimes"}, 400, "refreshed"),
    ([OTHER_SERVICE], 400, ""),
])
def test_a_notice_of_nonsense_is_refused_and_records_nothing(body, status, said):
    item = make.item()
    before = PremisEvent.objects.count()
    answer = _peer_api().post(f"/api/items/{item.ibi}/copies", body, format="json", secure=True)
    assert answer.status_code == status, answer.content
    assert said in answer.content.decode()
    assert PremisEvent.objects.count() == before


def test_only_an_account_that_reads_every_item_tells_of_copies(anonymous_api):
    item = make.item()
    before = PremisEvent.objects.count()
    body = {"archive": OTHER_SERVICE}
    url = f"/api/items/{item.ibi}/copies"
    assert anonymous_api.post(url, body, format="json", secure=True).status_code == 401
    reader = make.token_client(User.objects.create_user("leitora", password="x"))
    assert reader.post(url, body, format="json", secure=True).status_code == 403
    assert PremisEvent.objects.count() == before
    unknown = _peer_api().post("/api/items/sid.inpe.br/nada/2099/01.01.00.00/copies", body,
                               format="json", secure=True)
    assert unknown.status_code == 404


def test_no_copy_is_recorded_of_a_copy_a_tombstone_or_by_this_archive(librarian_api):
    from archive.deposit import selectors

    peer = _peer_api()
    a_copy = make.as_copy(make.item())
    gone = make.item()
    librarian_api.delete(f"/api/items/{gone.ibi}", secure=True)
    before = PremisEvent.objects.count()
    for item in (a_copy, gone):
        answer = peer.post(f"/api/items/{item.ibi}/copies", {"archive": OTHER_SERVICE},
                           format="json", secure=True)
        assert answer.status_code == 409 and "not an Original held here" in answer.json()[
            "detail"]
    own = selectors.archive_service()
    answer = peer.post(f"/api/items/{make.item().ibi}/copies", {"archive": own.ibip},
                       format="json", secure=True)
    assert answer.status_code == 409 and "own archive service" in answer.json()["detail"]
    assert PremisEvent.objects.count() == before + 2  # the last item's deposit, no more


def test_an_account_speaks_for_one_archive_only(librarian_api):
    """The account's first notice binds it to the Archive it names; a notice naming another
    is refused (403) and records nothing. `createpeer --archive` binds it beforehand."""
    item = make.item()
    peer = _peer_api()
    url = f"/api/items/{item.ibi}/copies"
    assert peer.post(url, {"archive": OTHER_SERVICE}, format="json",
                     secure=True).status_code == 201
    before = PremisEvent.objects.count()
    other = "sid.inpe.br/archive-c/2026/01.01.00.00"
    refused = peer.post(url, {"archive": other}, format="json", secure=True)
    assert refused.status_code == 403, refused.content
    assert refused.json()["detail"] == (f"the account archive-b speaks for the Archive "
                                        f"{OTHER_SERVICE}, not for {other}")
    assert PremisEvent.objects.count() == before

    out = io.StringIO()
    call_command("createpeer", "archive-c", "--archive", other.upper(), stdout=out)
    token = out.getvalue().split()[-1]
    bound = APIClient()
    bound.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert bound.post(url, {"archive": OTHER_SERVICE}, format="json",
                      secure=True).status_code == 403
    assert bound.post(url, {"archive": other}, format="json", secure=True).status_code == 201
    with pytest.raises(CommandError, match="is not an IBI"):
        call_command("createpeer", "archive-d", "--archive", "nonsense", stdout=io.StringIO())
    assert not User.objects.filter(username="archive-d").exists()


def test_a_tombstones_events_stay_readable(librarian_api):
    item = make.item()
    librarian_api.delete(f"/api/items/{item.ibi}", secure=True)
    rows = _events(librarian_api, item.ibi).json()["results"]
    assert rows[-1]["type"] == "deletion" and rows[-1]["type_uri"] == URI + "del"


def test_the_schema_describes_the_route_exactly(librarian_api):
    schema = APIClient().get("/api/schema/", {"format": "json"}, secure=True).json()
    operation = schema["paths"]["/api/items/{ibi}/events"]["get"]
    assert set(operation["responses"]) >= {"200", "401", "403", "404"}
    assert {p["name"] for p in operation["parameters"]} >= {"ibi", "cursor", "page_size"}
    listed = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    page = schema["components"]["schemas"][listed.rsplit("/", 1)[1]]
    event = page["properties"]["results"]["items"]["$ref"].rsplit("/", 1)[1]
    fields = schema["components"]["schemas"][event]["properties"]
    assert set(fields) == {"identifier", "type", "type_uri", "at", "file", "agent", "outcome",
                           "detail", "outcome_detail"}
    agent_ref = (fields["agent"].get("allOf") or [fields["agent"]])[0]["$ref"]
    agent = schema["components"]["schemas"][agent_ref.rsplit("/", 1)[1]]
    assert set(agent["properties"]) == {"type", "identifier_type", "identifier", "name"}
    # And the list answered matches what the schema says of it.
    ibi = make.item().ibi
    row = _events(librarian_api, ibi).json()["results"][0]
    assert set(row) == set(fields) and set(row["agent"]) == set(agent["properties"])


@pytest.mark.parametrize("language, heading, kind, outcome", [
    ("pt-BR", "Eventos de preservação", "ingestão", "sucesso"),
    ("en", "Preservation events", "ingestion", "success")])
def test_the_item_page_shows_its_history_to_librarians(librarian_client, language, heading,
                                                       kind, outcome):
    item = make.item(("a.pdf", b"%PDF a"))
    events.record(events.Type.FIXITY_CHECK, ibi=item.ibi, file="a.pdf",
                  outcome=events.Outcome.FAILURE, detail="SHA-256 abc",
                  outcome_detail="changed: sha256 def")
    page = librarian_client.get(f"/admin/archive/item/{item.pk}/change/", secure=True,
                                HTTP_ACCEPT_LANGUAGE=language)
    text = page.content.decode()
    assert heading in text and kind in text and outcome in text
    assert 'class="outcome-failure"' in text and "changed: sha256 def" in text
    assert text.index("changed: sha256 def") < text.index("deposit (new)")  # newest first


def test_the_item_page_hides_the_history_without_the_permission(django_user_model):
    from django.contrib.auth.models import Permission
    from django.test import Client

    staff = django_user_model.objects.create_user("editor", password="x", is_staff=True)
    staff.user_permissions.add(*Permission.objects.filter(codename__in=["view_item",
                                                                        "change_item"]))
    client = Client()
    client.force_login(staff)
    item = make.item()
    page = client.get(f"/admin/archive/item/{item.pk}/change/", secure=True,
                      HTTP_ACCEPT_LANGUAGE="en")
    assert page.status_code == 200 and "Preservation events" not in page.content.decode()
    assert PremisEvent.objects.filter(ibi=item.ibi).exists()
