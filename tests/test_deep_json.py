"""JSON nested a thousand levels deep (issue #30, 2): Python's parser recurses once per level
and raised RecursionError, which is no ValueError, so it was a 500. Wherever JSON is read it is
now refused like any unreadable JSON: 400 for a client's body or field, 502 for another
Archive's answer, an error line for an import file."""
from __future__ import annotations

import io

import pytest
from rest_framework.test import APIClient

from archive.models import Item
from archive.preservation import copies, migration
from tests import factories as make
from tests.fake_archive import FakeArchive, forget, publish

pytestmark = pytest.mark.django_db

DEEP = "[" * 100_000 + "]" * 100_000  # past any recursion limit
PARSED = "[" * 500 + "]" * 500  # parses, far deeper than anything the API reads
REFUSED = {"detail": "JSON parse error - arrays and objects nested deeper than 32 levels"}


@pytest.fixture
def report():
    return make.item(("report.pdf", b"%PDF report"), title="Report")


@pytest.mark.parametrize("body", [DEEP, PARSED, '{"title": ' + PARSED + "}"])
@pytest.mark.parametrize("method", ["patch", "delete"])
def test_a_deep_body_is_a_400(librarian_api, report, method, body):
    response = getattr(librarian_api, method)(
        f"/api/items/{report.ibi}", body, content_type="application/json", secure=True,
        headers={"Idempotency-Key": f"deep-{method}-{len(body)}"})
    assert (response.status_code, response.json()) == (400, REFUSED)
    report.refresh_from_db()
    assert (report.title, report.state) == ("Report", "Original")


def test_a_deposit_whose_access_is_deep_json_is_a_400(librarian_api):
    response = make.posted(librarian_api, title="Deep access",
                           access='{"rights": ' + "[" * 5_000 + "]" * 5_000 + "}")
    assert response.status_code == 400 and list(response.json()) == ["access"]
    assert not Item.objects.filter(title="Deep access").exists()


def test_a_deposit_whose_creator_is_a_deep_object_is_a_400(librarian_api):
    creator = '{"name": ' + "[" * 5_000 + "]" * 5_000 + "}"
    response = make.posted(librarian_api, title="Deep creator", creator=creator)
    assert response.status_code == 400
    assert response.json() == {"creator": [
        'a creator that starts with { must be a JSON object {"name", "orcid"}']}
    assert not Item.objects.filter(title="Deep creator").exists()


@pytest.fixture
def peer(settings):
    archive = FakeArchive()
    settings.IBI_PEER_ARCHIVES = (archive.base_url,)
    settings.ARCHIVE_ADDRESS = "127.0.0.1:9"
    yield archive
    archive.close()


def test_a_peers_deep_record_fails_the_copy_as_a_peer_failure(peer, report):
    record, files = publish(APIClient(), report)
    forget(report)
    peer.add(record, files)
    peer.raw_answer = DEEP.encode()
    with pytest.raises(copies.PeerFailed) as failed:
        copies.copy_item(ibi=record["ibi"], source=peer.base_url)
    assert str(failed.value) == (
        f"item {record['ibi']}: {peer.base_url}/api/items/{record['ibi']} answered JSON "
        "nested deeper than 32 levels")
    assert not Item.objects.filter(ibi=record["ibi"]).exists()


def test_a_hand_over_whose_target_answers_deep_json_is_a_502(peer, report, librarian_api):
    peer.raw_answer = DEEP.encode()
    response = librarian_api.post(f"/api/items/{report.ibi}/handover",
                                  {"target": peer.base_url}, format="json", secure=True)
    assert response.status_code == 502
    assert response.json()["detail"].endswith("answered JSON nested deeper than 32 levels")
    report.refresh_from_db()
    assert report.state == "Original"


def test_a_hand_over_answered_with_deep_json_leaves_the_copy(peer, report):
    record, files = publish(APIClient(), report)
    forget(report)
    peer.add(record, files)
    copies.copy_item(ibi=record["ibi"], source=peer.base_url)
    peer.raw_answer = PARSED.encode()
    with pytest.raises(copies.PeerFailed, match="nested deeper than 32 levels"):
        migration.migrate_item(ibi=record["ibi"], source=peer.base_url, token="right-token")
    assert Item.objects.get(ibi=record["ibi"]).state == "Copy"


def test_an_import_folder_with_deep_metadata_fails_that_item_only(tmp_path):
    from django.core.management import CommandError, call_command

    (tmp_path / "deep").mkdir()
    (tmp_path / "deep" / "metadata.json").write_text(DEEP)
    (tmp_path / "deep" / "a.txt").write_text("a")
    (tmp_path / "fine").mkdir()
    (tmp_path / "fine" / "b.txt").write_text("b")
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError):
        call_command("importitems", str(tmp_path), stdout=out, stderr=err)
    assert "JSON nested deeper than 32 levels" in err.getvalue() + out.getvalue()
    assert list(Item.objects.filter(is_archive_service=False).values_list("title", flat=True)) \
        == ["fine"]
