"""Migration of an Original: hand-over at the source (API), take-over at the target."""
from __future__ import annotations

import io

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from archive.deposit import services
from archive.models import Item
from archive.preservation import copies, migration
from tests import factories as make
from tests.fake_archive import FakeArchive, forget, publish

pytestmark = pytest.mark.django_db

SELF = "http://127.0.0.1:9"


@pytest.fixture(autouse=True)
def self_address(settings):
    settings.ARCHIVE_ADDRESS = "127.0.0.1:9"


@pytest.fixture
def peer(settings):
    archive = FakeArchive()
    settings.IBI_PEER_ARCHIVES = (archive.base_url,)  # an explicitly configured Archive
    yield archive
    archive.close()


@pytest.fixture
def original():
    return make.item(("report.pdf", b"%PDF report"), ("data.csv", b"1,2\n"), title="Report")


def copy_at(peer: FakeArchive, item: Item) -> dict:
    """The target's record of a complete, current Copy of item."""
    record, files = publish(APIClient(), item)
    record.update(state="Copy", source_archive=SELF)
    return peer.add(record, files)


def hand_over(api, item, target):
    return api.post(f"/api/items/{item.ibi}/handover", {"target": target}, format="json",
                    secure=True)


# -- At the Original's Archive ------------------------------------------------------------------

def test_the_original_becomes_a_copy_once_the_target_holds_it(peer, original, librarian_api):
    copy_at(peer, original)
    stamp = original.updated.replace(microsecond=0)
    response = hand_over(librarian_api, original, peer.base_url)
    assert response.status_code == 200, response.json()
    assert (response.json()["state"], response.json()["source_archive"]) == (
        "Copy", peer.base_url)
    original.refresh_from_db()
    assert (original.state, original.source_archive, original.origin_timestamp) == (
        "Copy", peer.base_url, stamp)
    # The timestamp the resolver sees does not move.
    assert response.json()["timestamp"] == stamp.strftime("%Y-%m-%dT%H:%M:%SZ")
    again = hand_over(librarian_api, original, peer.base_url + "/")
    assert again.status_code == 200 and again.json()["state"] == "Copy"


@pytest.mark.parametrize("spoil, message", [
    (lambda r: r["files"].pop(0), "not complete and current"),
    (lambda r: r.update(timestamp="2001-01-01T00:00:00Z"), "not complete and current"),
    (lambda r: r.update(state="Original"), "as Original, not as a Copy"),
])
def test_no_hand_over_to_an_incomplete_or_stale_copy(peer, original, librarian_api, spoil,
                                                     message):
    spoil(copy_at(peer, original))
    response = hand_over(librarian_api, original, peer.base_url)
    assert response.status_code == 409 and message in response.json()["detail"]
    original.refresh_from_db()
    assert original.state == "Original"


def test_a_non_transferable_original_stays(peer, original, librarian_api):
    services.item_update(item=original, transferable=False)
    copy_at(peer, original)
    response = hand_over(librarian_api, original, peer.base_url)
    assert response.status_code == 409 and "not transferable" in response.json()["detail"]


def test_the_archive_service_is_never_handed_over(peer, librarian_api):
    service = Item.objects.get(is_archive_service=True)
    assert hand_over(librarian_api, service, peer.base_url).status_code == 404
    with pytest.raises(copies.CopyRefused, match="not transferable"):
        migration.hand_over(item=service, target=peer.base_url)


def test_hand_over_needs_the_right_to_change_and_delete(peer, original):
    copy_at(peer, original)
    assert hand_over(APIClient(), original, peer.base_url).status_code == 401
    clerk = User.objects.create_user("clerk")
    api = APIClient()
    api.force_authenticate(clerk)
    assert hand_over(api, original, peer.base_url).status_code == 403


def test_an_unreachable_target_or_a_bad_url(original, librarian_api, settings):
    settings.IBI_PEER_ARCHIVES = ("http://127.0.0.1:1",)
    response = hand_over(librarian_api, original, "http://127.0.0.1:1")
    assert response.status_code == 502
    assert response.json()["detail"] == ("the target's copy could not be checked: item "
                                         f"{original.ibi}: http://127.0.0.1:1/api/items/"
                                         f"{original.ibi} is not reachable")
    assert hand_over(librarian_api, original, "not a url").status_code == 400
    response = hand_over(librarian_api, original, SELF)
    assert response.status_code == 409 and "to itself" in response.json()["detail"]


