"""The deposit form's controlled values: type and rights from vocabularies (stored as URIs,
other values kept), an ISO 8601 / EDTF level 0 date and a BCP 47 tag, refused alike by the
admin and the API; the pickers' edition and date; the admin in Portuguese."""
from __future__ import annotations

import importlib

import pytest
from django.apps import apps as django_apps
from django.utils import translation

from archive.deposit import controlled, services, values
from archive.metadata import vocabularies
from archive.models import Item
from tests import factories as make

ADD = "/admin/archive/item/add/"
ITEMS = "/api/items/"
PT = {"HTTP_ACCEPT_LANGUAGE": "pt-BR,pt;q=0.9"}
TECHNICAL_REPORT = "http://purl.org/coar/resource_type/c_18gh"
CC_BY = "https://creativecommons.org/licenses/by/4.0/"


# -- The pure checks -----------------------------------------------------------------------------

@pytest.mark.parametrize("date", ["2013", "2013-09", "2013-09-04", "2013/2014",
                                  "2013-09-04/2013-09-30", "2013-09-04T10:30:00Z", "0800"])
def test_iso_8601_dates_of_edtf_level_0_are_dates(date):
    assert values.is_date(date)


@pytest.mark.parametrize("date", ["", "13", "2013-02-30", "2013-13", "04/09/2013",
                                  "setembro de 2013", "2014/2013", "2013?", "2013-21",
                                  "../2013", "2013-9-4", " 2013"])
def test_other_dates_are_not(date):
    assert not values.is_date(date)


@pytest.mark.parametrize(("tag", "valid"), [
    ("pt-BR", True), ("pt-br", True), ("en", True), ("es-419", True), ("zh-Hant-TW", True),
    ("gn", True), ("x-klingon", False), ("pt_BR", False), ("xx-YY", False), ("english", False),
    ("pt-BR-BR", False), ("e", False)])
def test_language_tags_are_bcp_47_as_the_registry_knows_it(tag, valid):
    """The deposit's one rule (models.validate_language), which the admin's form uses too."""
    try:
        services.clean_language(tag)
    except services.ServiceError:
        assert not valid
    else:
        assert valid


def test_every_type_choice_is_a_coar_type_the_formats_read():
    for uri, _label in vocabularies.TYPE_CHOICES:
        assert vocabularies.kind_of(uri).coar_uri == uri
    assert vocabularies.kind_of(TECHNICAL_REPORT).datacite == "Report"


def test_licences_are_found_by_url_in_either_scheme_or_by_spdx_id():
    assert vocabularies.licence_of("cc-by-4.0").uri == CC_BY
    assert vocabularies.licence_of("http://creativecommons.org/licenses/by/4.0").uri == CC_BY
    assert vocabularies.licence_of("CC0-1.0").uri.endswith("/publicdomain/zero/1.0/")
    assert vocabularies.licence_of("All rights reserved") is None  # free text stays text
    assert len({licence.uri for licence in vocabularies.LICENCES}) == len(vocabularies.LICENCES)


# -- The admin -------------------------------------------------------------------------------

def test_the_type_and_licence_chosen_are_stored_as_their_uris(librarian_client):
    response = make.admin_deposit(librarian_client, ("a.txt", b"x", "text/plain"),
                                  title="Relatório", meta=PT, dc_type=TECHNICAL_REPORT,
                                  dc_rights=CC_BY, dc_type_other="Relatório técnico",
                                  dc_date="2013-09-04")
    assert response.status_code == 302, response.content.decode()[:2000]
    item = Item.objects.get(title="Relatório")
    assert item.dc("type") == [TECHNICAL_REPORT]  # the label typed again is the same type
    assert item.dc("rights") == [CC_BY]
    assert item.dc("date") == ["2013-09-04"]


def test_free_text_stored_before_stays_visible_and_is_kept_on_save(librarian_client):
    item = make.item(title="Old", dc={
        "type": ["Relatório técnico-científico",
                 TECHNICAL_REPORT], "rights": ["All rights reserved"]}, bare=True)
    # A date written before dates were checked.
    make.dc_value(item, "date", value="setembro de 2013", position=0)
    url = f"/admin/archive/item/{item.pk}/change/"
    form = librarian_client.get(url, secure=True).context["adminform"].form
    assert form.initial["dc_type"] == TECHNICAL_REPORT
    assert form.initial["dc_type_other"] == "Relatório técnico-científico"
    assert form.initial["dc_rights"] == ""
    assert form.initial["dc_rights_other"] == "All rights reserved"
    response = librarian_client.post(url, {
        "title": "Old, renamed", "transferable": "on", "dc_type": TECHNICAL_REPORT,
        "dc_type_other": "Relatório técnico-científico", "dc_rights_other": "All rights reserved",
        "dc_date": "setembro de 2013"}, secure=True)
    assert response.status_code == 302, response.content.decode()[:2000]
    item.refresh_from_db()
    assert item.title == "Old, renamed"
    assert item.dc("type") == [TECHNICAL_REPORT, "Relatório técnico-científico"]
    assert item.dc("rights") == ["All rights reserved"]
    assert item.dc("date") == ["setembro de 2013"]


