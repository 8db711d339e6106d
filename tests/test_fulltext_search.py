"""Search inside files (issue 37, 4): /search and /api/items/ find the words on the pages of
the files open to all, with the page and a snippet; a closed file's text is never matched,
shown nor counted; an embargo lifted opens its text at once.

Every test runs on whichever database the suite runs on (CI's second pass: PostgreSQL, its
per-page vectors, `ts_headline`), as tests/test_search.py does.
"""
from __future__ import annotations

import re
import uuid
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from archive.access import policy
from archive.access import services as access_services
from archive.access.selectors import open_to_all
from archive.deposit import services
from archive.models import Bundle, Item, ItemFile
from archive.search import fulltext
from archive.search import selectors as searching
from tests import factories as make

pytestmark = pytest.mark.django_db
RUN = uuid.uuid4().hex[:10]
WORD = f"palavra{RUN}"  # on a page of every file below: a search for it walks them all


def secret(kind: str) -> str:
    return f"segredo{kind}{RUN}"


def pages_of(item: Item, *texts: str, name: str = "", first: int = 1) -> ItemFile:
    file = item.files.get(name=name) if name else item.files.get()
    make.file_pages(file, texts, first=first)
    return file


@pytest.fixture
def shelf():
    """An open thesis with its text, and one item of every closed kind, each file's page
    holding the shared WORD and a secret of its own."""
    later = timezone.localdate() + timedelta(days=30)
    items = {
        "open": make.item(("tese.pdf", b"%PDF"), title="Tese aberta",
                          dc={"subject": ["Hidrologia"]}),
        "embargoed": make.item(("emb.pdf", b"%PDF"), title="Tese embargada",
                               access=services.Access("embargoed", later, "patent")),
        "restricted": make.item(("res.pdf", b"%PDF"), title="Relatório interno",
                                access=services.Access("restricted")),
        "metadataonly": make.item(("meta.pdf", b"%PDF"), title="Só metadados",
                                  access=services.Access("metadata-only")),
        "file": make.item(("artigo.pdf", b"%PDF"), ("dados.csv", b"a,b"),
                          title="Artigo com dados", restricted_files=["dados.csv"]),
    }
    pages_of(items["open"], "Introdução ao tema.", "Capítulo dois: nada aqui.",
             f"Na página três, a avaliação dos rios e {WORD} no meio do texto, "
             "como diz o relatório.")
    for kind in ("embargoed", "restricted", "metadataonly"):
        pages_of(items[kind], f"Texto fechado {WORD} {secret(kind)}.")
    pages_of(items["file"], f"Artigo aberto {WORD}.", name="artigo.pdf")
    pages_of(items["file"], f"Dados fechados {WORD} {secret('file')}.", name="dados.csv")
    return items


def site(q: str, **params) -> str:
    response = Client().get("/search", {"q": q, **params})
    assert response.status_code == 200
    return response.content.decode()


def api(q: str, where: str) -> dict:
    response = APIClient().get("/api/items/", {"search": q, "in": where, "page_size": 50},
                              secure=True)
    assert response.status_code == 200, response.content
    return response.json()


def titles_found(q: str, where: str = fulltext.ALL) -> list[str]:
    return sorted(searching.search_items(q=q, where=where).values_list("title", flat=True))


# -- Found, with the page and a snippet --------------------------------------------------------

def test_a_word_on_page_three_is_found_with_its_page_and_snippet(shelf):
    body = site("avaliacao")  # accents ignored both ways
    assert "Tese aberta" in body
    assert re.search(r"tese\.pdf, p\. 3:</span>[^<]*<mark>avaliação</mark>", body)
    assert "Found on 1 page of the full text" in body
    # In the record only: the word is in no record.
    assert "Tese aberta" not in site("avaliacao", **{"in": "record"})
    assert titles_found("avaliacao", fulltext.RECORD) == []
    assert titles_found("avaliacao", fulltext.FULLTEXT) == ["Tese aberta"]
    # The record's words still find it in "all", and not in "fulltext".
    assert titles_found("hidrologia") == ["Tese aberta"]
    assert titles_found("hidrologia", fulltext.FULLTEXT) == []


