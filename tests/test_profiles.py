"""Submission profiles per collection (issue 34, point 3): a collection's items have the
fields its profile names; the API refuses a field outside it, a required one missing, a
non-repeatable one repeated, a value outside its controlled list, a malformed Lattes id or
ORCID iD, naming the field, and saves nothing. The profile is read at
/api/collections/<slug>/profile. (The admin's form: tests/test_admin_profiles.py.)"""
from __future__ import annotations

import json

import pytest

from archive.models import DcValue, Item, SubmissionProfile
from archive.profiles import cnpq
from archive.profiles.check import Entry, ProfileRefusal, Row, check
from tests import factories as make

pytestmark = pytest.mark.django_db

ITEMS = "/api/items/"
LATTES = "4727357182510680"
ORCID = "0000-0002-1825-0097"

# A thesis with every field of MTD-BR's profile ("tese").
THESIS = [
    {"field": "dc.contributor.author", "value": "Silva, Maria", "authority": LATTES,
     "confidence": 600},
    {"field": "dc.title.alternative", "value": "A thesis", "language": "en"},
    {"field": "dc.contributor.advisor", "value": "Souza, João", "authority": ORCID,
     "confidence": 600},
    {"field": "dc.contributor.advisor-co", "value": "Lima, Ana", "authority": LATTES},
    {"field": "dc.contributor.referee", "value": "Lins, Rui"},
    {"field": "dc.contributor.referee", "value": "Costa, Ana", "authority": ORCID},
    {"field": "dc.publisher", "value": "Universidade Federal do Rio Grande do Sul"},
    {"field": "dc.publisher.initials", "value": "UFRGS"},
    {"field": "dc.publisher.country", "value": "Brasil"},
    {"field": "dc.publisher.program", "value": "Programa de Pós-Graduação em Computação"},
    {"field": "dc.publisher.department", "value": "Instituto de Informática"},
    {"field": "local.degree.level", "value": "Doutorado", "authority": "doutorado"},
    {"field": "local.degree.name", "value": "Doutor em Ciência da Computação"},
    {"field": "dc.date.issued", "value": "2024-03-15"},
    {"field": "dc.subject.cnpq", "value": "Ciência da Computação",
     "authority": "1.03.00.00-7"},
    {"field": "dc.subject", "value": "repositórios", "language": "pt-BR"},
    {"field": "dc.subject", "value": "repositories", "language": "en"},
    {"field": "dc.description.abstract", "value": "Um resumo.", "language": "pt-BR"},
    {"field": "dc.description.abstract", "value": "An abstract.", "language": "en"},
    {"field": "dc.identifier.citation", "value": "SILVA, Maria. Uma tese. 2024."},
]


def as_set(values) -> set[tuple]:
    return {(m["field"], m["value"], m.get("language", ""), m.get("authority", ""))
            for m in values}


def stored(item: Item) -> set[tuple]:
    return {(v.field.name, v.value, v.language, v.authority)
            for v in item.dc_values.select_related("field__schema")}


@pytest.fixture
def theses():
    under = make.community("ppgc")
    return make.collection("teses-ppgc", under,
                           profile=SubmissionProfile.objects.get(slug="tese"))


def test_the_cnpq_table_is_shipped_with_right_check_digits():
    table = cnpq.table()
    assert [a.code for a in table if a.code.endswith("00.00.00-" + a.code[-1])][:9] == [
        "1.00.00.00-3", "2.00.00.00-6", "3.00.00.00-9", "4.00.00.00-1", "5.00.00.00-4",
        "6.00.00.00-7", "7.00.00.00-0", "8.00.00.00-2", "9.00.00.00-5"]
    assert all(cnpq.is_code(a.code) and a.label_pt_br for a in table)
    assert ("1.03.00.00-7", "Ciência da Computação") in {(a.code, a.label_pt_br) for a in table}
    assert len({a.code for a in table}) == len(table) > 80


def test_a_thesis_through_the_api_keeps_every_mtd_br_value(librarian_api, theses, media):
    response = make.posted_metadata(librarian_api, THESIS, title="Uma tese",
                                    collection="teses-ppgc")
    assert response.status_code == 201, response.json()
    assert as_set(response.json()["metadata"]) == as_set(THESIS)
    assert stored(Item.objects.get(ibi=response.json()["ibi"])) == as_set(THESIS)


def without(field: str, language: str = "") -> list[dict]:
    return [m for m in THESIS if (m["field"], m.get("language", "")) != (field, language)]


