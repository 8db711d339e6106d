"""Finding items in the admin's list (issue 43): by an old Handle, a DOI in any spelling, a
creator or a subject; narrowing by type, access level, collection and year; the selected
items downloaded as CSV and as BibTeX that csv and bibtexparser read; the pickers naming each
candidate by its title and IBI."""
from __future__ import annotations

import csv
import io

import bibtexparser
import pytest
from bibtexparser.middlewares import LatexDecodingMiddleware
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from archive.deposit import links
from archive.deposit.services import Access
from archive.models import DcValue
from archive.search import lookup
from tests import factories as make

pytestmark = pytest.mark.django_db

LIST = "/admin/archive/item/"
PICKER = {"app_label": "archive", "model_name": "item", "field_name": "translation_of"}
ARTICLE = "http://purl.org/coar/resource_type/c_6501"
REPORT = "http://purl.org/coar/resource_type/c_18gh"


def found(client, **query) -> list[int]:
    """The ids of the items the admin's list shows for this query (its search and filters)."""
    page = client.get(LIST, query, secure=True)
    assert page.status_code == 200
    return sorted(item.pk for item in page.context["cl"].result_list)


def exported(client, action: str, items) -> tuple:
    response = client.post(LIST, {"action": action, "_selected_action": [i.pk for i in items],
                                  "index": "0"}, secure=True)
    assert response.status_code == 200
    return response, b"".join(response.streaming_content).decode()


# -- Search ----------------------------------------------------------------------------------

@pytest.mark.parametrize("spelling", [
    "123456789/4242", "hdl:123456789/4242", "http://hdl.handle.net/123456789/4242",
    "https://repositorio.example.br/handle/123456789/4242", " 123456789/4242 "])
def test_an_old_handle_in_any_spelling_finds_its_item(librarian_client, spelling):
    item = make.from_dspace(make.item(title="Relatório de 2004"), handle="123456789/4242")
    make.from_dspace(make.item(title="Outro"), handle="123456789/42")

    assert found(librarian_client, q=spelling) == [item.pk]


@pytest.mark.parametrize("spelling", [
    "10.1590/S0102-261X2020000100007", "doi:10.1590/s0102-261x2020000100007",
    "DOI: 10.1590/S0102-261X2020000100007", "https://doi.org/10.1590/s0102-261x2020000100007",
    "http://dx.doi.org/10.1590/S0102-261X2020000100007"])
@pytest.mark.parametrize("stored", [
    "https://doi.org/10.1590/S0102-261X2020000100007", "10.1590/s0102-261x2020000100007",
    "doi:10.1590/S0102-261X2020000100007"])
def test_a_doi_in_any_spelling_finds_the_item_whatever_spelling_it_was_stored_in(
        librarian_client, spelling, stored):
    item = make.item(title="Mapas", dc={"identifier": [stored]})
    make.item(title="Outro", dc={"identifier": ["10.1590/s0102-261x2020000100008"]})

    assert found(librarian_client, q=spelling) == [item.pk]


def test_a_doi_is_found_through_the_index_of_identifiers():
    make.item(title="Mapas", dc={"identifier": ["https://doi.org/10.1000/182"]})
    with CaptureQueriesContext(connection) as queries:
        assert lookup.items_named("doi:10.1000/182").count() == 1
    (lookup_sql,) = [q["sql"] for q in queries if "archive_dcvalue" in q["sql"]]
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # A handful of rows: PostgreSQL would read the table; a million are read by index.
            cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute(f"EXPLAIN QUERY PLAN {lookup_sql}" if connection.vendor == "sqlite"
                       else f"EXPLAIN {lookup_sql}")
        plan = " ".join(str(row) for row in cursor.fetchall())
    assert "dcvalue_identifier_lower" in plan


