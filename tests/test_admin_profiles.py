"""The item admin follows the owning collection's submission profile (issue 34, point 3): a
thesis collection's form has MTD-BR's fields (qualified, in their languages, with authority
ids), refuses what the profile refuses as a form error naming the field, and saves nothing
then; librarians edit profiles in the admin. (The same thesis through a browser in pt-BR:
tests/test_browser_thesis_pt.py; through the API: tests/test_profiles.py.)"""
from __future__ import annotations

import re

import pytest

from archive.models import Item, ProfileField, SubmissionProfile, Vocabulary, VocabularyTerm
from archive.profiles import cnpq
from tests import factories as make

pytestmark = pytest.mark.django_db

LATTES = "4727357182510680"
ORCID = "0000-0002-1825-0097"

# The thesis form as a librarian fills it: each field of the profile "tese".
THESIS_FORM = {
    "md_dc_contributor_author": f"Silva, Maria | {LATTES}",
    "md_dc_title_alternative_en": "A thesis",
    "md_dc_contributor_advisor": f"Souza, João | http://lattes.cnpq.br/{LATTES}",
    "md_dc_contributor_advisor_co": f"Lima, Ana | {ORCID}",
    "md_dc_contributor_referee": f"Lins, Rui\nCosta, Ana | {ORCID}",
    "dc_publisher": "Universidade Federal do Rio Grande do Sul",
    "md_dc_publisher_initials": "UFRGS",
    "md_dc_publisher_country": "Brasil",
    "md_dc_publisher_program": "Programa de Pós-Graduação em Computação",
    "md_dc_publisher_department": "Instituto de Informática",
    "md_local_degree_level": "doutorado",
    "md_local_degree_name": "Doutor em Ciência da Computação",
    "md_dc_date_issued": "2024-03-15",
    "md_dc_subject_cnpq": ["1.03.00.00-7", "1.03.03.00-6"],
    "md_dc_subject_pt_br": "repositórios\nteses",
    "md_dc_subject_en": "repositories",
    "md_dc_description_abstract_pt_br": "Um resumo.\n\nSegundo parágrafo.",
    "md_dc_description_abstract_en": "An abstract.",
    "md_dc_identifier_citation": "SILVA, Maria. Uma tese. 2024.",
    "dc_type": "", "dc_type_other": "", "dc_rights": "", "dc_rights_other": "",
}

STORED = {
    ("dc.contributor.author", "Silva, Maria", "", LATTES),
    ("dc.title.alternative", "A thesis", "en", ""),
    ("dc.contributor.advisor", "Souza, João", "", LATTES),
    ("dc.contributor.advisor-co", "Lima, Ana", "", ORCID),
    ("dc.contributor.referee", "Lins, Rui", "", ""),
    ("dc.contributor.referee", "Costa, Ana", "", ORCID),
    ("dc.publisher", "Universidade Federal do Rio Grande do Sul", "", ""),
    ("dc.publisher.initials", "UFRGS", "", ""),
    ("dc.publisher.country", "Brasil", "", ""),
    ("dc.publisher.program", "Programa de Pós-Graduação em Computação", "", ""),
    ("dc.publisher.department", "Instituto de Informática", "", ""),
    ("local.degree.level", "Doutorado", "", "doutorado"),
    ("local.degree.name", "Doutor em Ciência da Computação", "", ""),
    ("dc.date.issued", "2024-03-15", "", ""),
    ("dc.subject.cnpq", "Ciência da Computação", "", "1.03.00.00-7"),
    ("dc.subject.cnpq", "Metodologia e Técnicas da Computação", "", "1.03.03.00-6"),
    ("dc.subject", "repositórios", "pt-BR", ""),
    ("dc.subject", "teses", "pt-BR", ""),
    ("dc.subject", "repositories", "en", ""),
    ("dc.description.abstract", "Um resumo.\n\nSegundo parágrafo.", "pt-BR", ""),
    ("dc.description.abstract", "An abstract.", "en", ""),
    ("dc.identifier.citation", "SILVA, Maria. Uma tese. 2024.", "", ""),
}


def stored(item: Item) -> set[tuple]:
    return {(v.field.name, v.value, v.language, v.authority)
            for v in item.dc_values.select_related("field__schema")}


@pytest.fixture
def theses():
    return make.collection("teses-ppgc", make.community("ppgc"),
                           profile=SubmissionProfile.objects.get(slug="tese"))


