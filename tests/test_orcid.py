"""ORCID iDs of creators: the check digit (ISO 7064 MOD 11-2), the REST API, the admin and the
Record every format is built from."""
from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from archive.deposit import services
from archive.identifiers import orcid
from archive.metadata.selectors import record_of
from archive.models import Item
from tests import factories as make

ITEMS = "/api/items/"
# ORCID's own documented examples (support.orcid.org, "Structure of the ORCID identifier").
JOSIAH = "0000-0002-1825-0097"
WITH_X = "0000-0002-1694-233X"


# -- The pure check ----------------------------------------------------------------------------

@pytest.mark.parametrize("given, bare", [
    (JOSIAH, JOSIAH), (WITH_X, WITH_X), ("0000-0002-1694-233x", WITH_X),
    (f"https://orcid.org/{JOSIAH}", JOSIAH), (f"http://orcid.org/{JOSIAH}", JOSIAH),
    ("0000 0002 1825 0097", JOSIAH), (f" {JOSIAH} ", JOSIAH),
])
def test_an_orcid_id_or_its_url_becomes_the_bare_id(given, bare):
    assert orcid.normalize(given) == bare


def test_the_check_digit_is_iso_7064_mod_11_2():
    assert orcid.check_digit("000000021825009") == "7"
    assert orcid.check_digit("000000021694233") == "X"


@pytest.mark.parametrize("given, reason", [
    ("0000-0002-1825-0098", "check digit"), ("0000-0002-1694-2330", "check digit"),
    ("0000-0002-1825-009", "form"), ("0000000218250097", "form"), ("ORCID", "form"),
    ("https://example.org/0000-0002-1825-0097", "form"), ("0000-0002-1825-009X7", "form"),
])
def test_anything_else_is_refused_with_the_reason(given, reason):
    with pytest.raises(orcid.OrcidError) as refused:
        orcid.normalize(given)
    assert refused.value.reason == reason


# -- REST API ----------------------------------------------------------------------------------


def test_a_deposit_takes_plain_creators_and_creators_with_an_orcid_id(librarian_api):
    response = make.posted(librarian_api, ("a.txt", b"a"), title="T", creator=[
        "Silva, J.", json.dumps({"name": "Carberry, Josiah", "orcid": JOSIAH})])
    assert response.status_code == 201, response.content
    record = response.json()
    assert record["creator"] == ["Silva, J.", "Carberry, Josiah"]
    assert record["creators"] == [{"name": "Silva, J.", "orcid": ""},
                                  {"name": "Carberry, Josiah", "orcid": JOSIAH}]
    item = Item.objects.get(ibi=record["ibi"])
    assert [(c.name, c.orcid) for c in record_of(item).creators] == [
        ("Silva, J.", ""), ("Carberry, Josiah", JOSIAH)]


def test_a_patch_sets_an_orcid_id_given_as_its_url(librarian_api):
    ibi = make.posted(librarian_api, ("a.txt", b"a"), title="T",
                      creator="Carberry, J.").json()["ibi"]
    response = librarian_api.patch(ITEMS + ibi, {"creator": [
        {"name": "Carberry, Josiah", "orcid": f"https://orcid.org/{WITH_X.lower()}"},
        "Silva, J."]}, format="json", secure=True)
    assert response.status_code == 200, response.content
    assert response.json()["creators"][0] == {"name": "Carberry, Josiah", "orcid": WITH_X}
    one = librarian_api.patch(ITEMS + ibi, {"creator": {"name": "Solo, A."}}, format="json",
                              secure=True)
    assert one.status_code == 200 and one.json()["creators"] == [{"name": "Solo, A.",
                                                                  "orcid": ""}]


@pytest.mark.parametrize("creator, says", [
    ({"name": "C", "orcid": "0000-0002-1825-0098"}, "check digit is wrong"),
    ({"name": "C", "orcid": "12345"}, "0000-0000-0000-000X"),
    ({"name": "C", "orcid": "0000-0002-1825-0097", "email": "c@x"}, "a creator object is"),
    ({"orcid": JOSIAH}, "a creator object is"),
    ({"name": "", "orcid": JOSIAH}, "needs a name"),
    (42, "a creator object is"),
])
def test_a_bad_creator_is_a_400_that_says_what_is_wrong(librarian_api, creator, says):
    ibi = make.posted(librarian_api, ("a.txt", b"a"), title="T").json()["ibi"]
    response = librarian_api.patch(ITEMS + ibi, {"creator": [creator]}, format="json",
                                   secure=True)
    assert response.status_code == 400, response.content
    assert says in json.dumps(response.json(), ensure_ascii=False)
    assert Item.objects.get(ibi=ibi).dc_values.filter(element="creator").count() == 0


def test_a_bad_orcid_in_a_multipart_deposit_is_a_400_and_deposits_nothing(librarian_api):
    response = make.posted(librarian_api, ("a.txt", b"a"), title="T",
                           creator=json.dumps({"name": "C", "orcid": "0000-1"}))
    assert response.status_code == 400 and "ORCID" in response.json()["creator"][0]
    broken = make.posted(librarian_api, ("a.txt", b"a"), title="T", creator='{"name": "C", ')
    assert broken.status_code == 400 and "JSON object" in broken.json()["creator"][0]
    assert not Item.objects.filter(title="T").exists()


@pytest.mark.django_db  # the values' fields are read from the registry first
def test_only_a_creator_has_an_orcid_id():
    with pytest.raises(services.ServiceError, match="only a creator"):
        services.item_deposit(title="T", uploads=[services.Upload(
            "a.txt", SimpleUploadedFile("a.txt", b"a"))], dc={"subject": [("x", JOSIAH)]})


# -- Admin -------------------------------------------------------------------------------------


def test_the_admin_takes_an_orcid_id_after_a_bar_and_shows_it_again(librarian_client):
    response = librarian_client.post("/admin/archive/item/add/", {
        "title": "T", "transferable": "on", "upload": [SimpleUploadedFile("a.txt", b"a")],
        "dc_creator": f"Carberry, Josiah | https://orcid.org/{JOSIAH}\nSilva, J.\n"},
        secure=True)
    assert response.status_code == 302, response.content.decode()[:2000]
    item = Item.objects.get(title="T")
    assert [(v.value, v.orcid) for v in item.dc_values.filter(element="creator")] == [
        ("Carberry, Josiah", JOSIAH), ("Silva, J.", "")]
    form = librarian_client.get(f"/admin/archive/item/{item.pk}/change/",
                                secure=True).context["adminform"].form
    assert form["dc_creator"].value() == f"Carberry, Josiah | {JOSIAH}\nSilva, J."


def test_a_bad_orcid_id_in_the_admin_is_an_error_on_the_creator_field(librarian_client):
    response = librarian_client.post("/admin/archive/item/add/", {
        "title": "T", "transferable": "on", "upload": [SimpleUploadedFile("a.txt", b"a")],
        "dc_creator": "Carberry, Josiah | 0000-0002-1825-0098"}, secure=True)
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert "check digit is wrong" in errors["dc_creator"][0]
    assert not Item.objects.filter(title="T").exists()
