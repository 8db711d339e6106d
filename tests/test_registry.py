"""The metadata registry (issue 34): values are schema.element.qualifier[language] with an
authority id and its confidence; a field or qualifier not registered, a malformed ORCID iD or
Lattes id is refused naming it, and nothing is saved."""
from __future__ import annotations

import json

import pytest

from archive.deposit import services
from archive.models import DcValue, Item, MetadataField, MetadataSchema
from archive.refusals import Refusal
from archive.registry import services as registry_services
from archive.registry.names import Qualified
from tests import factories as make

pytestmark = pytest.mark.django_db

ITEMS = "/api/items/"
ORCID = "0000-0002-1825-0097"
LATTES = "4727357182510680"

THESIS = [
    {"field": "dc.contributor.author", "value": "Silva, Maria", "authority": ORCID,
     "confidence": 600},
    {"field": "dc.contributor.advisor", "value": "Souza, João", "authority": LATTES,
     "confidence": 600},
    {"field": "dc.contributor.referee", "value": "Lins, Rui"},
    {"field": "dc.contributor.referee", "value": "Costa, Ana"},
    {"field": "dc.publisher.program", "value": "Programa de Pós-Graduação em Computação",
     "language": "pt-BR"},
    {"field": "dc.subject.cnpq", "value": "CIENCIAS EXATAS E DA TERRA::CIENCIA DA COMPUTACAO"},
    {"field": "dc.description.abstract", "value": "Um resumo.", "language": "pt-BR"},
    {"field": "dc.description.abstract", "value": "An abstract.", "language": "en"},
    {"field": "local.degree.level", "value": "mestrado"},
]


def stored(item: Item) -> set[tuple]:
    return {(v.field.name, v.value, v.language, v.authority, v.confidence)
            for v in item.dc_values.select_related("field__schema")}


@pytest.fixture
def open_collection():
    """A collection whose profile (a librarian's) has every field these tests give."""
    fields = sorted({m["field"] for m in THESIS} | {"dc.subject"})
    return make.collection("registro", make.community("reg"),
                           profile=make.profile("registro", *fields))


def posted_json(api, body: dict):
    """A JSON deposit needs files: a multipart one sends `metadata` as JSON text."""
    return make.posted(api, metadata=[json.dumps(body["metadata"])], collection="registro",
                       **{k: v for k, v in body.items() if k != "metadata"})


def test_a_thesis_through_the_api_keeps_every_qualified_value(librarian_api, media,
                                                             open_collection):
    response = posted_json(librarian_api, {"title": "Uma tese", "metadata": THESIS,
                                           "subject": ["repositórios"]})
    assert response.status_code == 201, response.json()
    record = response.json()
    got = {(m["field"], m["value"], m["language"], m["authority"], m["confidence"])
           for m in record["metadata"]}
    want = {(m["field"], m["value"], m.get("language", ""), m.get("authority", ""),
             m.get("confidence", -1)) for m in THESIS} | {
        ("dc.subject", "repositórios", "", "", -1)}
    assert got == want
    # The top-level keys are dc.<element>'s own values: the advisor is not dc.contributor.
    assert record["contributor"] == [] and record["subject"] == ["repositórios"]
    item = Item.objects.get(ibi=record["ibi"])
    assert stored(item) == want
    # Simple Dublin Core (oai_dc, search, citations) sees the advisor as a contributor.
    assert set(item.dc("contributor")) == {"Souza, João", "Lins, Rui", "Costa, Ana"}
    assert item.dc("creator") == ["Silva, Maria"]


def test_a_patch_of_a_field_replaces_its_values_only(librarian_api, media, open_collection):
    record = posted_json(librarian_api, {"title": "Uma tese", "metadata": THESIS}).json()
    response = librarian_api.patch(ITEMS + record["ibi"], {"metadata": [
        {"field": "dc.contributor.referee", "value": "Nunes, Eva", "language": "pt-BR"}]},
        format="json", secure=True)
    assert response.status_code == 200, response.json()
    referees = [m for m in response.json()["metadata"] if m["field"] == "dc.contributor.referee"]
    assert [(m["value"], m["language"]) for m in referees] == [("Nunes, Eva", "pt-BR")]
    assert len(response.json()["metadata"]) == len(THESIS) - 1


@pytest.mark.parametrize(("value", "named"), [
    ({"field": "dc.contributor.supervisor", "value": "X"}, "dc.contributor.supervisor"),
    ({"field": "dc.nonsense", "value": "X"}, "dc.nonsense"),
    ({"field": "mods.name", "value": "X"}, "mods.name"),
    ({"field": "dc.contributor.advisor", "value": "X", "authority": "0000-0002-1825-0096"},
     "0000-0002-1825-0096"),
    ({"field": "dc.contributor.advisor", "value": "X", "authority": "47273571825"},
     "47273571825"),
    ({"field": "dc.contributor.advisor", "value": "X", "language": "not a tag!"}, "language"),
])
def test_a_bad_value_is_a_400_naming_it_and_nothing_is_saved(librarian_api, media, value,
                                                              named, open_collection):
    response = posted_json(librarian_api, {"title": "Uma tese", "metadata": [value]})
    assert response.status_code == 400
    assert named in json.dumps(response.json(), ensure_ascii=False)
    assert not Item.objects.filter(title="Uma tese").exists()
    assert not DcValue.objects.filter(value="X").exists()
    assert list(media.rglob("*.pdf")) == []


