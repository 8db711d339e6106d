"""Search (docs/api/search.md): the same search behind /search and /api/items/?search=.

Every test runs on whichever database the suite runs on and asserts that database's
documented behaviour: PostgreSQL's full text (ranked, stemmed in Portuguese and English,
accents ignored, phrases, prefixes) in CI's PostgreSQL pass, SQLite's folded substrings in
the SQLite pass. Both keep the search entries current through their own triggers.
"""
from __future__ import annotations

import base64
import io
import re
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from archive.communities.services import default_collection
from archive.deposit import services
from archive.models import DcValue, Item, ItemSearch
from archive.search import index
from archive.search import selectors as searching
from archive.search.query import Term, fold, parse
from tests import factories as make

pytestmark = pytest.mark.django_db
ITEMS = "/api/items/"
POSTGRES = "postgresql"


def found(q: str) -> list[str]:
    """Titles /search's selector lists for q, in its order."""
    return list(searching.search_items(q=q).values_list("title", flat=True))


def _file() -> SimpleUploadedFile:
    return SimpleUploadedFile("a.txt", b"a")


def page_titles(client, **params) -> list[str]:
    html = client.get("/search", params).content.decode()
    return re.findall(r'<a class="title" href="/items/[^"]+">([^<]+)</a>', html)


# -- Reading the query (pure) ------------------------------------------------------------------

def test_a_query_is_read_into_words_phrases_prefixes_exclusions_and_or():
    assert parse('relat* "Séries  temporais" -draft or chuva') == [
        [Term("prefix", "relat"), Term("phrase", "Séries temporais"),
         Term("word", "draft", negated=True)],
        [Term("word", "chuva")]]
    assert parse("or , OR") == []
    assert parse("Banon, G.") == [[Term("word", "Banon"), Term("word", "G")]]


def test_folding_takes_accents_off_and_lowers_ascii_only():
    assert fold("RELATÓRIO Avaliação Ærø straße") == "relatorio avaliacao aero strasse"
    assert fold("ΑΒΓ") == "ΑΒΓ"  # SQLite's lower() knows ASCII only: folded text agrees


# -- Matching ----------------------------------------------------------------------------------

def test_accents_are_ignored_both_ways():
    make.item(("a.txt", b"a"), title="Relatório anual", language="pt-BR")
    make.item(("a.txt", b"a"), title="Relatorio sem acento", language="pt-BR")
    assert sorted(found("relatorio")) == ["Relatorio sem acento", "Relatório anual"]
    assert sorted(found("RELATÓRIO")) == ["Relatorio sem acento", "Relatório anual"]


def test_portuguese_and_english_words_find_their_other_forms_on_postgresql():
    make.item(("a.txt", b"a"), title="Avaliação de impacto", language="pt-BR")
    make.item(("a.txt", b"a"), title="An evaluation of rivers", language="en")
    if connection.vendor == POSTGRES:
        assert found("avaliações") == ["Avaliação de impacto"]
        assert found("evaluations") == ["An evaluation of rivers"]
        assert found("rivers evaluated") == ["An evaluation of rivers"]
    else:  # substrings only: a plural finds nothing, a stem finds its words
        assert found("avaliações") == [] and found("evaluations") == []
        assert found("avaliaç") == ["Avaliação de impacto"]
        assert found("evaluat") == ["An evaluation of rivers"]


def test_a_query_matches_in_either_language_whatever_the_items_language():
    make.item(("a.txt", b"a"), title="Chuvas de verão", language="pt")
    make.item(("a.txt", b"a"), title="Summer rains", language="en")
    make.item(("a.txt", b"a"), title="Chuvas sem língua")
    assert sorted(found("chuvas")) == ["Chuvas de verão", "Chuvas sem língua"]
    assert found("rains") == ["Summer rains"]


def test_phrases_prefixes_exclusions_and_or():
    make.item(("a.txt", b"a"), title="Séries temporais de chuva", language="pt-BR")
    make.item(("a.txt", b"a"), title="Temporais e séries", language="pt-BR")
    make.item(("a.txt", b"a"), title="Relatório final draft", language="pt-BR")
    make.item(("a.txt", b"a"), title="Relativity", language="en")
    assert found('"séries temporais"') == ["Séries temporais de chuva"]
    assert sorted(found("relat*")) == ["Relativity", "Relatório final draft"]
    assert found("relat* -draft") == ["Relativity"]
    assert sorted(found("relativity or chuva")) == ["Relativity", "Séries temporais de chuva"]