def test_the_api_gives_the_pages_and_snippets_as_text_and_offsets(shelf):
    found = api(WORD, "fulltext")
    assert [item["title"] for item in found["results"]] == ["Artigo com dados", "Tese aberta"]
    matches = found["results"][1]["matches"]
    assert matches["pages"] == [{"file": "tese.pdf", "page": 3}] and not matches["more"]
    snippet = matches["snippets"][0]
    (start, end), = snippet["highlights"]
    assert snippet["page"] == 3 and snippet["text"][start:end] == WORD
    assert api("avaliação", "record")["results"] == []
    assert [item["title"] for item in api("avaliação", "all")["results"]] == ["Tese aberta"]
    refused = APIClient().get("/api/items/", {"search": WORD, "in": "everywhere"},
                              secure=True)
    assert refused.status_code == 400 and "in" in refused.json()


@pytest.mark.parametrize("where", [fulltext.ALL, fulltext.FULLTEXT])
def test_a_search_narrowed_to_nothing_finds_nothing_in_the_text(shelf, where):
    """An unknown collection narrows the items to none (Django's empty query, which has no
    SQL): the search in the text, a subquery of them, finds nothing, and says so (it was a
    500 under schemathesis)."""
    response = APIClient().get("/api/items/", {"search": WORD, "in": where,
                                               "collection": "no-such-collection"},
                               secure=True)
    assert response.status_code == 200 and response.json()["results"] == []
    assert titles_found(WORD, where) != []  # the word is there, elsewhere


def test_phrases_and_exclusions_read_each_page(shelf):
    assert titles_found('"avaliação dos rios"', fulltext.FULLTEXT) == ["Tese aberta"]
    assert titles_found('"rios avaliação"', fulltext.FULLTEXT) == []
    assert titles_found(f"{WORD} -avaliação", fulltext.FULLTEXT) == ["Artigo com dados"]


def test_stems_find_other_forms_on_postgresql(shelf):
    # PostgreSQL stems the pages as Portuguese (accents off first); SQLite finds substrings.
    if connection.vendor == "postgresql":
        assert titles_found("relatorios", fulltext.FULLTEXT) == ["Tese aberta"]
        assert titles_found("avalia", fulltext.FULLTEXT) == []
    else:
        assert titles_found("relatorios", fulltext.FULLTEXT) == []
        assert titles_found("avalia", fulltext.FULLTEXT) == ["Tese aberta"]


# -- Closed text: never matched, shown nor counted ---------------------------------------------

def test_closed_text_is_never_matched_shown_or_counted(shelf):
    for kind in ("embargoed", "restricted", "metadataonly", "file"):
        for where in fulltext.WHERE:
            body = site(secret(kind), **{"in": where})  # the query is written back, alone
            assert "No item matches." in body and "<mark>" not in body
            assert titles_found(secret(kind), where) == []
            assert api(secret(kind), where)["results"] == []
    # The shared word: the open files' pages only, never a closed one's snippet or page.
    body = site(WORD)
    assert "Tese aberta" in body and "Artigo com dados" in body
    assert not any(secret(kind) in body for kind in ("embargoed", "restricted", "file"))
    assert "Tese embargada" not in body and "dados.csv" not in body
    assert "2 items" in body  # counted: the open two
    answer = api(WORD, "all")
    everything = str(answer)
    assert not any(secret(kind) in everything for kind in
                   ("embargoed", "restricted", "metadataonly", "file"))
    # (A restricted file's name is listed, as ever; never as a page that matched.)
    assert [page["file"] for item in answer["results"] for page in item["matches"]["pages"]] \
        == ["artigo.pdf", "tese.pdf"]
    assert searching.find(q=WORD, where=fulltext.FULLTEXT).count() == 2


def test_the_files_open_to_all_are_the_policys_to_say():
    """open_to_all asks the policy: for every level, flag and bundle, a file is searchable
    exactly when the policy lets the public read it."""
    for n, level in enumerate(policy.COAR_RIGHTS):
        until = timezone.localdate() + timedelta(days=9) if level == policy.EMBARGOED else None
        item = make.item((f"a{n}.pdf", b"a"), (f"b{n}.pdf", b"b"),
                         access=services.Access(level, until), restricted_files=[f"b{n}.pdf"])
        for bundle in (Bundle.TEXT, Bundle.LICENSE):
            ItemFile.every_bundle.create(item=item, name=f"{bundle}{n}.txt", size=1,
                                         sha256="0" * 64, bundle=bundle)
    searchable = set(ItemFile.every_bundle.filter(open_to_all()).values_list("pk", flat=True))
    for file in ItemFile.every_bundle.select_related("item"):
        assert (file.pk in searchable) == policy.may_read_bundle(
            policy.PUBLIC, file.item_id, file.item.access_rights, file.restricted,
            file.bundle), (file.name, file.item.access_rights)
    assert searchable  # an open file's, at least


