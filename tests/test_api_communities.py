"""/api/communities/ and /api/collections/ (issue 34): read by all, written by librarians; the
tree's refusals as 400s naming the field, nothing saved; `collection` on items (deposit, move,
map, filter), an unknown one refused by name."""
from __future__ import annotations

import pytest

from archive.models import Collection, Community, Item
from tests import factories as make

pytestmark = pytest.mark.django_db

COMMUNITIES, COLLECTIONS, ITEMS = "/api/communities/", "/api/collections/", "/api/items/"


def send(api, method: str, url: str, body: dict | None = None):
    return getattr(api, method)(url, body, format="json", secure=True)


@pytest.fixture
def tree():
    return make.programme()


def test_anyone_reads_the_tree(anonymous_api, tree):
    communities = send(anonymous_api, "get", COMMUNITIES).json()
    by_slug = {c["slug"]: c for c in communities}
    assert by_slug["ppgee"]["parent"] == "engenharia" and by_slug["engenharia"]["parent"] is None
    assert by_slug["ppgee"]["page"] == "https://testserver/communities/ppgee"
    one = send(anonymous_api, "get", COLLECTIONS + "teses-ppgee").json()
    assert one == {"slug": "teses-ppgee", "name_pt_br": "Coleção teses-ppgee",
                   "name_en": "Collection teses-ppgee", "description": "",
                   "community": "ppgee", "default_access_rights": "open",
                   "default_embargo_days": 0, "profile": None, "handle": "", "logo": None,
                   "page": "https://testserver/collections/teses-ppgee"}
    assert send(anonymous_api, "get", COLLECTIONS + "nowhere").status_code == 404


@pytest.mark.parametrize(("method", "url"), [
    ("post", COMMUNITIES), ("post", COLLECTIONS), ("patch", COMMUNITIES + "ppgee"),
    ("delete", COLLECTIONS + "artigos-ppgee"), ("put", COLLECTIONS + "artigos-ppgee")])
def test_anonymous_writes_are_refused(anonymous_api, tree, method, url):
    body = {"slug": "x", "name_pt_br": "X", "name_en": "X", "community": "ppgee"}
    assert send(anonymous_api, method, url, body).status_code in (401, 403)
    assert not Community.objects.filter(slug="x").exists()
    assert Collection.objects.filter(slug="artigos-ppgee").exists()


def test_a_librarian_builds_and_changes_the_tree(librarian_api, tree):
    made = send(librarian_api, "post", COMMUNITIES, {
        "slug": "ppgc", "name_pt_br": "PPG em Computação", "name_en": "Computer science",
        "parent": "engenharia"})
    assert made.status_code == 201, made.json()
    made = send(librarian_api, "post", COLLECTIONS, {
        "slug": "teses-ppgc", "name_pt_br": "Teses", "name_en": "Theses", "community": "ppgc",
        "default_access_rights": "embargoed", "default_embargo_days": 365})
    assert made.status_code == 201, made.json()
    moved = send(librarian_api, "patch", COMMUNITIES + "ppgc", {"parent": None})
    assert moved.status_code == 200 and moved.json()["parent"] is None
    assert send(librarian_api, "delete", COLLECTIONS + "teses-ppgc").status_code == 204
    assert not Collection.objects.filter(slug="teses-ppgc").exists()


@pytest.mark.parametrize(("method", "url", "body", "field"), [
    ("post", COMMUNITIES, {"slug": "ppgee", "name_pt_br": "X", "name_en": "X"}, "slug"),
    ("post", COLLECTIONS, {"slug": "teses-ppgee", "name_pt_br": "X", "name_en": "X",
                           "community": "ppgee"}, "slug"),
    ("post", COLLECTIONS, {"slug": "z", "name_pt_br": "X", "name_en": "X",
                           "community": "nowhere"}, "community"),
    ("patch", COMMUNITIES + "engenharia", {"parent": "ppgee"}, "parent"),
    ("post", COLLECTIONS, {"slug": "z", "name_pt_br": "X", "name_en": "X", "community": "ppgee",
                           "default_access_rights": "embargoed"}, "default_embargo_days"),
])
def test_bad_input_is_a_400_naming_the_field_and_nothing_is_saved(librarian_api, tree, method,
                                                                   url, body, field):
    before = (list(Community.objects.values_list("slug", "parent_id").order_by("slug")),
              list(Collection.objects.values_list("slug", flat=True).order_by("slug")))
    answer = send(librarian_api, method, url, body)
    assert answer.status_code == 400
    assert field in answer.json() or answer.json()["detail"].startswith(f"{field}: ")
    assert before == (list(Community.objects.values_list("slug", "parent_id").order_by("slug")),
                      list(Collection.objects.values_list("slug", flat=True).order_by("slug")))


def test_a_collections_dspace_handle_is_read_written_and_kept_unique(librarian_api, tree):
    """The Handle a collection had in DSpace (what importsaf's `collections` files name), kept
    as Handles are compared, in lower case; another collection's Handle is refused by name."""
    done = send(librarian_api, "patch", COLLECTIONS + "teses-ppgee", {"handle": " 123456789/ABC "})
    assert done.status_code == 200 and done.json()["handle"] == "123456789/abc"
    other = Collection.objects.exclude(slug="teses-ppgee").first()
    refused = send(librarian_api, "patch", f"{COLLECTIONS}{other.slug}",
                   {"handle": "123456789/abc"})
    assert refused.status_code == 400 and "handle" in refused.content.decode()
    assert Collection.objects.get(pk=other.pk).handle == ""