def test_every_metadata_value_is_searched_and_a_tombstone_by_its_title_alone():
    kept = make.item(("a.txt", b"a"), title="Plain title",
                     dc={"creator": ["Banon, Gérald"], "subject": ["hidrologia"],
                         "description": ["Um estudo das marés"], "publisher": ["INPE"]})
    for q in ("gerald", "hidrologia", "marés", "inpe"):
        assert found(q) == ["Plain title"], q
    services.item_delete(item=kept)
    assert found("gerald") == [] and found("plain") == []  # listings hide tombstones
    entry = ItemSearch.objects.get(item=kept)
    searchable = entry.text if connection.vendor != POSTGRES else str(entry.document)
    assert "plain" in searchable and "gerald" not in searchable and "inpe" not in searchable


def test_results_are_ranked_title_then_creators_subjects_description_on_postgresql():
    """Deposited in an order that is neither the rank nor its reverse: only ranking gives
    the rank's order."""
    subject = make.item(("a.txt", b"a"), title="C", dc={"subject": ["solar"]})
    title = make.item(("a.txt", b"a"), title="A solar title")
    description = make.item(("a.txt", b"a"), title="D", dc={"description": ["solar solar solar"]})
    creator = make.item(("a.txt", b"a"), title="B", dc={"creator": ["Solar, Ana"]})
    make.item(("a.txt", b"a"), title="Unrelated")
    newest_first = [creator, description, title, subject]
    ranked = [title, creator, subject, description]
    assert ranked != newest_first and ranked != newest_first[::-1]
    expected = ranked if connection.vendor == POSTGRES else newest_first  # SQLite: no ranking
    assert found("solar") == [item.title for item in expected]
    # Newest first on request, on both.
    assert list(searching.search_items(q="solar", sort="newest")) == newest_first


def test_both_stemmings_apply_whatever_the_items_language_tag():
    """Repositories' language tags are often wrong or missing: a Portuguese word form in an
    item tagged en, an English one in an item tagged pt, are found by the word's other forms
    (PostgreSQL; SQLite matches substrings only)."""
    make.item(title="Avaliações das florestas", language="en")
    make.item(title="Evaluations of rivers", language="pt-BR")
    if connection.vendor == POSTGRES:
        assert found("avaliação") == ["Avaliações das florestas"]
        assert found("evaluated") == ["Evaluations of rivers"]
    else:
        assert found("avaliação") == [] and found("evaluated") == []
        assert found("avaliaç") == ["Avaliações das florestas"]


def test_ranking_prefers_the_title_then_creators_subjects_and_the_items_own_language(
        client, anonymous_api):
    """The site's /search (the newest matches ranked), the selector and the API's ?search=
    rank alike. Deposited in an order that is neither the rank nor its reverse. A word
    matched in the title only through the other language's stemming ranks last (a match
    "anywhere"): "avaliações" is "avaliação" to the Portuguese stemmer only."""
    own = make.item(title="Avaliação das chuvas", language="pt-BR")
    subject = make.item(title="Rios", language="pt-BR", dc={"subject": ["Avaliação ambiental"]})
    other = make.item(title="Avaliação dos rios", language="en")
    creator = make.item(title="Mares", language="pt", dc={"creator": ["Avaliação, Ana"]})
    newest_first = [creator, other, subject, own]
    ranked = [own, creator, subject, other]
    assert ranked != newest_first and ranked != newest_first[::-1]
    postgres = connection.vendor == POSTGRES
    q = "avaliações" if postgres else "avaliação"  # SQLite: substrings, newest first
    expected = [item.title for item in (ranked if postgres else newest_first)]
    assert found(q) == expected
    assert page_titles(client, q=q) == expected
    answer = anonymous_api.get(ITEMS, {"search": q}, secure=True)
    assert [record["title"] for record in answer.json()["results"]] == expected


def test_past_the_cap_the_newest_matches_are_ranked(client, monkeypatch):
    """The site ranks the newest COUNT_CAP + 1 matches (docs/api/search.md): exact for a query
    with fewer matches; past that, exact as far as the best tier among them goes."""
    monkeypatch.setattr(searching, "COUNT_CAP", 3)
    older_title = make.item(title="Cometa Halley", language="pt")
    subjects = [make.item(title=f"Céu {n}", language="pt", dc={"subject": ["Cometa"]})
                for n in range(2)]
    title = make.item(title="Outro cometa", language="pt")
    newest = make.item(title="Céu 2", language="pt", dc={"subject": ["Cometa"]})
    html = client.get("/search", {"q": "cometa"}).content.decode()
    assert "more than 3 items" in html
    if connection.vendor == POSTGRES:
        # The newest four: one title match, then three subject matches newest first.
        assert searching.ranked_ids("cometa") == (
            [title.pk, newest.pk, *(item.pk for item in subjects[::-1])], True)
        assert page_titles(client, q="cometa") == [title.title, newest.title,
                                                   subjects[1].title]
        # Every match ranked (the selector `search_items`) puts the older title match second.
        assert found("cometa")[:2] == [title.title, older_title.title]
    else:
        assert page_titles(client, q="cometa") == [newest.title, title.title,
                                                   subjects[1].title]