def test_a_choice_not_in_the_vocabulary_is_a_form_error(librarian_client):
    response = make.admin_deposit(librarian_client, ("a.txt", b"x", "text/plain"),
                                  title="Relatório", meta=PT, dc_type="http://example.org/not-a-type")
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["dc_type"]


@pytest.mark.parametrize("date", ["04/09/2013", "2013-02-30", "setembro de 2013"])
def test_a_date_that_is_not_iso_8601_is_a_form_error_in_portuguese(librarian_client, date):
    response = make.admin_deposit(librarian_client, ("a.txt", b"x", "text/plain"),
                                  title="Relatório", meta=PT, dc_date=date)
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors["dc_date"]
    assert errors == [f"{date!r} não é uma data: escreva-a em ISO 8601, p. ex. "
                      "2013, 2013-09, 2013-09-04, 2013/2014"]
    assert not Item.objects.filter(title="Relatório").exists()


@pytest.mark.parametrize("tag", ["pt_BR", "xx-YY", "português"])
def test_a_language_that_is_not_a_bcp_47_tag_is_a_form_error(librarian_client, tag):
    response = make.admin_deposit(librarian_client, ("a.txt", b"x", "text/plain"),
                                  title="Relatório", meta=PT, language=tag)
    assert response.status_code == 200
    error = response.context["adminform"].form.errors["language"][0]
    assert "etiqueta de idioma BCP 47" in error
    assert tag != "pt_BR" or "escreva pt-BR" in error


def test_the_language_box_offers_common_languages_by_name_and_takes_any_tag(librarian_client):
    page = librarian_client.get(ADD, secure=True, **PT).content.decode()
    assert 'list="id_language-list"' in page
    assert '<option value="pt-BR">Português (Brasil)</option>' in page
    assert '<option value="en">Inglês</option>' in page
    assert make.admin_deposit(librarian_client, ("a.txt", b"x", "text/plain"), title="Relatório",
                              meta=PT, language="gn").status_code == 302  # Guarani, not offered
    assert Item.objects.get(title="Relatório").language == "gn"


def test_the_deposit_form_speaks_portuguese(librarian_client):
    page = librarian_client.get(ADD, secure=True, **PT).content.decode()
    for text in ("Título", "Idioma", "Arquivo principal", "Edição anterior", "Tradução de",
                 "Autor", "Direitos", "Outros tipos", "Relatório técnico",
                 "Creative Commons Atribuição 4.0 (CC BY 4.0)", "Salvar", "Adicionar item"):
        assert text in page, text
    for text in ("Title", "Target file", "Previous edition", "Technical report"):
        assert f">{text}" not in page, text


def test_the_item_list_and_filters_speak_portuguese(librarian_client):
    make.item(title="Um item", bare=True)
    page = librarian_client.get("/admin/archive/item/", secure=True, **PT).content.decode()
    for text in ("Título", "Nome de repositório", "Estado", "Idioma", "Última atualização",
                 "Por estado", "Por idioma", "Selecione item para modificar"):
        assert text in page, text


# -- The API refuses the same ------------------------------------------------------------------

@pytest.mark.parametrize(("field", "value", "says"), [
    ("date", "04/09/2013", "is not a date"),
    ("date", "2014/2013", "is not a date"),
    ("language", "pt_BR", "not a BCP 47 language tag: write pt-BR"),
    ("language", "xx-YY", "is not a BCP 47 language tag"),
])
def test_the_api_refuses_the_same_dates_and_tags_with_a_400(librarian_api, field, value, says):
    response = make.posted(librarian_api, ("a.txt", b"x", "text/plain"), title="Relatório",
                           **{field: value})
    assert response.status_code == 400
    assert says in response.json()["detail"]
    assert not Item.objects.filter(title="Relatório").exists()