@pytest.mark.django_db(transaction=True)  # outside a transaction: answers are kept
def test_an_embargo_lifted_opens_its_text_at_once(shelf):
    embargoed = shelf["embargoed"]
    assert titles_found(secret("embargoed")) == []
    assert "Tese embargada" not in site(secret("embargoed"))  # and kept in the cache
    lifted = access_services.lift_embargoes(today=timezone.localdate() + timedelta(days=31))
    assert lifted == [embargoed.ibi]
    assert titles_found(secret("embargoed"), fulltext.FULLTEXT) == ["Tese embargada"]
    body = site(secret("embargoed"))
    assert "Tese embargada" in body and f"<mark>{secret('embargoed')}</mark>" in body
    assert [item["title"] for item in api(secret("embargoed"), "fulltext")["results"]] \
        == ["Tese embargada"]


# -- Snippets (pure) ---------------------------------------------------------------------------

def test_highlight_marks_folded_matches_in_the_original_text():
    assert fulltext.highlight("A ÆSIR saga, æsir again", ["aesir"]) == [
        ("A ", False), ("ÆSIR", True), (" saga, ", False), ("æsir", True), (" again", False)]
    long = "palavra " * 40 + "rio " + "fim " * 40
    parts = fulltext.highlight(long, ["rio"], around=12)
    assert parts[0][0].startswith("…") and parts[-1][0].endswith("…")
    assert ("rio", True) in parts and sum(len(text) for text, _ in parts) < 40
    assert fulltext.highlight("nada", ["rio"]) == [("nada", False)]


def test_a_page_cannot_forge_a_highlight(shelf):
    pages_of(shelf["file"], f"Um \x02falso\x03 destaque e {RUN}x <b>negrito</b>.",
             name="artigo.pdf", first=2)
    body = site(f"{RUN}x")  # the words of the page, escaped, and nothing marked but the match
    # (SQLite's snippet escapes a tag, PostgreSQL's ts_headline leaves it out.)
    assert "negrito" in body and "<b>negrito</b>" not in body
    assert "<mark>falso</mark>" not in body


@pytest.mark.django_db(transaction=True)  # outside a transaction: answers are kept
def test_a_page_written_after_a_search_is_found_at_once(shelf):
    """The change token moves with the pages: an answer kept in the cache is not served
    after a new page (a file's text extracted since)."""
    word = f"novo{RUN}"
    assert "No item matches." in site(word)
    assert "No item matches." in site(word)  # kept
    pages_of(shelf["open"], f"Uma página nova: {word}.", first=4)
    body = site(word)
    assert "Tese aberta" in body and "tese.pdf, p. 4" in body


def test_a_result_lists_its_first_matching_pages_and_says_more_follow(shelf):
    thesis = make.item(("longa.pdf", b"%PDF"), title="Tese longa")
    word = f"muitas{RUN}"
    pages_of(thesis, *(f"Página {n}: {word}." if n % 2 else "Nada." for n in range(1, 31)))
    found = fulltext.matches(word, [thesis.pk])[thesis.pk]
    assert found.pages == [("longa.pdf", n) for n in range(1, 21, 2)] and found.more
    assert [snippet.page for snippet in found.snippets] == [1]  # the first page's
    body = site(word)
    assert "Found on more than 10 pages of the full text" in body
    assert "longa.pdf, p. 19" in body and "longa.pdf, p. 21" not in body


def test_odd_queries_are_answered_never_a_500(shelf):
    for q in ("*", '"', "de", "-palavra", "de*", "' OR 1=1 --", "x" * 200):
        for where in fulltext.WHERE:
            site(q, **{"in": where})
            api(q, where)
    if connection.vendor == "postgresql":  # a stop word is no condition: it finds nothing
        assert "No item matches." in site("de", **{"in": "fulltext"})