def test_a_sparse_search_ranks_the_matches_among_the_newest_entries(client, monkeypatch):
    """Fewer than COUNT_CAP + 1 matches among the newest READ_CAP entries, but at least SPARSE
    (two common words that seldom meet): the site ranks those and says "more than" their
    number; the API ranks them too, then lists the older matches. Fewer than SPARSE (a rare
    word): every match is ranked, as before (docs/api/search.md)."""
    monkeypatch.setattr(searching, "COUNT_CAP", 3)
    monkeypatch.setattr(searching, "SPARSE", 2)
    old_title = make.item(title="Cometa Halley", language="pt")
    old_subject = make.item(title="Céu velho", language="pt", dc={"subject": ["Cometa"]})
    boundary = make.item(title="Mar", language="pt")
    subject = make.item(title="Céu novo", language="pt", dc={"subject": ["Cometa"]})
    title = make.item(title="Outro cometa", language="pt")
    newest = make.item(title="Mar calmo", language="pt")
    # The newest READ_CAP entries: the three after `boundary`, two of them matches.
    monkeypatch.setattr(searching, "READ_CAP", newest.pk - boundary.pk)
    every = [title, subject, old_subject, old_title]  # newest first: the API's order past them
    html = client.get("/search", {"q": "cometa"}).content.decode()
    api, _ = _api_walk(ITEMS, {"search": "cometa", "page_size": 1})
    if connection.vendor == POSTGRES:
        assert searching.ranked_ids("cometa") == ([title.pk, subject.pk], True)
        assert "more than 2 items" in html
        assert page_titles(client, q="cometa") == [title.title, subject.title]
        assert api == [item.title for item in every]
        # A rare word: fewer than SPARSE there, so every match is read and ranked.
        monkeypatch.setattr(searching, "SPARSE", 3)
        monkeypatch.setattr(searching, "COUNT_CAP", 4)
        ranked = [title, old_title, subject, old_subject]
        assert searching.ranked_ids("cometa") == ([item.pk for item in ranked], False)
        assert page_titles(client, q="cometa") == [item.title for item in ranked]
        assert "4 items" in client.get("/search", {"q": "cometa"}).content.decode()
    else:  # SQLite: substrings, newest first, every match
        assert "more than 3 items" in html
        assert api == [item.title for item in every]


# -- Current on every write ------------------------------------------------------------------

def test_results_are_current_right_after_a_deposit_a_patch_and_a_delete(librarian_api, client):
    def api_titles(q: str) -> list[str]:
        answer = APIClient().get(ITEMS, {"search": q}, secure=True)
        assert answer.status_code == 200
        return [record["title"] for record in answer.json()["results"]]

    record = librarian_api.post(ITEMS, {"title": "Ondas gravitacionais", "language": "pt",
                                        "creator": "Souza, Íris", "files": [_file()]},
                                format="multipart", secure=True).json()
    assert page_titles(client, q="ondas") == ["Ondas gravitacionais"]
    assert api_titles("iris") == ["Ondas gravitacionais"]

    changed = librarian_api.patch(ITEMS + record["ibi"], {"title": "Marés lunares",
                                                          "creator": ["Lima, Ana"]},
                                  format="json", secure=True)
    assert changed.status_code == 200
    assert page_titles(client, q="ondas") == [] and api_titles("iris") == []
    assert page_titles(client, q="mares") == ["Marés lunares"]
    assert api_titles("lima") == ["Marés lunares"]

    librarian_api.delete(ITEMS + record["ibi"], secure=True)
    assert page_titles(client, q="mares") == []
    assert api_titles("lima") == []  # a tombstone shows no creators, so none finds it
    assert api_titles("mares") == ["Marés lunares"]  # its title it still shows


