"""Migrations 0030-0032 (issue 34) on a populated copy: every item there before collections,
tombstones and the archive service included, lands in the default collection; the search and
change-token triggers still fire on the item table afterwards; the way back leaves none."""
from __future__ import annotations

import pytest
from django.db import connection

from tests import factories as make

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("archive", "0029_metadata_value_field_required")]
AFTER = [("archive", "0032_item_collection_required")]


@pytest.fixture
def old_apps():
    yield from make.at_migration(BEFORE)


def _populate(apps) -> set[int]:
    """Items of each state, and the archive service (every installation had one: kept where
    the database was migrated back, made where it was made anew)."""
    Item = apps.get_model("archive", "Item")
    states = ["Original", "Copy", "Deleted", "Original"]
    service = Item.objects.filter(is_archive_service=True).first() or Item.objects.create(
        ibi="archive.localhost/service", ibip="ipservice", title="Archive service",
        is_archive_service=True)
    return {service.pk} | {Item.objects.create(ibi=f"archive.localhost/item{n}", ibip=f"ip{n}",
                                               title=f"Tese {n}", state=state).pk
                           for n, state in enumerate(states)}


def test_every_existing_item_lands_in_the_default_collection(old_apps):
    before = _populate(old_apps)
    new = make.migrate_to(AFTER)
    Item = new.get_model("archive", "Item")
    assert set(Item.objects.filter(collection__slug="general").values_list("pk", flat=True)) \
        >= before
    assert Item.objects.filter(collection__isnull=True).count() == 0
    Collection = new.get_model("archive", "Collection")
    general = Collection.objects.select_related("community").get(slug="general")
    assert (general.community.slug, general.name_pt_br, general.name_en) == (
        "repository", "Coleção geral", "General collection")


def test_the_triggers_still_fire_after_the_migration(old_apps):
    _populate(old_apps)
    make.migrate_to(AFTER)
    with connection.cursor() as cursor:
        cursor.execute("SELECT token FROM archive_changes WHERE id = 1")
        token = cursor.fetchone()[0]
        cursor.execute("UPDATE archive_item SET title = 'Outra' "
                       "WHERE ibi = 'archive.localhost/item0'")
        cursor.execute("SELECT token FROM archive_changes WHERE id = 1")
        assert cursor.fetchone()[0] != token


def test_the_migration_goes_back(old_apps):
    before = _populate(old_apps)
    make.migrate_to(AFTER)
    old = make.migrate_to(BEFORE)
    Item = old.get_model("archive", "Item")
    assert set(Item.objects.values_list("pk", flat=True)) >= before