def test_an_imported_articles_handle_and_doi_find_it(librarian_client, tmp_path):
    article = make.dspace_article(tmp_path)

    for term in (make.ARTICLE_HANDLE, f"https://doi.org/{make.ARTICLE_DOI.upper()}",
                 article.ibi.upper(), article.ibip):
        assert found(librarian_client, q=term) == [article.pk], term


def test_a_creator_or_a_subject_finds_its_items(librarian_client):
    banon = make.item(title="Relatório", dc={"creator": ["Banon, Gerald"],
                                             "subject": ["sensoriamento remoto"]})
    other = make.item(title="Atlas", dc={"creator": ["Silva, Ana"], "subject": ["cartografia"]})

    assert found(librarian_client, q="Banon") == [banon.pk]
    assert found(librarian_client, q="cartografia") == [other.pk]
    assert found(librarian_client, q="Atlas") == [other.pk]
    assert found(librarian_client, q="ninguém") == []


def test_a_part_of_an_ibi_is_still_searched_as_a_part(librarian_client):
    item = make.item(title="Relatório")
    head = item.ibi.rsplit("/", 1)[0]

    assert item.pk in found(librarian_client, q=head)


def test_a_handle_or_doi_no_item_has_is_searched_as_words(librarian_client):
    make.from_dspace(make.item(title="Relatório"), handle="123456789/1")

    assert lookup.items_named("123456789/999") is None
    assert lookup.items_named("doi:10.1000/999") is None
    assert found(librarian_client, q="123456789/999") == []
    assert found(librarian_client, q="https://doi.org/10.1000/999") == []


# -- Filters ---------------------------------------------------------------------------------

def test_the_list_narrows_by_type_access_collection_and_year(librarian_client):
    top = make.community("inpe")
    theses = make.collection("teses", top)
    article = make.item(title="Artigo", dc={"type": [ARTICLE], "date": ["2019-05"]})
    report = make.item(title="Relatório", dc={"type": [REPORT], "date": ["2013"]},
                       collection=theses, access=Access(rights="restricted"))
    undated = make.item(title="Sem data", dc={"type": [REPORT]})
    this_year = str(timezone.now().year)

    assert found(librarian_client, type=ARTICLE) == [article.pk]
    assert found(librarian_client, type=REPORT) == sorted([report.pk, undated.pk])
    assert found(librarian_client, access_rights__exact="restricted") == [report.pk]
    assert found(librarian_client, collection__id__exact=theses.pk) == [report.pk]
    assert found(librarian_client, year="2019") == [article.pk]
    assert found(librarian_client, year=this_year) == [undated.pk]  # the deposit's year
    assert found(librarian_client, year="2013", type=REPORT) == [report.pk]


def test_the_filters_speak_portuguese_and_offer_the_years_there_are(librarian_client):
    make.item(title="Artigo", dc={"type": [ARTICLE], "date": ["2019-05"]})
    make.item(title="Sem data", bare=True)
    page = librarian_client.get(LIST, secure=True, headers={"Accept-Language": "pt-BR"})
    specs = {spec.title: [choice["display"] for choice in spec.choices(page.context["cl"])]
             for spec in page.context["cl"].filter_specs}

    assert "Artigo de periódico" in specs["tipo"]
    assert specs["ano"][1:] == [str(timezone.now().year), "2019"]  # after "Todos"
    assert {"tipo", "acesso", "coleção", "ano"} <= set(specs)
    assert "restrito" in specs["acesso"]
    assert "(sem idioma)" in specs["idioma"]  # named, not an empty link (axe: link-name)


# -- Exports ---------------------------------------------------------------------------------