def test_raw_sql_and_queryset_updates_are_indexed_by_the_database_itself():
    now = timezone.now()
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO archive_item (ibi, ibip, state, transferable, is_archive_service, "
            "title, language, target_file, edition_family, edition_number, created, updated, "
            "source_archive, deletion_reason, collection_id) "
            "VALUES ('x.org/raw/2020/01.01', 'RAW/1', 'Original', %s, %s, 'Carregado à mão', "
            "'pt', '', 'x.org/raw/2020/01.01', 1, %s, %s, '', '', %s)",
            [True, False, now, now, default_collection().pk])
    item = Item.objects.get(ibip="RAW/1")
    assert found("carregado") == ["Carregado à mão"]
    with connection.cursor() as cursor:
        cursor.execute("INSERT INTO archive_dcvalue (item_id, field_id, element, value, position) "
                       "VALUES (%s, %s, 'creator', 'Nóbrega, Túlio', 0)",
                       [item.pk, make.dc_field("creator").pk])
    assert found("tulio") == ["Carregado à mão"]
    Item.objects.filter(pk=item.pk).update(title="Mudado por update")
    assert found("carregado") == [] and found("mudado") == ["Mudado por update"]
    DcValue.objects.filter(item=item).update(value="Outra, Pessoa")
    assert found("tulio") == [] and found("pessoa") == ["Mudado por update"]
    DcValue.objects.filter(item=item).delete()
    assert found("pessoa") == []
    Item.objects.filter(pk=item.pk).delete()
    assert not ItemSearch.objects.filter(item_id=item.pk).exists()


# -- reindex ---------------------------------------------------------------------------------

def test_reindex_rebuilds_a_wiped_index_and_resumes_after_an_interruption(monkeypatch):
    items = [make.item(("a.txt", b"a"), title=f"Livro número {n}", language="pt",
                       dc={"subject": ["ótica"]}) for n in range(5)]
    ItemSearch.objects.all().delete()
    assert found("otica") == []

    calls = []
    refresh = index.refresh

    def killed_after_two_batches(ids):
        calls.append(ids)
        if len(calls) == 3:
            raise KeyboardInterrupt
        refresh(ids)

    monkeypatch.setattr(index, "refresh", killed_after_two_batches)
    with pytest.raises(CommandError, match=r"resume with --after \d+"):
        call_command("reindex", "--batch", "2", verbosity=0)
    # Two batches of two committed, by ascending id (the archive service is an item too).
    ids = list(Item.objects.order_by("pk").values_list("pk", flat=True))
    assert sorted(ItemSearch.objects.values_list("item_id", flat=True)) == ids[:4]
    monkeypatch.setattr(index, "refresh", refresh)

    out = io.StringIO()
    call_command("reindex", "--missing", verbosity=0, stdout=out)
    assert out.getvalue().strip() == f"{len(ids) - 4} items reindexed"
    assert sorted(found("otica")) == sorted(item.title for item in items)
    out = io.StringIO()
    call_command("reindex", "--after", str(items[2].pk), verbosity=0, stdout=out)
    assert out.getvalue().strip() == "2 items reindexed"


def test_reindex_writes_only_the_entries_that_change():
    kept = make.item(("a.txt", b"a"), title="Mantido", language="pt")
    changed = make.item(("a.txt", b"a"), title="Mudado", language="pt")
    # Written behind the triggers' back (a script, a restore): this entry is now stale.
    stale = ("to_tsvector('simple', 'velho')" if connection.vendor == POSTGRES else "'velho'")
    column = "document" if connection.vendor == POSTGRES else "text"
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE archive_itemsearch SET {column} = {stale} WHERE item_id = %s",
                       [changed.pk])
    assert found("mudado") == []

    def versions() -> dict[int, str]:
        # PostgreSQL's xmin: the transaction that wrote the row's current version.
        if connection.vendor != POSTGRES:
            return {}
        with connection.cursor() as cursor:
            cursor.execute("SELECT item_id, xmin::text FROM archive_itemsearch")
            return dict(cursor.fetchall())

    before = versions()
    call_command("reindex", verbosity=0, stdout=io.StringIO())
    assert found("mudado") == ["Mudado"] and found("mantido") == ["Mantido"]
    after = versions()
    if connection.vendor == POSTGRES:
        assert after[kept.pk] == before[kept.pk]  # unchanged: not rewritten
        assert after[changed.pk] != before[changed.pk]


def test_reindex_refuses_a_bad_batch():
    with pytest.raises(CommandError):
        call_command("reindex", "--batch", "0", verbosity=0)


# -- Without counting a million rows ------------------------------------------------------------