def test_the_api_stores_a_licence_url_and_a_coar_type_as_given(librarian_api):
    response = make.posted(librarian_api, ("a.txt", b"x", "text/plain"), title="Relatório",
                           type=[TECHNICAL_REPORT], rights=[CC_BY], date=["2013-09"],
                           language="pt-br")
    assert response.status_code == 201, response.json()
    record = response.json()
    assert (record["type"], record["rights"], record["date"], record["language"]) == (
        [TECHNICAL_REPORT], [CC_BY], ["2013-09"], "pt-BR")


@pytest.mark.parametrize(("element", "given", "uri"), [
    ("type", "technical report", TECHNICAL_REPORT),
    ("type", "Technical Report", TECHNICAL_REPORT),
    ("type", "Relatório técnico", TECHNICAL_REPORT),
    ("type", "relatorio tecnico", TECHNICAL_REPORT),
    ("type", "https://purl.org/coar/resource_type/c_18gh/", TECHNICAL_REPORT),
    ("type", "Dissertação de mestrado", "http://purl.org/coar/resource_type/c_bdcc"),
    ("type", "book part", "http://purl.org/coar/resource_type/c_3248"),
    ("rights", "CC BY 4.0", CC_BY),
    ("rights", "cc-by-4.0", CC_BY),
    ("rights", "http://creativecommons.org/licenses/by/4.0", CC_BY),
    ("rights", "Creative Commons Atribuição 4.0 (CC BY 4.0)", CC_BY),
    ("rights", "Protegido por direitos autorais: todos os direitos reservados",
     "http://rightsstatements.org/vocab/InC/1.0/"),
])
def test_a_type_or_licence_given_by_its_label_in_either_language_is_stored_as_its_uri(
        librarian_api, element, given, uri):
    response = make.posted(librarian_api, ("a.txt", b"x", "text/plain"), title="Relatório",
                           **{element: [given, "Something else"]})
    assert response.status_code == 201, response.json()
    assert response.json()[element] == [uri, "Something else"]
    assert Item.objects.get(title="Relatório").dc(element) == [uri, "Something else"]


def test_one_type_named_twice_is_stored_once(librarian_api):
    item = make.item(title="Twice", bare=True,
                     dc={"type": ["technical report", "Relatório técnico", TECHNICAL_REPORT]})
    assert item.dc("type") == [TECHNICAL_REPORT]
    url = f"{ITEMS}{item.ibi}"
    patched = librarian_api.patch(url, {"type": ["Relatório técnico", "Dataset", "dataset"]},
                                  format="json", secure=True)
    assert patched.status_code == 200, patched.json()
    assert item.dc("type") == [TECHNICAL_REPORT, "http://purl.org/coar/resource_type/c_ddb1"]


def test_a_patch_keeps_an_old_date_but_refuses_a_new_bad_one(librarian_api):
    item = make.item(title="Old", bare=True)
    make.dc_value(item, "date", value="setembro de 2013", position=0)
    url = f"{ITEMS}{item.ibi}"
    kept = librarian_api.patch(url, {"date": ["setembro de 2013"]}, format="json", secure=True)
    assert kept.status_code == 200, kept.json()
    refused = librarian_api.patch(url, {"date": ["outubro de 2013"]}, format="json",
                                  secure=True)
    assert refused.status_code == 400 and "is not a date" in refused.json()["detail"]
    assert item.dc("date") == ["setembro de 2013"]


# -- The pickers -------------------------------------------------------------------------------

def test_the_pickers_show_edition_and_date_in_the_librarians_language(librarian_client):
    first = make.item(title="Relatório técnico", dc={"date": ["2013-09-04"]}, bare=True)
    second = make.item(title="Relatório técnico", previous_edition=first, dc={"date": ["2014"]},
                       bare=True)
    url = ("/admin/autocomplete/?app_label=archive&model_name=item"
           "&field_name=previous_edition&term=relatório técnico")
    results = librarian_client.get(url, secure=True, **PT).json()["results"]
    assert results == [
        {"id": str(first.pk), "text": f"Relatório técnico — 1ª edição, 2013-09-04 · {first.ibi}"},
        {"id": str(second.pk), "text": f"Relatório técnico — 2ª edição, 2014 · {second.ibi}"},
    ]
    english = librarian_client.get(url, secure=True, HTTP_ACCEPT_LANGUAGE="en").json()["results"]
    assert english[1]["text"] == f"Relatório técnico — edition 2, 2014 · {second.ibi}"