# -- At the target ---------------------------------------------------------------------------

@pytest.fixture
def held_at_peer(peer, original):
    record, files = publish(APIClient(), original)
    forget(original)
    return peer.add(record, files)


def test_the_target_copies_asks_and_becomes_the_original(peer, held_at_peer):
    held_at_peer["next_edition"] = "ibi.test/elsewhere/2030/01.01.00.00"  # a Copy remembers it
    result = migration.migrate_item(ibi=held_at_peer["ibi"], source=peer.base_url,
                                    token="right-token")
    assert result.outcome == "promoted"
    item = result.item
    # The Original keeps naming its next edition wherever it is held (#25, 1.).
    assert (item.state, item.source_archive, item.origin_relations) == (
        "Original", "", {".nextedition": "ibi.test/elsewhere/2030/01.01.00.00"})
    assert item.updated.strftime("%Y-%m-%dT%H:%M:%SZ") == held_at_peer["timestamp"]
    assert peer.handed_over == [{"target": SELF}]
    assert held_at_peer["state"] == "Copy"
    again = migration.migrate_item(ibi=held_at_peer["ibi"], source=peer.base_url,
                                   token="right-token")
    assert again.outcome == "unchanged" and len(peer.handed_over) == 1


def test_a_migrated_original_keeps_its_embargo_and_its_restricted_file(peer, librarian_api):
    """The access conditions travel with the Original (#26, 3): the embargo and its day, the
    reason, a restricted file; the peer's API, with the peer's token, is how the closed bytes
    came; here they are as closed as they were there."""
    from datetime import timedelta

    from django.utils import timezone

    until = timezone.localdate() + timedelta(days=40)
    item = make.item(("tese.pdf", b"%PDF tese"), ("dados.csv", b"1,2\n"), title="Tese",
                     access=services.Access("embargoed", until, "patente"))
    services.item_set_access(item=item, restricted_files=["dados.csv"])
    record, files = publish(librarian_api, item)  # the record a peer's token reads
    forget(item)
    peer.add(record, files)

    result = migration.migrate_item(ibi=record["ibi"], source=peer.base_url,
                                    token="right-token")

    moved = result.item
    assert (result.outcome, moved.access_rights, moved.embargo_until, moved.access_reason) == (
        "promoted", "embargoed", until, "patente")
    assert dict(moved.files.values_list("name", "restricted")) == {
        "tese.pdf": False, "dados.csv": True}
    assert APIClient().get(f"/col/{moved.ibi}/doc/tese.pdf").status_code == 403


def test_a_refused_hand_over_leaves_a_copy(peer, held_at_peer):
    with pytest.raises(copies.PeerFailed, match="401"):
        migration.migrate_item(ibi=held_at_peer["ibi"], source=peer.base_url, token="wrong")
    assert Item.objects.get(ibi=held_at_peer["ibi"]).state == "Copy"
    assert held_at_peer["state"] == "Original"


def test_an_interrupted_migration_is_finished_by_running_it_again(peer, held_at_peer):
    copies.copy_item(ibi=held_at_peer["ibi"], source=peer.base_url)
    # The source handed over, and the answer never reached us.
    held_at_peer.update(state="Copy", source_archive=SELF)
    assert Item.objects.get(ibi=held_at_peer["ibi"]).state == "Copy"
    result = migration.migrate_item(ibi=held_at_peer["ibi"], source=peer.base_url,
                                    token="right-token")
    assert result.outcome == "promoted" and result.item.state == "Original"


def test_migrateitem_command(peer, held_at_peer, monkeypatch):
    from django.core.management import CommandError, call_command

    with pytest.raises(CommandError, match="token"):
        call_command("migrateitem", held_at_peer["ibi"], "--from", peer.base_url)
    monkeypatch.setenv("IBI_PEER_TOKEN", "right-token")
    out = io.StringIO()
    call_command("migrateitem", held_at_peer["ibip"], "--from", peer.base_url, stdout=out)
    assert "the Original is here now" in out.getvalue()
