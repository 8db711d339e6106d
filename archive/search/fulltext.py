"""Reads: search inside files (issue 37), the words on the pages of the files open to all.

A search looks in the record (title, creators, subjects, …: `selectors.matching`), in the
full text, or in both (`WHERE`: the site's and the API's `in=`). The full text is each
page of a file's text (FilePage), and only of a file open to all: access/selectors.py
`open_to_all`, the access policy asked, never a rule of this module. An embargoed,
restricted or metadata-only file's text is never matched, shown nor counted; an embargo
lifted opens it at once (the condition reads the item's level as it is now). A search's
answer is kept for everyone (its cache key names no reader), so it is built for the public
reader: a librarian reads a closed file's text in the file itself.

PostgreSQL: each page's text search vector (migration 0052_fulltext_search: unaccented,
stemmed as Portuguese) and its GIN index; snippets by `ts_headline`, for the pages shown
only. SQLite (the embedded default): each term a substring of the page's folded text (kept by
SQLite's triggers, as the record's search text is), snippets cut here (`highlight`).

A search in the full text finds at most TEXT_CAP items ("more than" past it): each is proved
by one matching page, newest first, so a word on every fifth page costs TEXT_CAP probes
whatever the collection's size; a rare word is read from the GIN index
(bench/fulltext_search.py).
"""
from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable
from typing import NamedTuple

from django.core.exceptions import EmptyResultSet
from django.db import connection, connections, router, transaction
from django.db.models import QuerySet
from django.db.models.expressions import RawSQL

from ..access.selectors import open_to_all
from ..models import FilePage, ItemFile
from . import query as parsing

# Where a search looks: ?in=all (the default), fulltext (the files' text only), record.
ALL, FULLTEXT, RECORD = "all", "fulltext", "record"
WHERE = (ALL, FULLTEXT, RECORD)
# The most items a search in the full text finds before it says "more than".
TEXT_CAP = 1_000
# Snippets shown of an item (ts_headline's cost: ~1 ms a page): its first matching page's;
# and how many page numbers it lists (each file's pages are read until one more matches).
SNIPPETS = 1
PAGES_LISTED = 10
# A page's text as its vector reads it (migration 0052_fulltext_search).
PAGE_TEXT = 200_000
# ts_headline's marks of a match: control characters, taken out of the page text first, so
# that a page cannot forge one; the template marks the pieces between them.
START, STOP = "\x02", "\x03"
HEADLINE = (f"StartSel={START}, StopSel={STOP}, MaxWords=30, MinWords=12, "
            'MaxFragments=2, FragmentDelimiter=" … "')


def full_text() -> bool:
    return connection.vendor == "postgresql"


def page_query(q: str) -> str:
    """PostgreSQL: the text search query of a reader's search over pages, as text ("" if it
    names no word that is not a stop word): the record's grammar (search/query.py) read by
    the pages' configuration."""
    def term_sql(term) -> tuple[str, str]:
        if term.kind == "prefix":
            return ("to_tsquery('archive_text', %s)",
                    "'" + term.text.lower().replace("'", "''") + "':*")
        if term.kind == "phrase":
            return "phraseto_tsquery('archive_text', %s)", term.text
        return "plainto_tsquery('archive_text', %s)", term.text

    return query_text(q, term_sql)


def query_text(q: str, term_sql: Callable[[parsing.Term], tuple[str, str]]) -> str:
    """PostgreSQL's text search query of a reader's search (search/query.py's grammar), as
    text ("" when it names no word that is not a stop word): each term as `term_sql` makes
    it (its SQL with one placeholder, and the value), the group's terms and-ed (a negated one
    not-ed), the groups or-ed; computed once, so that the main query holds a constant the
    planner gives to the GIN index."""
    groups, params = [], []
    for group in parsing.parse(q):
        terms = []
        for term in group:
            sql, param = term_sql(term)
            params.append(param)
            terms.append(f"(!! {sql})" if term.negated else sql)
        groups.append("(" + " && ".join(terms) + ")")
    if not groups:
        return ""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT ({' || '.join(groups)})::text", params)
        return cursor.fetchone()[0] or ""


def _page_condition(q: str, page: str) -> tuple[str, list] | None:
    """SQL that a page (table alias `page`) matches q, and its parameters; None when q can
    match nothing."""
    if full_text():
        text = page_query(q)
        return (f"{page}.document @@ %s::tsquery", [text]) if text else None
    folded = f"{page}.folded"  # the text folded by SQLite's triggers (migration 0051)
    groups, params = [], []
    for group in parsing.parse(q):
        every = []
        for term in group:
            every.append(f"instr({folded}, %s) {'=' if term.negated else '>'} 0")
            params.append(parsing.fold(term.text))
        groups.append("(" + " AND ".join(every) + ")")
    return ("(" + " OR ".join(groups) + ")", params) if groups else None


def _open_files() -> QuerySet[ItemFile]:
    """The files whose text a search reads: open to all, of a listed item."""
    return ItemFile.every_bundle.filter(open_to_all(), item__search_entry__listed=True)