def test_a_stored_uri_reads_as_its_name_in_the_readers_language():
    from django.template import Context, Template
    from django.utils import translation

    page = Template("{% load ibi_vocabularies %}{{ a|vocabulary_label }} | "
                    "{{ b|vocabulary_label }} | {{ c|vocabulary_label }}")
    values = Context({"a": TECHNICAL_REPORT, "b": CC_BY, "c": "Relatório <técnico>"})
    with translation.override("pt-br"):
        assert page.render(values) == ("Relatório técnico | Creative Commons Atribuição 4.0 "
                                       "(CC BY 4.0) | Relatório &lt;técnico&gt;")
    with translation.override("en"):
        assert page.render(values).startswith("Technical report | Creative Commons Attribution")


def test_the_administrators_pages_name_models_and_archives_in_portuguese(admin_client):
    from archive.models import RegisteredArchive

    RegisteredArchive.objects.create(archive_service_ibi="ibi.test/b/2026/11.21.14.10.59",
                                     key_hash="0", included=True)
    index = admin_client.get("/admin/", secure=True, **PT).content.decode()
    for text in ("Itens", "Arquivos de itens", "Arquivos registrados",
                 "Estados da geração de IBIs"):
        assert text in index, text
    archives = admin_client.get("/admin/archive/registeredarchive/", secure=True,
                                **PT).content.decode()
    for text in ("IBI do serviço de arquivo", "Ligado em", "Por ligado",
                 "ibi.test/b/2026/11.21.14.10.59 (ligado)"):
        assert text in archives, text


def test_the_pickers_read_the_dates_in_one_query(librarian_client, django_assert_max_num_queries):
    for number in range(5):
        make.item(title=f"Atlas {number}", dc={"date": ["2013"]}, bare=True)
    url = ("/admin/autocomplete/?app_label=archive&model_name=item"
           "&field_name=translation_of&term=atlas")
    # The session, the user, permissions, the count, the page, and all the dates at once.
    with django_assert_max_num_queries(8):
        results = librarian_client.get(url, secure=True).json()["results"]
    assert len(results) == 5 and all(", 2013 · " in r["text"] for r in results)


@pytest.mark.django_db
def test_the_migration_stores_the_labels_deposited_before_as_their_uris():
    """0018_controlled_values: free text that names a choice becomes its URI, once."""
    migration = importlib.import_module("archive.migrations.0018_controlled_values")
    item = make.item(title="Old", bare=True)
    other = make.item(title="Other", bare=True)
    for position, value in enumerate(["technical report", "Relatório Técnico",
                                      "https://purl.org/coar/resource_type/c_18gh/",
                                      "Relatório técnico-científico"]):
        make.dc_value(item, "type", value=value, position=position)
    for position, value in enumerate(["CC BY 4.0", "All rights reserved"]):
        make.dc_value(item, "rights", value=value, position=position)
    make.dc_value(other, "type", value="conjunto de dados", position=0)
    make.dc_value(other, "subject", value="technical report", position=0)
    migration.forwards(django_apps, None)
    assert item.dc("type") == [TECHNICAL_REPORT, "Relatório técnico-científico"]
    assert item.dc("rights") == [CC_BY, "All rights reserved"]
    assert other.dc("type") == ["http://purl.org/coar/resource_type/c_ddb1"]
    assert other.dc("subject") == ["technical report"]
    # Each label the migration knows is what the deposit services read today.
    for code in ("en", "pt-br"):
        with translation.override(code):
            for uri, label in controlled.TYPE_CHOICES:
                assert migration.uri_of("type", translation.gettext(label)) == uri
            for licence in controlled.LICENCES:
                assert migration.uri_of("rights", translation.gettext(licence.label)) == (
                    licence.uri)


def test_one_type_is_one_facet_entry_named_in_the_readers_language(librarian_api, reader):
    """A technical report deposited through the API in English and one through the admin's
    Portuguese label are one type: one facet entry, two items, named for the reader."""
    assert make.posted(librarian_api, ("a.txt", b"x", "text/plain"), title="Report in English",
                       type=["technical report"]).status_code == 201
    make.item(title="Relatório em português", bare=True, dc={"type": ["Relatório técnico"]})
    page = reader.get("/search", headers={"Accept-Language": "pt-BR"}).content.decode()
    facet = page[page.index("<h3>Tipo</h3>"):]
    facet = facet[:facet.index("</ul>")]
    assert facet.count("<li>") == 1, facet
    assert ">Relatório técnico</a> <span class=\"count\">(2)</span>" in facet
    assert "technical report" not in page.lower()