def test_a_thesis_is_deposited_and_changed_through_the_profiles_form(librarian_client, theses):
    listed = librarian_client.get("/admin/archive/collection/", secure=True).content.decode()
    assert f'href="/admin/archive/item/add/?collection={theses.pk}"' in listed
    page = librarian_client.get(f"/admin/archive/item/add/?collection={theses.pk}", secure=True)
    form = page.context["adminform"].form
    assert "md_dc_contributor_advisor" in form.fields and "dc_creator" not in form.fields
    assert form.fields["md_local_degree_level"].required
    response = make.admin_deposit(librarian_client, title="Uma tese", language="pt-BR",
                                  collection=theses.pk, **THESIS_FORM)
    assert response.status_code == 302, response.context["adminform"].form.errors
    item = Item.objects.get(title="Uma tese")
    assert item.collection == theses and stored(item) == STORED
    # The change form shows each value where it was entered, and saving it keeps them all.
    change = librarian_client.get(f"/admin/archive/item/{item.pk}/change/", secure=True)
    initial = change.context["adminform"].form.initial
    assert initial["md_dc_contributor_referee"] == f"Lins, Rui\nCosta, Ana | {ORCID}"
    assert initial["md_dc_subject_cnpq"] == ["1.03.00.00-7", "1.03.03.00-6"]
    assert initial["md_local_degree_level"] == "doutorado"
    saved = librarian_client.post(f"/admin/archive/item/{item.pk}/change/", {
        **THESIS_FORM, "title": "Uma tese", "language": "pt-BR", "transferable": "on",
        "collection": theses.pk, "access_rights": "open",
        "md_dc_subject_en": "repositories\ntheses"}, secure=True)
    assert saved.status_code == 302, saved.context["adminform"].form.errors
    assert stored(item) == STORED | {("dc.subject", "theses", "en", "")}


def test_cnpqs_table_is_offered_as_one_types_not_as_a_select_of_every_area(librarian_client,
                                                                            theses):
    page = librarian_client.get(f"/admin/archive/item/add/?collection={theses.pk}",
                                secure=True).content.decode()
    assert '<select name="md_dc_subject_cnpq"' not in page
    assert '<select name="md_local_degree_level"' in page  # a short list stays a select
    boxes = re.findall(r'<input [^>]*name="md_dc_subject_cnpq"[^>]*>', page)
    assert len(boxes) == 2 and all('list="id_md_dc_subject_cnpq-list"' in b for b in boxes)
    assert re.search(r'<label [^>]*for="id_md_dc_subject_cnpq_0"', page)
    assert 'aria-label="CNPq knowledge area (2)"' in boxes[1] and "required" in boxes[0]
    assert "required" not in boxes[1]  # one area is enough
    offered = re.search(r'<datalist id="id_md_dc_subject_cnpq-list">(.*?)</datalist>', page,
                        re.S).group(1)
    assert offered.count("<option ") == len(cnpq.table())
    assert '<option value="6.01.01.00-8">6.01.01.00-8 Teoria do Direito</option>' in offered


@pytest.mark.parametrize(("typed", "code", "label"), [
    ("6.01.01.00-8", "6.01.01.00-8", "Teoria do Direito"),
    ("6.01.01.00-8 Teoria do Direito", "6.01.01.00-8", "Teoria do Direito"),
    ("teoria do direito", "6.01.01.00-8", "Teoria do Direito"),
    ("1.07.02.10-5 Gravimetria", "1.07.02.10-5", "Gravimetria"),  # another area's label too
])
def test_an_area_is_stored_by_its_code_however_it_was_typed(librarian_client, theses, typed,
                                                            code, label):
    response = make.admin_deposit(librarian_client, title="Uma tese", collection=theses.pk,
                                  **{**THESIS_FORM, "md_dc_subject_cnpq": ["", typed, ""]})
    assert response.status_code == 302, response.context["adminform"].form.errors
    item = Item.objects.get(title="Uma tese")
    assert {(v.value, v.authority) for v in item.dc_values.filter(
        field__qualifier="cnpq")} == {(label, code)}
    # Drawn again with its value in the first box, and saved again as it is.
    change = librarian_client.get(f"/admin/archive/item/{item.pk}/change/", secure=True)
    assert f'id="id_md_dc_subject_cnpq_0" list="id_md_dc_subject_cnpq-list" ' \
           f'name="md_dc_subject_cnpq" size="60" type="text" value="{code}"' in \
        change.content.decode()


@pytest.mark.parametrize("typed", ["Direito digital", "Gravimetria"])  # the latter: two areas'
def test_an_area_not_in_the_table_or_a_shared_label_is_a_form_error(librarian_client, theses,
                                                                    typed):
    response = make.admin_deposit(librarian_client, title="Uma tese", collection=theses.pk,
                                  **{**THESIS_FORM, "md_dc_subject_cnpq": [typed]})
    assert response.status_code == 200
    assert typed in " ".join(response.context["adminform"].form.errors["md_dc_subject_cnpq"])
    assert not Item.objects.filter(title="Uma tese").exists()


@pytest.mark.parametrize(("change", "field", "named"), [
    ({"md_dc_contributor_advisor": ""}, "md_dc_contributor_advisor", ""),
    ({"md_dc_contributor_advisor": "Souza, João | 47273571825"}, "md_dc_contributor_advisor",
     "Lattes"),
    ({"md_dc_contributor_advisor": "Souza, João | 0000-0002-1825-0096"},
     "md_dc_contributor_advisor", "ORCID"),
    ({"md_dc_contributor_author": "Silva, Maria | 3c2a1b4e-9d1f-4f0a"},
     "md_dc_contributor_author", "dc.contributor.author"),
    ({"md_local_degree_level": "bacharelado"}, "md_local_degree_level", ""),
    ({"md_dc_date_issued": "15/03/2024"}, "md_dc_date_issued", "15/03/2024"),
])
def test_what_the_profile_refuses_is_a_form_error_of_its_field(librarian_client, theses,
                                                                media, change, field, named):
    response = make.admin_deposit(librarian_client, title="Uma tese", collection=theses.pk,
                                  **{**THESIS_FORM, **change})
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert field in errors and named in " ".join(errors[field])
    assert not Item.objects.filter(title="Uma tese").exists()
    assert list(media.rglob("*.pdf")) == []