def test_a_collection_with_items_is_not_deleted(librarian_api, tree):
    make.item(collection=tree["theses"])
    answer = send(librarian_api, "delete", COLLECTIONS + "teses-ppgee")
    assert answer.status_code == 400 and answer.json()["detail"].startswith("items: ")
    assert Collection.objects.filter(slug="teses-ppgee").exists()


def test_items_name_their_collection_and_are_moved_and_mapped(librarian_api, anonymous_api,
                                                               tree):
    deposited = make.posted(librarian_api, ("a.txt", b"a"), title="Tese", collection="teses-ppgee")
    assert deposited.status_code == 201, deposited.json()
    record = deposited.json()
    assert (record["collection"], record["mapped_collections"]) == ("teses-ppgee", [])
    url = ITEMS + record["ibi"]
    changed = send(librarian_api, "patch", url, {"collection": "artigos-ppgee",
                                                 "mapped_collections": ["teses-ppgee"]})
    assert changed.status_code == 200, changed.json()
    assert (changed.json()["collection"], changed.json()["mapped_collections"]) == (
        "artigos-ppgee", ["teses-ppgee"])
    listed = send(anonymous_api, "get", ITEMS + "?collection=teses-ppgee").json()["results"]
    assert [r["ibi"] for r in listed] == [record["ibi"]]  # mapped there


def test_an_unknown_collection_on_an_item_is_refused_by_name(librarian_api, tree):
    answer = make.posted(librarian_api, ("a.txt", b"a"), title="Tese", collection="nowhere")
    assert answer.status_code == 400 and "collection" in answer.json()
    assert Item.objects.filter(title="Tese").count() == 0
    item = make.item(collection=tree["theses"])
    answer = send(librarian_api, "patch", ITEMS + item.ibi, {"collection": "nowhere"})
    assert answer.status_code == 400 and "collection" in answer.json()
    item.refresh_from_db()
    assert item.collection == tree["theses"]


def test_the_schema_describes_the_tree(anonymous_api):
    schema = send(anonymous_api, "get", "/api/schema/?format=json").json()
    assert {"/api/communities/", "/api/communities/{slug}", "/api/collections/",
            "/api/collections/{slug}"} <= set(schema["paths"])
    assert "collection" in schema["components"]["schemas"]["Item"]["properties"]


def test_a_body_of_other_types_than_the_schemas_is_refused_and_saves_nothing(librarian_api,
                                                                             anonymous_api):
    before = send(anonymous_api, "get", COMMUNITIES).json()
    for body in ({"slug": 5, "name_pt_br": "Cinco", "name_en": "Five"},
                 {"slug": "cinco", "name_pt_br": "Cinco", "name_en": "Five", "parent": ""},
                 {"slug": "cinco", "name_pt_br": "Cinco", "name_en": "Five", "parent": 7}):
        refused = send(librarian_api, "post", COMMUNITIES, body)
        assert refused.status_code == 400, (body, refused.content)
        assert set(refused.json()) <= {"slug", "parent"}
    form = librarian_api.post(COMMUNITIES, {"slug": "cinco", "name_pt_br": "Cinco",
                                            "name_en": "Five"}, secure=True)
    assert form.status_code == 415  # JSON only: a form would read an empty parent as null
    assert send(anonymous_api, "get", COMMUNITIES).json() == before


@pytest.mark.parametrize(("url", "body", "model"), [
    (COMMUNITIES, {"slug": "ppgc", "name_pt_br": "PPGC", "name_en": "CS",
                   "parent": "engenharia"}, Community),
    (COLLECTIONS, {"slug": "teses-ppgc", "name_pt_br": "Teses", "name_en": "Theses",
                   "community": "ppgee"}, Collection)])
def test_a_post_sent_again_with_its_idempotency_key_makes_nothing_twice(
        librarian_api, tree, url, body, model):
    def post(data, key="chave-1"):
        return librarian_api.post(url, data, format="json", secure=True,
                                  HTTP_IDEMPOTENCY_KEY=key)

    first = post(body)
    assert first.status_code == 201, first.json()
    assert "Idempotent-Replayed" not in first
    made = model.objects.get(slug=body["slug"])
    made.name_en = "Renamed since"
    made.save()
    again = post(body)
    assert again.status_code == 201 and again["Idempotent-Replayed"] == "true"
    assert again.json() == {**first.json(), "name_en": "Renamed since"}  # as it is now
    assert again["Location"] == f"https://testserver{url}{body['slug']}"
    assert model.objects.filter(slug__startswith=body["slug"]).count() == 1
    # The same key for another request: 409, nothing made.
    other = post({**body, "slug": body["slug"] + "-2"})
    assert other.status_code == 409, other.json()
    assert not model.objects.filter(slug=body["slug"] + "-2").exists()
    # A refused write (the slug taken) frees its key: the corrected request may use it.
    refused = post(body, key="chave-2")
    assert refused.status_code == 400 and "slug" in refused.json(), refused.json()
    fixed = post({**body, "slug": body["slug"] + "-3"}, key="chave-2")
    assert fixed.status_code == 201, fixed.json()
    assert "Idempotent-Replayed" not in fixed