def _files_matching(q: str) -> QuerySet[ItemFile] | None:
    condition = _page_condition(q, "page")
    if condition is None:
        return None
    sql, params = condition
    table = ItemFile._meta.db_table
    return _open_files().extra(where=[
        f"EXISTS (SELECT 1 FROM {FilePage._meta.db_table} page "
        f"WHERE page.file_id = {table}.id AND {sql})"], params=params)


class Found(NamedTuple):
    """The newest items found in the full text (at most TEXT_CAP), and whether more are."""

    ids: list[int]
    more: bool


def found(q: str, among: QuerySet | None = None) -> Found:
    """The newest TEXT_CAP items with a page open to all matching q (of `among`, if given),
    newest first: one probe of an item's pages each (PostgreSQL reads the files newest first
    and stops there), or, for a rare word, the GIN index's few pages."""
    newest = found_newest(q, among)
    if newest is None:
        return Found([], False)
    few = _few_files(q)
    if few is not None:  # a rare word: its files by id, not every open file's probe
        newest = newest.filter(pk__in=few)
    ids = list(newest[:TEXT_CAP + 1])
    return Found(ids[:TEXT_CAP], len(ids) > TEXT_CAP)


# A word on at most this many pages is rare: its pages are read from the GIN index alone.
RARE_PAGES = 200
FUZZY_LIMIT = 4 * RARE_PAGES


def _few_files(q: str) -> list[int] | None:
    """PostgreSQL: the files with a page matching q when at most RARE_PAGES do, else None.

    The planner cannot tell a rare word from a common one (a word missing from the column's
    statistics is given half the rarest listed word's frequency: a page in two hundred), and
    for a word it thinks that common it joins every open file and item (tens of ms a search,
    growing with the collection) where a rare word's few pages name their files at once. So
    the pages are asked first, from the GIN index (a sequential scan is forbidden for that
    one query: with a LIMIT the planner would rather read the table until enough match,
    which for a rare word is all of it); a common word stops at RARE_PAGES + 1."""
    if not full_text():
        return None
    condition = _page_condition(q, "page")
    if condition is None:
        return None
    sql, params = condition
    with transaction.atomic(using=router.db_for_read(FilePage)), \
            connections[router.db_for_read(FilePage)].cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        # A common word's bitmap would hold its every page (600 000 at 3 000 000 pages, a
        # third of a second): the index gives a sample of this many instead, which is
        # enough to say "more than RARE_PAGES"; a rare word's pages come all, exactly.
        cursor.execute("SET LOCAL gin_fuzzy_search_limit = %s", [FUZZY_LIMIT])
        cursor.execute(f"SELECT page.file_id FROM {FilePage._meta.db_table} page WHERE {sql} "
                       "LIMIT %s", [*params, RARE_PAGES + 1])
        rows = cursor.fetchall()
    if len(rows) > RARE_PAGES:
        return None
    return sorted({file_id for (file_id,) in rows})


def found_newest(q: str, among: QuerySet | None = None) -> QuerySet | None:
    """The ids of the items `found` finds, newest first, as a query not yet run; None when
    q can match nothing."""
    files = _files_matching(q)
    if files is None:
        return None
    if among is not None:
        files = files.filter(item_id__in=among)
    return files.order_by("-item_id").values_list("item_id", flat=True).distinct()


def found_subquery(q: str, among: QuerySet | None = None) -> RawSQL | None:
    """`found`'s ids as SQL for `pk__in`, run only with the query that holds it: its own SQL,
    compiled apart (its page condition names the files' table, which a Django subquery
    would alias)."""
    newest = found_newest(q, among)
    if newest is None:
        return None
    try:
        sql, params = newest[:TEXT_CAP].query.sql_with_params()
    except EmptyResultSet:  # `among` is known empty (an unknown collection): nothing found
        return None
    return RawSQL(sql, params)


# -- What a result shows: its matching pages, and snippets of the first --------------------

class Snippet(NamedTuple):
    """A matching page: its file's name, its number, and its text around the match as
    (text, matched) pieces (the template marks the matched ones)."""

    file: str
    page: int
    parts: list[tuple[str, bool]]


class TextMatches(NamedTuple):
    """An item's matches in the full text: (file name, page number) of its first matching
    pages (PAGES_LISTED at most), whether more follow, and snippets of the first SNIPPETS."""

    pages: list[tuple[str, int]]
    more: bool
    snippets: list[Snippet]