def test_a_facet_counts_an_item_once_however_often_it_names_the_value():
    twice = make.item(("a.txt", b"a"), title="Atlas", language="pt",
                      dc={"creator": ["Lima, Ana", "Lima, Ana"], "subject": ["Mapas"]})
    once = make.item(("a.txt", b"a"), title="Outro atlas", language="pt",
                     dc={"creator": ["Lima, Ana"]})
    found_facets = searching.facets([twice.pk, once.pk])
    assert ("Lima, Ana", 2) in found_facets["creator"]
    assert found_facets["subject"] == [("Mapas", 1)]


def test_counts_stop_at_the_cap_and_facets_say_they_saw_a_sample(client, monkeypatch):
    monkeypatch.setattr(searching, "COUNT_CAP", 3)
    monkeypatch.setattr(searching, "FACET_SAMPLE", 2)
    for n in range(5):
        make.item(("a.txt", b"a"), title=f"Mapa {n}", language="pt",
                  dc={"type": ["Map"], "creator": [f"Autor {n % 2}"]})
    html = client.get("/search", {"q": "mapa"}).content.decode()
    assert "more than 3 items" in html
    best = "best matches" if connection.vendor == POSTGRES else "first 2 items listed"
    assert best in html
    # "Map" is one of the deposit's types: stored, and linked, as its COAR URI.
    assert ('href="/search?q=mapa&amp;type=http%3A%2F%2Fpurl.org%2Fcoar%2Fresource_type%2Fc_12cd"'
            in html) and "(2)" in html
    small = client.get("/search", {"q": "mapa", "type": "Map", "creator": "Autor 1"})
    assert "2 items" in small.content.decode()


def test_facets_count_the_results_or_the_best_of_them(client, monkeypatch):
    """On a small collection the facets count every result; past FACET_SAMPLE, the first
    FACET_SAMPLE in the page's order (the best matches: docs/api/search.md), and say so."""
    best = make.item(title="Marés de Santos", language="pt-BR",
                     dc={"creator": ["Lima, Ana"], "date": ["2013-09-04"], "type": ["Map"]})
    make.item(title="Rios", language="en", dc={"creator": ["Souza, Íris"],
                                               "subject": ["Marés"], "date": ["2014"]})
    make.item(title="Mar", language="en", dc={"creator": ["Souza, Íris"],
                                              "description": ["marés"]})
    make.item(title="Unrelated", language="en", dc={"creator": ["Lima, Ana"]})
    counted = searching.find(q="marés").facets()
    assert counted["creator"] == [("Souza, Íris", 2), ("Lima, Ana", 1)]
    assert counted["subject"] == [("Marés", 1)]
    this_year = f"{best.created.year:04d}"
    assert counted["year"] == sorted([(this_year, 1), ("2014", 1), ("2013", 1)], reverse=True)
    assert counted["language"] == [("en", 2), ("pt-BR", 1)]
    assert counted["type"] == [("http://purl.org/coar/resource_type/c_12cd", 1)]
    html = client.get("/search", {"q": "marés"}).content.decode()
    assert "Facets of the" not in html and "3 items" in html
    monkeypatch.setattr(searching, "FACET_SAMPLE", 2)
    sampled = searching.find(q="marés")
    assert sampled.sampled and sampled.count() == 3
    # PostgreSQL: the title match and the subject match; SQLite: the newest two.
    postgres = connection.vendor == POSTGRES
    creators = [("Lima, Ana", 1), ("Souza, Íris", 1)] if postgres else [("Souza, Íris", 2)]
    assert sampled.facets()["creator"] == creators
    said = "Facets of the 2 best matches" if postgres else "Facets of the first 2 items listed"
    assert said in client.get("/search", {"q": "marés"}).content.decode()