def test_the_selected_items_export_as_csv_with_a_header(librarian_client):
    first = make.item(title="Relatório, 2ª ed.", dc={"creator": ["Banon, Gerald", "Banon, Lise"],
                                                     "date": ["2013-09-04"], "type": [REPORT]})
    second = make.item(title="Sem data", bare=True)
    make.item(title="Não selecionado", bare=True)

    response, text = exported(librarian_client, "export_csv", [first, second])
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"].startswith('attachment; filename="items-')
    assert response["Content-Disposition"].endswith('.csv"')
    header, *rows = list(csv.reader(io.StringIO(text)))
    assert header == ["IBI", "IBIp", "title", "creators", "date", "type", "access level",
                      "collection", "persistent URL"]
    assert [row[2] for row in rows] == ["Relatório, 2ª ed.", "Sem data"]
    assert rows[0][:2] == [first.ibi, first.ibip]
    assert rows[0][3:6] == ["Banon, Gerald; Banon, Lise", "2013-09-04", "Technical report"]
    assert rows[0][6] == "open" and rows[0][7] == first.collection.name
    assert rows[0][8].endswith(f"/{first.ibi}")
    assert rows[1][4] == second.created.date().isoformat()  # no dc:date: the deposit's day


def test_a_title_is_never_a_formula_in_the_csv(librarian_client):
    item = make.item(title='=HYPERLINK("http://evil.example","clique")',
                     dc={"creator": ["@Silva", "Souza"]}, bare=True)

    _response, text = exported(librarian_client, "export_csv", [item])
    (row,) = list(csv.reader(io.StringIO(text)))[1:]
    assert row[2] == "'=HYPERLINK(\"http://evil.example\",\"clique\")"
    assert row[3] == "'@Silva; Souza"


def test_the_bibtex_export_is_the_sites_citation_one_entry_an_item(librarian_client, client,
                                                                   tmp_path):
    article = make.dspace_article(tmp_path)
    twin = make.item(title="Mapas e mais", dc={"creator": ["Silva, Ana Paula"],
                                               "date": ["2020"]})
    same_key = make.item(title="Mapas e menos", dc={"creator": ["Silva, Ana Paula"],
                                                    "date": ["2020"]})

    response, text = exported(librarian_client, "export_bibtex", [article, twin, same_key])
    assert response["Content-Type"] == "application/x-bibtex; charset=utf-8"
    assert response["Content-Disposition"].endswith('.bib"')
    library = bibtexparser.parse_string(text, append_middleware=[LatexDecodingMiddleware()])
    assert not library.failed_blocks
    entries = library.entries
    assert len(entries) == 3 and len({entry.key for entry in entries}) == 3
    fields = {name: field.value for name, field in entries[0].fields_dict.items()}
    assert entries[0].entry_type == "article"
    assert fields["journal"] == "Revista Brasileira de Cartografia"
    assert fields["doi"] == make.ARTICLE_DOI
    # The article's entry is the one its own :(bibtex) citation gives.
    own = client.get(links.metadata_url(article.ibi, None, "bibtex"), secure=True)
    assert own.content.decode().strip() in text


def test_only_a_librarian_exports(client):
    item = make.item(title="Relatório", bare=True)
    response = client.post(LIST, {"action": "export_csv", "_selected_action": [item.pk],
                                  "index": "0"}, secure=True)
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


# -- The pickers -----------------------------------------------------------------------------

def test_the_picker_names_each_candidate_by_title_and_ibi(librarian_client):
    item = make.from_dspace(make.item(title="Relatório técnico", dc={"date": ["2013-09-04"]}),
                            handle="123456789/77")
    undated = make.item(title="Relatório técnico sem data", bare=True)

    for term in ("Relatório técnico", "123456789/77", item.ibip):
        results = librarian_client.get("/admin/autocomplete/", {**PICKER, "term": term},
                                       secure=True).json()["results"]
        assert results[0] == {"id": str(item.pk), "text":
                              f"Relatório técnico — edition 1, 2013-09-04 · {item.ibi}"}, term
    results = librarian_client.get("/admin/autocomplete/", {**PICKER, "term": "sem data"},
                                   secure=True).json()["results"]
    assert results == [{"id": str(undated.pk), "text": (
        f"Relatório técnico sem data — edition 1, {undated.created.date().isoformat()} · "
        f"{undated.ibi}")}]
    assert not DcValue.objects.filter(item=undated, element="date").exists()
