"""Communities and collections (issue 34, point 1): the tree and its refusals, items moved and
mapped, a collection's access defaults, the admin. Pages, feeds, OAI-PMH sets and the API are
tests/test_communities_pages.py's, tests/test_oai.py's and tests/test_api_communities.py's."""
from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from archive.communities import selectors, services
from archive.deposit import services as deposit
from archive.models import DEFAULT_COLLECTION, Collection, Community, Item
from archive.refusals import Refusal
from tests import factories as make

pytestmark = pytest.mark.django_db


@pytest.fixture
def tree():
    return make.programme()


def test_an_item_deposited_without_a_collection_lands_in_the_default_one():
    item = make.item()
    assert item.collection.slug == DEFAULT_COLLECTION
    assert item.collection.community.slug == "repository"


def test_the_tree_is_built_and_read_whole(tree):
    roots = selectors.community_tree()
    faculty = next(node for node in roots if node.community.slug == "engenharia")
    assert [n.community.slug for n in faculty.children] == ["ppgee"]
    assert sorted(c.slug for c in faculty.children[0].collections) == ["artigos-ppgee",
                                                                       "teses-ppgee"]
    assert [c.slug for c in selectors.ancestors(tree["programme"])] == ["engenharia"]
    assert set(selectors.collection_ids_under(tree["faculty"])) == {
        tree["theses"].pk, tree["articles"].pk}


def test_an_item_is_moved_and_mapped(tree):
    item = make.item(collection=tree["theses"])
    assert item.collection == tree["theses"]
    services.item_map(item=item, collections=[tree["articles"]])
    listed = Item.objects.filter
    assert list(listed(selectors.in_collections([tree["articles"].pk]))) == [item]
    services.item_move(item=item, collection=tree["articles"])
    item.refresh_from_db()
    assert item.collection == tree["articles"]
    assert list(item.mapped_collections.all()) == []  # no longer mapped where it is owned
    assert list(listed(selectors.in_collections([tree["theses"].pk]))) == []


def test_a_slug_taken_is_refused_naming_the_field(tree):
    with pytest.raises(Refusal, match="^slug: "):
        make.community("ppgee")
    with pytest.raises(Refusal, match="^slug: "):
        make.collection("teses-ppgee", tree["faculty"])
    assert Community.objects.filter(slug="ppgee").count() == 1


def test_a_community_made_its_own_ancestor_is_refused(tree):
    faculty = tree["faculty"]
    faculty.parent = tree["programme"]
    with pytest.raises(Refusal, match="^parent: "):
        services.community_save(community=faculty)
    faculty.parent = faculty
    with pytest.raises(Refusal, match="^parent: "):
        services.community_save(community=faculty)
    assert Community.objects.get(slug="engenharia").parent is None


def test_a_collection_with_items_is_not_deleted(tree):
    make.item(collection=tree["theses"])
    with pytest.raises(Refusal, match="^items: "):
        services.collection_delete(collection=tree["theses"])
    assert Collection.objects.filter(slug="teses-ppgee").exists()
    services.collection_delete(collection=tree["articles"])
    assert not Collection.objects.filter(slug="artigos-ppgee").exists()
    with pytest.raises(Refusal, match="^children: "):
        services.community_delete(community=tree["programme"])


def test_a_deposit_gets_its_collections_default_access(tree):
    embargoed = make.collection("teses-sigilo", tree["programme"],
                                default_access_rights="embargoed", default_embargo_days=30)
    item = make.item(collection=embargoed)
    assert item.access_rights == "embargoed"
    assert item.embargo_until == timezone.localdate() + datetime.timedelta(days=30)
    named = make.item(collection=embargoed, access=make.services.Access(rights="open"))
    assert named.access_rights == "open"  # what the deposit names wins


def test_access_defaults_that_contradict_each_other_are_refused(tree):
    with pytest.raises(Refusal, match="^default_embargo_days: "):
        make.collection("x", tree["faculty"], default_access_rights="embargoed")
    with pytest.raises(Refusal, match="^default_embargo_days: "):
        make.collection("y", tree["faculty"], default_embargo_days=10)
    assert not Collection.objects.filter(slug__in=["x", "y"]).exists()


# -- The admin ------------------------------------------------------------------------------------

def test_a_librarian_builds_the_tree_in_the_admin(librarian_client, tree):
    made = librarian_client.post("/admin/archive/community/add/", {
        "slug": "ppgc", "name_pt_br": "Computação", "name_en": "Computing",
        "parent": tree["faculty"].pk}, secure=True)
    assert made.status_code == 302, made.content.decode()[:2000]
    made = librarian_client.post("/admin/archive/collection/add/", {
        "slug": "teses-ppgc", "name_pt_br": "Teses", "name_en": "Theses",
        "community": Community.objects.get(slug="ppgc").pk, "default_access_rights": "open",
        "default_embargo_days": "0", "max_embargo_days": "730"}, secure=True)
    assert made.status_code == 302, made.content.decode()[:2000]
    assert Collection.objects.get(slug="teses-ppgc").community.parent == tree["faculty"]