def test_a_patch_with_an_unregistered_qualifier_changes_nothing(librarian_api, media,
                                                                open_collection):
    record = posted_json(librarian_api, {"title": "Uma tese", "metadata": THESIS}).json()
    before = stored(Item.objects.get(ibi=record["ibi"]))
    response = librarian_api.patch(ITEMS + record["ibi"], {"title": "Outra", "metadata": [
        {"field": "dc.contributor.referee", "value": "Nunes, Eva"},
        {"field": "dc.publisher.campus", "value": "Centro"}]}, format="json", secure=True)
    assert response.status_code == 400
    assert "dc.publisher.campus" in response.json()["detail"]
    assert "campus" in response.json()["detail"]
    item = Item.objects.get(ibi=record["ibi"])
    assert (item.title, stored(item)) == ("Uma tese", before)


def test_the_check_only_path_refuses_as_the_write_does():
    with pytest.raises(Refusal, match="dc.subject.cnpqq"):
        services.item_deposit_check(title="T", uploads=[], dc={"dc.subject.cnpqq": ["x"]})
    with pytest.raises(Refusal, match="Lattes"):
        services.item_deposit_check(title="T", uploads=[], dc={
            "dc.contributor.advisor": [Qualified("Souza, João", authority="lattes:123")]})
    services.item_deposit_check(title="T", uploads=[], dc={
        "dc.contributor.advisor": [Qualified("Souza, João",
                                             authority=f"http://lattes.cnpq.br/{LATTES}")]})


def test_an_authority_is_kept_bare_and_a_foreign_key_as_given():
    item = make.item(dc={
        "dc.contributor.advisor": [Qualified("Souza, João",
                                             authority=f"http://lattes.cnpq.br/{LATTES}")],
        "dc.contributor.author": [Qualified("Silva, Maria",
                                            authority=f"https://orcid.org/{ORCID}")],
        "dc.subject": [Qualified("x", authority="3c2a1b4e-9d1f-4f0a-8f43-5b6c7d8e9f00",
                                 confidence=500)]})
    assert {(name, a, c) for name, _v, _l, a, c in stored(item)} == {
        ("dc.contributor.advisor", LATTES, -1), ("dc.contributor.author", ORCID, -1),
        ("dc.subject", "3c2a1b4e-9d1f-4f0a-8f43-5b6c7d8e9f00", 500)}


def test_a_creator_with_an_orcid_id_still_deposits_as_before():
    item = make.item(dc={"creator": [("Banon, G.", ORCID)]})
    value = item.dc_values.get()
    assert (value.field.name, value.authority, value.confidence, value.orcid) == (
        "dc.creator", ORCID, 600, ORCID)


def test_a_librarian_adds_a_field_and_values_may_name_it():
    local = MetadataSchema.objects.get(name="local")
    registry_services.field_save(field=MetadataField(
        schema=local, element="defense", qualifier="place", label_en="Place of the defence",
        label_pt_br="Local da defesa"))
    item = make.item(dc={"local.defense.place": ["Porto Alegre"]})
    assert stored(item) == {("local.defense.place", "Porto Alegre", "", "", -1)}
    with pytest.raises(Refusal):  # the same name twice
        registry_services.field_save(field=MetadataField(schema=local, element="defense",
                                                         qualifier="place"))
    with pytest.raises(Refusal):  # a dot in a part
        registry_services.field_save(field=MetadataField(schema=local, element="a.b"))


def test_a_field_with_values_keeps_its_name():
    item = make.item(dc={"dc.subject.cnpq": ["x"]})
    field = item.dc_values.get().field
    field.qualifier = "capes"
    with pytest.raises(Refusal, match="dc.subject.cnpq"):
        registry_services.field_save(field=field)


def test_the_openapi_schema_describes_metadata(client):
    schema = client.get("/api/schema/", {"format": "json"}, secure=True).json()
    value = schema["components"]["schemas"]["MetadataValue"]["properties"]
    assert set(value) == {"field", "value", "language", "authority", "confidence"}
    assert "metadata" in schema["components"]["schemas"]["Item"]["properties"]


def test_a_librarian_adds_a_field_in_the_admin_and_a_renaming_is_a_form_error(admin_client):
    local = MetadataSchema.objects.get(name="local")
    response = admin_client.post("/admin/archive/metadatafield/add/", {
        "schema": local.pk, "element": "defense", "qualifier": "place", "scope_note": "",
        "label_en": "Place", "label_pt_br": "Local", "dc_element": ""}, secure=True)
    assert response.status_code == 302, response.content[:2000]
    field = MetadataField.objects.get(schema=local, element="defense", qualifier="place")
    make.item(dc={"local.defense.place": ["Porto Alegre"]})
    response = admin_client.post(f"/admin/archive/metadatafield/{field.pk}/change/", {
        "schema": local.pk, "element": "defense", "qualifier": "city", "scope_note": "",
        "label_en": "Place", "label_pt_br": "Local", "dc_element": ""}, secure=True)
    assert response.status_code == 200
    assert "local.defense.place" in response.content.decode()
    field.refresh_from_db()
    assert field.qualifier == "place"