def matches(q: str, item_ids: Iterable[int]) -> dict[int, TextMatches]:
    """item id → its matches in the full text, for these items (a page of results): their
    pages open to all matching q, in file name and page order, and snippets of the first
    few. Items without such a page are not in it. Two queries and the snippets'."""
    ids = list(item_ids)
    if not ids or _page_condition(q, "page") is None:
        return {}
    files = {pk: (item_id, name) for pk, item_id, name in
             _open_files().filter(item_id__in=ids).values_list("pk", "item_id", "name")}
    by_item: dict[int, list[tuple[int, str, int]]] = {}
    for pk, file_id, number in _matching_pages(q, list(files)):
        item_id, name = files[file_id]
        by_item.setdefault(item_id, []).append((pk, name, number))
    for pages in by_item.values():
        pages.sort(key=lambda page: page[1:])
    shown = [pk for pages in by_item.values() for pk, _name, _number in pages[:SNIPPETS]]
    cut = _snippets(q, shown)
    return {item_id: TextMatches(
        pages=[(name, number) for _pk, name, number in pages[:PAGES_LISTED]],
        more=len(pages) > PAGES_LISTED,
        snippets=[Snippet(name, number, cut[pk]) for pk, name, number in pages[:SNIPPETS]
                  if pk in cut])
        for item_id, pages in by_item.items()}


def _matching_pages(q: str, file_ids: list[int]) -> list[tuple[int, int, int]]:
    """(page id, file id, number) of the first PAGES_LISTED + 1 pages of each of these files
    matching q: on PostgreSQL each file's pages read in order until that many match (a
    common word: some fifty of a thesis's pages, not all of them)."""
    table = FilePage._meta.db_table
    if not file_ids:
        return []
    if full_text():
        sql, params = _page_condition(q, "page")
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT page.id, f.id, page.number FROM unnest(%s::bigint[]) AS f(id) "
                f"CROSS JOIN LATERAL (SELECT page.id, page.number FROM {table} page "
                f"WHERE page.file_id = f.id AND {sql} ORDER BY page.number LIMIT %s) page",
                [file_ids, *params, PAGES_LISTED + 1])
            return cursor.fetchall()
    sql, params = _page_condition(q, table)
    return list(FilePage.objects.filter(file_id__in=file_ids).extra(where=[sql], params=params)
                .order_by("file_id", "number").values_list("pk", "file_id", "number"))


def _snippets(q: str, page_ids: list[int]) -> dict[int, list[tuple[str, bool]]]:
    """page id → its snippet's pieces: ts_headline on PostgreSQL (these pages only), else
    `highlight`."""
    if not page_ids:
        return {}
    pages = FilePage.objects.filter(pk__in=page_ids)
    if not full_text():
        needles = [parsing.fold(term.text) for group in parsing.parse(q) for term in group
                   if not term.negated]
        return {pk: highlight(text, needles) for pk, text in pages.values_list("pk", "text")}
    headline = RawSQL(
        "ts_headline('archive_text', translate(left(text, %s), %s, '  '), %s::tsquery, %s)",
        [PAGE_TEXT, START + STOP, page_query(q), HEADLINE])
    return {pk: headline_parts(text) for pk, text in
            pages.annotate(headline=headline).values_list("pk", "headline")}


def headline_parts(headline: str) -> list[tuple[str, bool]]:
    """ts_headline's text as (text, matched) pieces.

    >>> headline_parts("a \\x02tese\\x03 sobre \\x02rios\\x03")
    [('a ', False), ('tese', True), (' sobre ', False), ('rios', True)]
    """
    parts = []
    for piece in re.split(f"({START}[^{STOP}]*{STOP})", headline):
        if piece.startswith(START):
            parts.append((piece.strip(START + STOP), True))
        elif piece:
            parts.append((piece, False))
    return parts


def highlight(text: str, needles: list[str], around: int = 90) -> list[tuple[str, bool]]:
    """The text around the first match of any needle (folded, as `parsing.fold` folds) as
    (text, matched) pieces, every match within it marked; the page's start if none matches.
    Pure: the SQLite fallback's snippet.

    >>> highlight("Uma avaliação dos rios", ["avaliacao"])
    [('Uma ', False), ('avaliação', True), (' dos rios', False)]
    >>> highlight("x" * 200 + " Rio", ["rio"], around=5)
    [('…xxxx ', False), ('Rio', True)]
    """
    pieces = [parsing.fold(char) for char in text]
    folded = "".join(pieces)
    # The character of `text` each folded character comes from (æ folds to two).
    owner = list(itertools.chain.from_iterable([n] * len(p) for n, p in enumerate(pieces)))
    spans = []
    for needle in filter(None, needles):
        spans += [(m.start(), m.end()) for m in re.finditer(re.escape(needle), folded)]
    if not spans:
        return [(text[:2 * around] + ("…" if len(text) > 2 * around else ""), False)]
    spans.sort()
    first = owner[spans[0][0]]
    start = max(0, first - around)
    end = min(len(text), owner[spans[0][1] - 1] + 1 + around)
    parts: list[tuple[str, bool]] = []
    at = start
    for begin, finish in spans:
        begin, finish = owner[begin], owner[finish - 1] + 1
        if begin < at or finish > end:
            continue
        parts += [(text[at:begin], False), (text[begin:finish], True)]
        at = finish
    parts.append((text[at:end], False))
    if start:
        parts[0] = ("…" + parts[0][0], parts[0][1])
    if end < len(text):
        parts[-1] = (parts[-1][0] + "…", parts[-1][1])
    return [part for part in parts if part[0]]