@pytest.mark.parametrize(("metadata", "named"), [
    (THESIS + [{"field": "dc.contributor.editor", "value": "X"}], "dc.contributor.editor"),
    (THESIS + [{"field": "dc.subject", "value": "X", "language": "fr"}], "dc.subject[fr]"),
    (without("dc.contributor.advisor"), "dc.contributor.advisor"),
    (without("dc.description.abstract", "en"), "dc.description.abstract[en]"),
    (THESIS + [{"field": "dc.publisher.program", "value": "X"}], "dc.publisher.program"),
    (without("local.degree.level") + [{"field": "local.degree.level", "value": "X"}],
     "local.degree.level"),
    (without("dc.subject.cnpq") + [{"field": "dc.subject.cnpq", "value": "X"}],
     "dc.subject.cnpq"),
    (without("dc.subject.cnpq") + [{"field": "dc.subject.cnpq", "value": "Física",
                                    "authority": "1.03.00.00-7"}], "dc.subject.cnpq"),
    # A label two areas share (Química Analítica's and Geofísica's) names neither alone.
    (without("dc.subject.cnpq") + [{"field": "dc.subject.cnpq", "value": "Gravimetria"}],
     "dc.subject.cnpq"),
    (without("dc.contributor.advisor") + [{"field": "dc.contributor.advisor", "value": "X",
                                           "authority": "47273571825"}],
     "dc.contributor.advisor"),
    (without("dc.contributor.advisor") + [{"field": "dc.contributor.advisor", "value": "X",
                                           "authority": "0000-0002-1825-0096"}],
     "dc.contributor.advisor"),
    (without("dc.contributor.author") + [{"field": "dc.contributor.author", "value": "X",
                                          "authority": "3c2a1b4e-9d1f-4f0a"}],
     "dc.contributor.author"),
])
def test_what_the_profile_refuses_is_a_400_naming_the_field_and_nothing_is_saved(
        librarian_api, theses, media, metadata, named):
    response = make.posted_metadata(librarian_api, metadata, title="Uma tese",
                                    collection="teses-ppgc")
    assert response.status_code == 400, response.json()
    assert named in response.json()["detail"]
    assert not Item.objects.filter(title="Uma tese").exists()
    assert not DcValue.objects.exists() or not DcValue.objects.filter(value="X").exists()
    assert list(media.rglob("*.pdf")) == []


@pytest.mark.parametrize("code", ["1.06.04.04-9", "1.07.02.10-5"])
def test_a_shared_label_is_taken_with_the_code_of_either_area(librarian_api, theses, code):
    area = {"field": "dc.subject.cnpq", "value": "Gravimetria", "authority": code}
    response = make.posted_metadata(librarian_api, without("dc.subject.cnpq") + [area],
                                    title="Uma tese", collection="teses-ppgc")
    assert response.status_code == 201, response.json()
    assert ("dc.subject.cnpq", "Gravimetria", "", code) in stored(
        Item.objects.get(ibi=response.json()["ibi"]))


def test_a_patch_is_checked_against_the_profile_and_changes_nothing_when_refused(
        librarian_api, theses, media):
    ibi = make.posted_metadata(librarian_api, THESIS, title="Uma tese",
                               collection="teses-ppgc").json()["ibi"]
    before = stored(Item.objects.get(ibi=ibi))
    refused = librarian_api.patch(ITEMS + ibi, {"title": "Outra", "metadata": [
        {"field": "dc.contributor.advisor", "value": "A"},
        {"field": "dc.contributor.advisor", "value": "B"}]}, format="json", secure=True)
    assert refused.status_code == 400 and "dc.contributor.advisor" in refused.json()["detail"]
    assert (Item.objects.get(ibi=ibi).title, stored(Item.objects.get(ibi=ibi))) == (
        "Uma tese", before)
    changed = librarian_api.patch(ITEMS + ibi, {"metadata": [
        {"field": "dc.contributor.referee", "value": "Nunes, Eva"}]}, format="json",
        secure=True)
    assert changed.status_code == 200, changed.json()
    referees = {m["value"] for m in changed.json()["metadata"]
                if m["field"] == "dc.contributor.referee"}
    assert referees == {"Nunes, Eva"}


def test_a_move_into_a_thesis_collection_is_checked_against_its_profile(librarian_api, theses,
                                                                         media):
    ibi = make.posted(librarian_api, title="Uma tese", creator=["Silva, Maria"]).json()["ibi"]
    refused = librarian_api.patch(ITEMS + ibi, {"collection": "teses-ppgc", "metadata": [
        {"field": "dc.contributor.advisor", "value": "Souza, João"}]}, format="json",
        secure=True)
    assert refused.status_code == 400 and "required" in refused.json()["detail"]
    assert Item.objects.get(ibi=ibi).collection.slug == "general"  # nothing moved
    # A move alone, no values given: the values it has must do there too.
    bare = librarian_api.patch(ITEMS + ibi, {"collection": "teses-ppgc"}, format="json",
                               secure=True)
    assert bare.status_code == 400 and "required" in bare.json()["detail"]
    assert Item.objects.get(ibi=ibi).collection.slug == "general"
    moved = librarian_api.patch(ITEMS + ibi, {"collection": "teses-ppgc", "metadata": THESIS},
                                format="json", secure=True)
    assert moved.status_code == 200, moved.json()
    assert moved.json()["collection"] == "teses-ppgc"