@pytest.mark.django_db(transaction=True)
def test_kept_results_are_never_stale_whoever_writes(client, monkeypatch):
    """Outside a transaction (as the site serves) a search's results are kept until the
    collection changes: any write of an item or of its Dublin Core, by the ORM or raw SQL."""
    computed = []
    facets = searching.facets
    monkeypatch.setattr(searching, "facets", lambda ids: computed.append(ids) or facets(ids))
    first = make.item(("a.txt", b"a"), title="Cometa Halley", language="pt")
    assert page_titles(client, q="cometa") == ["Cometa Halley"]
    assert page_titles(client, q="cometa") == ["Cometa Halley"]
    assert len(computed) == 1  # the second time, kept
    second = make.item(("a.txt", b"a"), title="Outro cometa", language="pt")
    assert sorted(page_titles(client, q="cometa")) == ["Cometa Halley", "Outro cometa"]
    with connection.cursor() as cursor:  # behind the ORM's back: the database still tells
        cursor.execute("INSERT INTO archive_dcvalue (item_id, field_id, element, value, position) "
                       "VALUES (%s, %s, 'subject', 'Astronomia', 0)",
                       [first.pk, make.dc_field("subject").pk])
    assert page_titles(client, q="astronomia") == ["Cometa Halley"]
    html = client.get("/search", {"q": "cometa"}).content.decode()
    assert 'href="/search?q=cometa&amp;subject=Astronomia"' in html  # the facets too
    with connection.cursor() as cursor:  # the search entry stays as it was: the facet not
        cursor.execute("UPDATE archive_dcvalue SET value = 'ASTRONOMIA' "
                       "WHERE value = 'Astronomia'")
    html = client.get("/search", {"q": "cometa"}).content.decode()
    assert 'subject=ASTRONOMIA"' in html and "subject=Astronomia" not in html
    with connection.cursor() as cursor:
        cursor.execute("UPDATE archive_item SET state = 'Deleted' WHERE id = %s", [second.pk])
    assert page_titles(client, q="cometa") == ["Cometa Halley"]


def test_the_api_walks_every_item_once_while_items_are_added(librarian_api):
    first = [make.item(("a.txt", b"a"), title=f"Item {n}", language="en").ibi for n in range(7)]
    for params in ({}, {"search": "item"}):
        seen, url = [], ITEMS
        query = {"page_size": 2, **params}
        while url:
            answer = APIClient().get(url, query, secure=True)
            assert answer.status_code == 200, answer.content
            body = answer.json()
            assert "count" not in body
            seen += [record["ibi"] for record in body["results"]]
            # The newest: it never pushes a page's items on.
            make.item(("a.txt", b"a"), title="Item added meanwhile", language="en")
            url, query = body["next"], {}
        assert len(seen) == len(set(seen))
        assert set(first) <= set(seen)


def test_the_api_search_ranks_and_filters_as_the_site_and_lists_tombstones(librarian_api):
    title = make.item(("a.txt", b"a"), title="Um eclipse total", language="pt")
    creator = make.item(("a.txt", b"a"), title="B", language="en", dc={"creator": ["Eclipse, Ana"]})
    description = make.item(("a.txt", b"a"), title="D", language="pt",
                            dc={"description": ["eclipse eclipse"]})
    gone = make.item(("a.txt", b"a"), title="Eclipse apagado", language="pt")
    librarian_api.delete(ITEMS + gone.ibi, secure=True)

    def api(**params) -> list[str]:
        answer = APIClient().get(ITEMS, {"search": "eclipse", **params}, secure=True)
        assert answer.status_code == 200, answer.content
        return [record["title"] for record in answer.json()["results"]]

    site = found("eclipse")  # listings hide tombstones; the API shows them
    assert site == [item.title for item in (
        [title, creator, description] if connection.vendor == POSTGRES
        else [title, creator, description][::-1])]
    assert [t for t in api() if t != gone.title] == site and gone.title in api()
    assert api(state="Deleted") == [gone.title]
    assert api(language="pt") == [t for t in site if t != creator.title]
    service = Item.objects.get(is_archive_service=True)
    assert APIClient().get(ITEMS, {"search": service.title}, secure=True).json()["results"] == []


def _api_walk(url: str, query: dict, *, back: bool = False, meanwhile=None
              ) -> tuple[list[str], dict]:
    """The titles of every page from url on, following next (or previous) links; and the
    last page."""
    seen = []
    while url:
        answer = APIClient().get(url, query, secure=True)
        assert answer.status_code == 200, answer.content
        body = answer.json()
        titles = [record["title"] for record in body["results"]]
        seen += titles[::-1] if back else titles
        if meanwhile:
            meanwhile()
        url, query = body["previous" if back else "next"], {}
    return seen, body


def test_the_api_search_walks_the_sites_order_page_by_page_forward_and_back():
    """A small collection (fewer matches than COUNT_CAP): the API's pages, forward and back,
    give every match once in the order the selector ranks every match (as before: best tier
    first, newest first within a tier; SQLite: newest first)."""
    for n in range(4):
        make.item(title=f"Quasar {n}", language="pt")
        make.item(title=f"Céu {n}", language="pt", dc={"subject": ["Quasar"]})
        make.item(title=f"Mar {n}", language="en", dc={"creator": ["Quasar, Ana"]})
    make.item(title="Unrelated", language="pt")
    expected = found("quasar")
    assert len(expected) == 12
    if connection.vendor == POSTGRES:
        assert expected[:4] == [f"Quasar {n}" for n in (3, 2, 1, 0)]
        assert searching.ranked_ids("quasar") == (
            list(searching.search_items(q="quasar").values_list("pk", flat=True)), False)
    forward, last = _api_walk(ITEMS, {"search": "quasar", "page_size": 5})
    assert forward == expected
    back, _ = _api_walk(last["previous"], {}, back=True)
    assert back == expected[:-len(last["results"])][::-1]