@pytest.mark.parametrize(("url", "data", "field"), [
    ("/admin/archive/community/add/", {"slug": "ppgee", "name_pt_br": "X", "name_en": "X"},
     "slug"),
    ("/admin/archive/collection/add/", {"slug": "w", "name_pt_br": "X", "name_en": "X",
                                        "default_access_rights": "embargoed",
                                        "default_embargo_days": "0",
                                        "max_embargo_days": "730"}, "default_embargo_days"),
])
def test_bad_input_is_a_form_error_on_its_field(librarian_client, tree, url, data, field):
    if "collection" in url:
        data["community"] = tree["faculty"].pk
    response = librarian_client.post(url, data, secure=True)
    assert response.status_code == 200
    assert field in response.context["adminform"].form.errors
    assert not Collection.objects.filter(slug="w").exists()


def test_a_cycle_is_a_form_error_in_the_admin(librarian_client, tree):
    faculty = tree["faculty"]
    response = librarian_client.post(f"/admin/archive/community/{faculty.pk}/change/", {
        "slug": "engenharia", "name_pt_br": "E", "name_en": "E",
        "parent": tree["programme"].pk}, secure=True)
    assert response.status_code == 200
    assert "parent" in response.context["adminform"].form.errors
    faculty.refresh_from_db()
    assert faculty.parent is None and faculty.name_pt_br == "Comunidade engenharia"


def test_a_collection_with_items_is_not_deleted_in_the_admin(librarian_client, tree):
    make.item(collection=tree["theses"])
    librarian_client.post(f"/admin/archive/collection/{tree['theses'].pk}/delete/",
                          {"post": "yes"}, secure=True)
    assert Collection.objects.filter(slug="teses-ppgee").exists()


def test_the_admin_deposits_into_moves_and_maps(librarian_client, tree):
    response = make.admin_deposit(librarian_client, title="Tese", collection=tree["theses"].pk)
    assert response.status_code == 302, response.content.decode()[:3000]
    item = Item.objects.get(title="Tese")
    assert item.collection == tree["theses"]
    response = make.posted_raw(librarian_client, f"/admin/archive/item/{item.pk}/change/", [], {
        "title": "Tese", "transferable": "on", "target_file": "paper.pdf",
        "access_rights": "open", "collection": tree["articles"].pk,
        "mapped_collections": tree["theses"].pk}, field="upload")
    assert response.status_code == 302, response.content.decode()[:3000]
    item.refresh_from_db()
    assert item.collection == tree["articles"]
    assert list(item.mapped_collections.all()) == [tree["theses"]]


def test_an_admin_deposit_naming_no_access_gets_its_collections_default(librarian_client, tree):
    closed = make.collection("restritas", tree["faculty"], default_access_rights="restricted")
    response = make.admin_deposit(librarian_client, title="Sigilosa", collection=closed.pk)
    assert response.status_code == 302, response.content.decode()[:3000]
    assert Item.objects.get(title="Sigilosa").access_rights == "restricted"


def test_the_item_list_moves_and_maps_items_after_a_confirmation_page(librarian_client, tree):
    items = [make.item(title=f"Tese {n}") for n in range(2)]
    gone = make.item(title="Retirada")
    deposit.item_delete(item=gone)
    selected = {"_selected_action": [i.pk for i in (*items, gone)]}
    page = librarian_client.post("/admin/archive/item/", {
        "action": "move_to_collection", **selected}, secure=True, HTTP_ACCEPT_LANGUAGE="pt-BR")
    assert page.status_code == 200
    text = page.content.decode()
    assert "Mover itens para uma coleção" in text and "3 itens selecionados" in text
    assert "Sim, mover" in text and tree["theses"].name_pt_br in text
    assert Item.objects.filter(collection=tree["theses"]).count() == 0  # not before "yes"
    # No collection chosen: the page again, with its error, nothing moved.
    again = librarian_client.post("/admin/archive/item/", {
        "action": "move_to_collection", "post": "yes", **selected}, secure=True)
    assert again.status_code == 200 and "Please choose a collection." in again.content.decode()
    done = librarian_client.post("/admin/archive/item/", {
        "action": "move_to_collection", "post": "yes", "collection": tree["theses"].pk,
        **selected}, secure=True, follow=True)
    assert "2 items moved to Collection teses-ppgee." in done.content.decode()
    assert set(Item.objects.filter(collection=tree["theses"])) == set(items)
    gone.refresh_from_db()
    assert gone.collection.slug == DEFAULT_COLLECTION  # a tombstone stays where it is
    librarian_client.post("/admin/archive/item/", {
        "action": "map_into_collection", "post": "yes", "collection": tree["articles"].pk,
        **selected}, secure=True)
    for item in items:
        item.refresh_from_db()
        assert item.collection == tree["theses"]
        assert list(item.mapped_collections.all()) == [tree["articles"]]
    # Mapped into the collection it owns: nothing; moved into one it is mapped into: owned.
    assert services.items_map_into(items=items, collection=tree["theses"]) == 0
    assert services.items_move(items=Item.objects.filter(pk__in=[i.pk for i in items]),
                               collection=tree["articles"]) == 2
    for item in items:
        item.refresh_from_db()
        assert (item.collection, list(item.mapped_collections.all())) == (tree["articles"], [])



def test_a_collections_dspace_handle_is_kept_in_lower_case_and_names_one_collection(tree):
    kept = make.collection("teses-dspace", tree["faculty"], handle=" 123456789/ABC ")
    assert kept.handle == "123456789/abc"
    with pytest.raises(Refusal, match="^handle: "):
        make.collection("outra", tree["faculty"], handle="123456789/abc")
    make.collection("sem-handle", tree["faculty"])  # "" is no Handle: any number of them
    assert Collection.objects.filter(handle="").count() >= 3