def test_the_default_profile_keeps_todays_fields_and_refuses_others(librarian_api, media):
    ok = make.posted(librarian_api, title="Um artigo", creator=["Banon, G."],
                     subject=["x"], date=["2013"])
    assert ok.status_code == 201, ok.json()
    refused = make.posted(librarian_api, title="Outro", metadata=[json.dumps(
        [{"field": "dc.contributor.advisor", "value": "Souza, João"}])])
    assert refused.status_code == 400
    assert "dc.contributor.advisor" in refused.json()["detail"]


def test_an_import_keeps_what_the_source_says_whatever_the_profile(theses):
    item = make.item(dc={"dc.date.accessioned": ["2020-01-01T00:00:00Z"]}, collection=theses)
    assert item.dc_values.get().field.name == "dc.date.accessioned"


def test_the_profile_is_read_at_the_collections_profile(anonymous_api, theses):
    response = anonymous_api.get("/api/collections/teses-ppgc/profile", secure=True)
    assert response.status_code == 200
    body = response.json()
    assert (body["slug"], body["collection"]) == ("tese", "teses-ppgc")
    fields = {(f["field"], f["language"]): f for f in body["fields"]}
    assert fields[("dc.contributor.author", "")]["authority"] == "lattes-orcid"
    assert fields[("dc.description.abstract", "en")]["required"] is True
    levels = fields[("local.degree.level", "")]
    assert levels["input_type"] == "controlled"
    assert {t["value"] for t in levels["terms"]} >= {"mestrado", "doutorado"}
    assert fields[("dc.publisher.program", "")]["terms"] is None
    general = anonymous_api.get("/api/collections/general/profile", secure=True).json()
    assert general["slug"] == "padrao"
    assert [f["field"] for f in general["fields"]][:2] == ["dc.creator", "dc.date"]
    assert anonymous_api.get("/api/collections/nope/profile", secure=True).status_code == 404
    schema = anonymous_api.get("/api/schema/", {"format": "json"}, secure=True).json()
    properties = schema["components"]["schemas"]["Profile"]["properties"]
    assert set(properties) == set(body)
    entry = schema["components"]["schemas"]["ProfileEntry"]["properties"]
    assert set(entry) == set(body["fields"][0])


def test_a_librarian_names_a_collections_profile_through_the_api(librarian_api, anonymous_api,
                                                                 theses):
    url = "/api/collections/teses-ppgc"
    assert anonymous_api.get(url, secure=True).json()["profile"] == "tese"
    for refused in ("", "nenhum", 5):
        response = librarian_api.patch(url, {"profile": refused}, format="json", secure=True)
        assert response.status_code == 400 and "profile" in response.json()
    assert librarian_api.patch(url, {"profile": None}, format="json",
                               secure=True).json()["profile"] is None
    theses.refresh_from_db()
    assert theses.profile is None
    assert anonymous_api.get(url + "/profile", secure=True).json()["slug"] == "padrao"


def test_the_check_refuses_and_keeps_what_was_stored():
    level = Entry("local.degree.level", required=True, repeatable=False,
                  terms=(), vocabulary="degree-level")
    stored = {"local.degree.level": [Row("old")], "dc.date.accessioned": [Row("2020")]}
    check([level], {"local.degree.level": [Row("old")]}, stored)  # unchanged: kept
    with pytest.raises(ProfileRefusal) as refused:
        check([level], {"local.degree.level": [Row("new")]}, stored)
    assert refused.value.field == "local.degree.level"
    with pytest.raises(ProfileRefusal, match="required"):
        check([level], {"local.degree.level": []}, stored)


def test_the_thesis_entered_in_the_admin_is_the_same_through_the_api(librarian_api, theses,
                                                                     media):
    from tests.test_admin_profiles import STORED

    metadata = [{"field": field, "value": value, "language": language, "authority": authority}
                for field, value, language, authority in sorted(STORED)]
    response = make.posted_metadata(librarian_api, metadata, title="Uma tese",
                                    collection="teses-ppgc", language="pt-BR")
    assert response.status_code == 201, response.json()
    assert stored(Item.objects.get(ibi=response.json()["ibi"])) == STORED