def test_past_the_cap_the_api_ranks_the_newest_matches_then_lists_the_older(monkeypatch):
    """As the site (docs/api/search.md): the walk's window is the newest COUNT_CAP + 1 matches,
    ranked; the older follow, newest first. An item deposited during the walk neither repeats
    nor pushes another out (nor out of the window into the older matches)."""
    monkeypatch.setattr(searching, "COUNT_CAP", 3)
    older_title = make.item(title="Cometa Halley", language="pt")
    older_subject = make.item(title="Céu velho", language="pt", dc={"subject": ["Cometa"]})
    subjects = [make.item(title=f"Céu {n}", language="pt", dc={"subject": ["Cometa"]})
                for n in range(2)]
    title = make.item(title="Outro cometa", language="pt")
    newest = make.item(title="Céu 2", language="pt", dc={"subject": ["Cometa"]})
    added = []

    def deposit():
        added.append(make.item(title=f"Cometa novo {len(added)}", language="pt").title)

    seen, last = _api_walk(ITEMS, {"search": "cometa", "page_size": 2}, meanwhile=deposit)
    if connection.vendor == POSTGRES:
        expected = [item.title for item in (title, newest, *subjects[::-1], older_subject,
                                            older_title)]
    else:
        expected = [item.title for item in (newest, title, *subjects[::-1], older_subject,
                                            older_title)]
    assert seen == expected  # the deposits came after the first page: passed, never seen
    assert len(added) == 3
    # Back from the end of the same walk: the same items the other way, then the deposits,
    # which come before its first page (newest first: the nearest last).
    back, _ = _api_walk(last["previous"], {}, back=True)
    assert back == [*expected[:-len(last["results"])][::-1], *added]


def test_the_api_search_reads_a_bounded_number_of_matches_whatever_their_number(
        monkeypatch):
    """No page of the API's ?search= reads or ranks every match (PostgreSQL): the first ranks
    the newest COUNT_CAP + 1, as the site; a page of the older matches reads a page's worth
    along the primary key. SQLite: newest first by the id, a page at a time, as any list."""
    monkeypatch.setattr(searching, "COUNT_CAP", 3)
    for n in range(12):
        make.item(title=f"Nebulosa {n}", language="pt")
    ranked = []
    real, real_window = searching._ranked, searching._window
    monkeypatch.setattr(searching, "_ranked", lambda text, entries, limit: ranked.append(
        real(text, entries, limit)) or ranked[-1])

    def window(text, entries):  # the walk's first page chooses its window so
        chosen = real_window(text, entries)
        ranked.append(chosen.rows)
        return chosen

    monkeypatch.setattr(searching, "_window", window)
    with CaptureQueriesContext(connection) as first:
        page = APIClient().get(ITEMS, {"search": "nebulosa", "page_size": 2}, secure=True)
    assert [r["title"] for r in page.json()["results"]] == ["Nebulosa 11", "Nebulosa 10"]
    url = page.json()["next"]
    for _ in range(3):  # into the older matches
        url = APIClient().get(url, secure=True).json()["next"]
    with CaptureQueriesContext(connection) as older:
        deep = APIClient().get(url, secure=True).json()
    assert [r["title"] for r in deep["results"]] == ["Nebulosa 3", "Nebulosa 2"]
    searched = [query["sql"] for query in (*first.captured_queries, *older.captured_queries)
                if "archive_itemsearch" in query["sql"] or "@@" in query["sql"]]
    assert searched and all(re.search(r"\bLIMIT\b", sql) for sql in searched), searched
    if connection.vendor == POSTGRES:
        # Three pages in the window (the third reaching past it): COUNT_CAP + 1 ranked
        # each time, of 12 matches; the older matches ranked never.
        assert [len(rows) for rows in ranked] == [4, 4, 4]
        assert not any("tsquery THEN" in query["sql"] for query in older.captured_queries)
        assert any(re.search(r"\bLIMIT 3\b", query["sql"]) for query in older.captured_queries)
        # A position that no link gave (the cursor's p=) is a 404, as any made-up cursor.
        made_up = base64.b64encode(b"p=3.14.15").decode()
        answer = APIClient().get(ITEMS, {"search": "nebulosa", "cursor": made_up}, secure=True)
        assert answer.status_code == 404 and "invalid cursor" in answer.json()["detail"]