def test_librarians_edit_profiles_in_the_admin(librarian_client):
    profile = SubmissionProfile.objects.get(slug="tese")
    page = librarian_client.get(f"/admin/archive/submissionprofile/{profile.pk}/change/",
                                secure=True)
    assert page.status_code == 200 and "dc.contributor.advisor" in page.content.decode()
    entry = ProfileField.objects.get(profile=profile, field__qualifier="department")
    data = {"slug": "tese", "name_pt_br": profile.name_pt_br, "name_en": profile.name_en,
            "description": profile.description}
    inline = page.context["inline_admin_formsets"][0].formset
    data.update({f"{inline.prefix}-TOTAL_FORMS": str(len(inline.forms)),
                 f"{inline.prefix}-INITIAL_FORMS": str(len(inline.initial_forms)),
                 f"{inline.prefix}-MIN_NUM_FORMS": "0", f"{inline.prefix}-MAX_NUM_FORMS": "1000"})
    for n, form in enumerate(inline.forms):
        for name, field in form.fields.items():
            value = form.initial.get(name, field.initial)
            if isinstance(value, bool):
                if value:
                    data[f"{inline.prefix}-{n}-{name}"] = "on"
            elif value is not None:
                data[f"{inline.prefix}-{n}-{name}"] = getattr(value, "pk", value)
        if form.instance.pk == entry.pk:
            data[f"{inline.prefix}-{n}-required"] = "on"
    response = librarian_client.post(f"/admin/archive/submissionprofile/{profile.pk}/change/",
                                     data, secure=True)
    assert response.status_code == 302, response.context["inline_admin_formsets"][0].formset.errors
    entry.refresh_from_db()
    assert entry.required


def test_a_controlled_list_needs_its_vocabulary_and_only_it_has_one():
    from django.core.exceptions import ValidationError

    entry = ProfileField.objects.get(profile__slug="tese", field__qualifier="department")
    entry.input_type = ProfileField.InputType.CONTROLLED
    with pytest.raises(ValidationError) as refused:
        entry.full_clean()
    assert set(refused.value.message_dict) == {"vocabulary"}
    level = ProfileField.objects.get(profile__slug="tese", field__qualifier="level")
    level.input_type, level.authority = ProfileField.InputType.TEXT, "lattes"
    with pytest.raises(ValidationError) as refused:
        level.full_clean()
    assert set(refused.value.message_dict) == {"vocabulary", "authority"}


def test_without_a_default_profile_the_form_is_todays_and_checks_nothing_more(
        librarian_client, media):
    SubmissionProfile.objects.filter(slug="padrao").delete()
    page = librarian_client.get("/admin/archive/item/add/", secure=True)
    assert "dc_creator" in page.context["adminform"].form.fields
    response = make.admin_deposit(librarian_client, title="Sem perfil", dc_subject="x",
                                  dc_type="", dc_rights="")
    assert response.status_code == 302, response.context["adminform"].form.errors
    item = Item.objects.get(title="Sem perfil")
    assert item.dc("subject") == ["x"]
    change = librarian_client.get(f"/admin/archive/item/{item.pk}/change/", secure=True)
    assert change.status_code == 200


def test_a_long_vocabulary_is_kept_on_a_searchable_list_a_short_one_on_its_page(
        librarian_client):
    areas = Vocabulary.objects.get(slug="cnpq")
    page = librarian_client.get(f"/admin/archive/vocabulary/{areas.pk}/change/", secure=True)
    assert page.status_code == 200 and page.context["inline_admin_formsets"] == []
    listed = f"/admin/archive/vocabularyterm/?vocabulary__id__exact={areas.pk}"
    assert f'<a href="{listed}">{len(cnpq.table())} terms:' in page.content.decode()
    levels = Vocabulary.objects.get(slug="degree-level")
    page = librarian_client.get(f"/admin/archive/vocabulary/{levels.pk}/change/", secure=True)
    assert len(page.context["inline_admin_formsets"][0].formset.initial_forms) == 4
    found = librarian_client.get(listed + "&q=%22teoria+do+direito%22", secure=True)
    assert [t.value for t in found.context["cl"].result_list] == ["6.01.01.00-8"]
    term = VocabularyTerm.objects.get(vocabulary=areas, value="6.01.01.00-8")
    saved = librarian_client.post(f"/admin/archive/vocabularyterm/{term.pk}/change/", {
        "vocabulary": areas.pk, "position": term.position, "value": term.value,
        "label_pt_br": "Teoria do Direito", "label_en": "Theory of Law"}, secure=True)
    assert saved.status_code == 302
    term.refresh_from_db()
    assert term.label_en == "Theory of Law"