def test_a_search_of_stop_words_alone_is_an_answer_not_an_error():
    make.item(("a.txt", b"a"), title="The sea and the sky", language="en")
    for params in ({"search": "the"}, {"search": "THE", "state": "Original"}):
        answer = APIClient().get(ITEMS, params, secure=True)
        assert answer.status_code == 200, answer.content
        # PostgreSQL: a stop word is no condition and finds nothing; SQLite: a substring.
        expected = [] if connection.vendor == POSTGRES else ["The sea and the sky"]
        assert [r["title"] for r in answer.json()["results"]] == expected


def test_the_home_figures_are_kept_a_minute_not_counted_per_request(client):
    make.item(("a.txt", b"a"), title="Primeiro", language="pt")
    first = client.get("/").content.decode()
    assert re.search(r"<dt>Items</dt><dd>1</dd>", first)
    make.item(("a.txt", b"a"), title="Segundo", language="en")
    # Within the minute the figures are those computed first (docs/api/search.md says so) ...
    assert re.search(r"<dt>Items</dt><dd>1</dd>", client.get("/").content.decode())
    # ... and once they expire, the new ones.
    cache.delete("archive:collection-figures")
    again = client.get("/").content.decode()
    assert re.search(r"<dt>Items</dt><dd>2</dd>", again)
    assert '<data value="en">English</data>, <data value="pt">Portuguese</data>' in again


# -- One filter grammar: the site's /search and the API's /api/items/ ---------------------------

def test_the_site_and_the_api_filter_alike(client, anonymous_api):
    make.item(title="Relatório", language="pt-BR",
              dc={"creator": ["Lima, Ana"], "date": ["2013-09-04"]})
    make.item(title="Report", language="en", dc={"creator": ["Smith, Jo"], "date": ["2014"]})

    def site(**criteria) -> list[str]:
        page = client.get("/search", criteria).content.decode()
        return [title for title in ("Relatório", "Report") if f">{title}<" in page]

    def api(**criteria) -> list[str]:
        answer = anonymous_api.get("/api/items/", criteria, secure=True)
        assert answer.status_code == 200, answer.json()
        return [record["title"] for record in answer.json()["results"]]

    # A bare language finds its regions, on both; an exact tag finds itself.
    for criteria, expected in (({"language": "pt"}, ["Relatório"]),
                               ({"language": "PT-br"}, ["Relatório"]),
                               ({"creator": "Lima, Ana"}, ["Relatório"]),
                               ({"year": "2014"}, ["Report"]),
                               ({"year": "0000"}, []),  # no deposit's year: nothing, no error
                               ({"language": "p.*"}, []),  # a tag, not a pattern
                               ({"language": "pt", "year": "2014"}, [])):
        assert site(**criteria) == expected, criteria
        assert api(**criteria) == expected, criteria
    assert anonymous_api.get("/api/items/", {"year": "13"}, secure=True).status_code == 400


def test_a_counted_listing_reads_its_first_ids_and_its_count_in_one_query(monkeypatch):
    """`find`'s listings (no words, or a sort) read their first COUNT_CAP + 1 ids in their
    order in one query: the first FACET_SAMPLE of them and their number."""
    items = [make.item(title=f"Relatório {n}") for n in range(5)]
    # Two share a date (the higher id first); one is older than those deposited before it.
    Item.objects.filter(pk=items[1].pk).update(created=items[3].created)
    Item.objects.filter(pk=items[4].pk).update(created=items[0].created - timedelta(days=1))
    expected = [items[3].pk, items[1].pk, items[2].pk, items[0].pk, items[4].pk]
    with CaptureQueriesContext(connection) as queries:
        results = searching.Results(searching.search_items(), counted=True)
        assert (results.first_ids, results.total, results.more) == (expected, 5, False)
    assert len(queries) == 1
    monkeypatch.setattr(searching, "COUNT_CAP", 3)
    monkeypatch.setattr(searching, "FACET_SAMPLE", 2)
    results = searching.Results(searching.search_items(), counted=True)
    assert (results.first_ids, results.total, results.more) == (expected[:2], 4, True)
    by_title = searching.Results(searching.search_items(sort="title"), counted=True)
    assert (by_title.first_ids, by_title.total) == ([items[0].pk, items[1].pk], 4)
