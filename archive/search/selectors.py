"""Reads: search and browse, the same for the site's /search and the API's ?search=.

PostgreSQL: full text (migrations 0007_full_text_search and 0021_search build the documents):
every term of the query must match (or a group joined by OR), in the Portuguese or English
stem or the plain word, accents ignored, whatever the item's language. Results best first in
tiers: the query matched in the title alone, then in the title and creators, then with the
subjects, then anywhere (a word matched only through the other language's stemming counts as
"anywhere": the item's own language is preferred); newest first within a tier. SQLite: each
term is a substring of the item's folded text, newest first.

Nothing here ranks or counts a million rows: the site's search ranks the newest COUNT_CAP + 1
matches (`ranked_ids`: read newest first through the primary key, or through the GIN index
when the matches are few), which also give its capped count and every page a reader can
reach; the facets count the first FACET_SAMPLE of them. A query whose matches are sparse
(fewer than COUNT_CAP + 1 among the newest READ_CAP entries, but at least SPARSE) ranks only
those: reading on to fill COUNT_CAP + 1 would cost more than the whole page may. The API's
?search= walks the same ranking by cursor (`RankedWalk`), then the older matches a page at a
time.
"""
from __future__ import annotations

import hashlib
import heapq
import re
from collections import Counter
from collections.abc import Callable, Iterable
from typing import NamedTuple

from django.core.cache import cache
from django.db import connection, router, transaction
from django.db.models import (
    BooleanField,
    Case,
    Count,
    Exists,
    F,
    Func,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Sum,
    Value,
    When,
)
from django.db.models.expressions import RawSQL
from django.db.models.functions import Lower, Substr

from ..communities import selectors as tree
from ..db import changes
from ..deposit import controlled
from ..deposit.selectors import listed_items
from ..models import DcValue, Item, ItemFile, ItemSearch, MetadataField
from ..registry import names
from . import fulltext
from . import query as parsing

# Facets are counted over the first results in the listing's order (the best matches of a
# search, the newest items of a browse): constant work whatever the collection's size.
FACET_SAMPLE = 1000
# Result counts stop here; past it a page says "more than 10 000".
COUNT_CAP = 10_000
# A search reads at most the newest READ_CAP entries (by item id) to fill its COUNT_CAP + 1:
# a query matching one item in ten or more fills them there. A sparser one ranks the matches
# it found there, and says "more than" their number, when they are at least SPARSE (two
# common words that seldom meet); with fewer (a rare word) it reads on, which then costs
# little (the GIN index finds them). A read newest first costs the rows it reads, matching or
# not (bench/README.md, issue 40).
READ_CAP = 10 * (COUNT_CAP + 1)
SPARSE = 1_000
# A search's first results, count and facets are kept in the shared cache (CACHE_URL) under
# the collection's change token, so never stale; this long at most, for memory's sake.
RESULTS_TTL = 600
# Part of the key: a release that changes what is kept, or how it is ranked, raises it.
RESULTS_VERSION = 5
# A thesis's facets (issue 34): a field of the registry each, and that field's simple Dublin
# Core element, which the queries of them name where an index is of the element: SQLite's
# (migration 0034's) of contributors' and publishers' values (an advisor, a programme),
# 0007's of subjects' (a CNPq area).
THESIS_FACETS = {"programme": ("dc.publisher.program", "publisher"),
                 "advisor": ("dc.contributor.advisor", "contributor"),
                 "cnpq": ("dc.subject.cnpq", "subject"),
                 "degree": ("local.degree.level", "")}
FACETS = ("creator", "subject", "year", "language", "type", *THESIS_FACETS)
# The facets whose values migration 0060 indexes by field on PostgreSQL (with the item: read
# from the index alone), the values of at most this many bytes (a btree's entry has a limit).
THESIS_BY_FIELD = ("programme", "advisor")
THESIS_INDEXED_BYTES = 2000
# The ranking's tiers, best first: the weights (fields) in which the whole query must match.
# A: the title; B: the creators; C: the subjects; D: the rest, and the stems of the language
# that is not the item's own (migration 0021_search). Past the last, a match anywhere.
TIERS = ("A", "AB", "ABC")


class _Matches(Func):
    """document @@ query, as a condition."""

    arg_joiner = " @@ "
    template = "(%(expressions)s)"
    output_field = BooleanField()


def tsquery(q: str) -> str:
    """The PostgreSQL text search query of a reader's search of the record, as text ("" if
    it names no word that is not a stop word)."""
    def term_sql(term) -> tuple[str, str]:
        if term.kind == "prefix":
            return "to_tsquery('simple', archive_unaccent(%s))", f"'{term.text.lower()}':*"
        return (f"archive_search_term(%s, {'true' if term.kind == 'phrase' else 'false'})",
                term.text)

    return fulltext.query_text(q, term_sql)


def _has_dc(element: str, **lookup) -> Exists:
    return Exists(DcValue.objects.filter(item=OuterRef("pk"), element=element, **lookup))


def _has_thesis_value(facet: str, value: str, field_id: int | None) -> Exists | Q:
    """An item with this value of a thesis facet's field (THESIS_FACETS), by the field's id
    (a join with the registry's tables in the subquery is planned as a scan of them per
    value: 160 ms for a CNPq area's 300 items at 100 000, bench/README.md). On PostgreSQL a
    programme's or an advisor's items are read from migration 0060's btree alone (the
    field, the value and the item: an index-only scan), which holds the values of at most
    THESIS_INDEXED_BYTES; a longer one from its hash index of those."""
    if field_id is None:  # the registry has no such field: nothing has its values
        return Q(pk__in=[])
    values = DcValue.objects.filter(item=OuterRef("pk"), field_id=field_id, value=value)
    if facet in THESIS_BY_FIELD and fulltext.full_text():  # PostgreSQL
        size = "size__lte" if len(value.encode()) <= THESIS_INDEXED_BYTES else "size__gt"
        values = values.alias(size=Func(F("value"), function="octet_length",
                                        output_field=IntegerField())
                              ).filter(**{size: THESIS_INDEXED_BYTES})
    else:
        values = values.filter(element=THESIS_FACETS[facet][1])
    return Exists(values)


def thesis_field_ids() -> dict[str, int]:
    """thesis facet → its field's id (one query of the registry; a facet whose field the
    registry lacks is not there)."""
    wanted = Q(pk__in=[])
    for name, _element in THESIS_FACETS.values():
        schema, element, qualifier = names.split(name)
        wanted |= Q(schema__name=schema, element=element, qualifier=qualifier)
    by_name = {name: facet for facet, (name, _element) in THESIS_FACETS.items()}
    return {by_name[field.name]: field.pk
            for field in MetadataField.objects.select_related("schema").filter(wanted)}


def _query(text: str) -> RawSQL:
    return RawSQL("%s::tsquery", [text])


# A lexeme of a text search query as PostgreSQL prints it ('it''s'), and its prefix mark.
_LEXEME = re.compile(r"('(?:[^']|'')*')(:\*)?")


def weighted(text: str, weights: str) -> str:
    """The text search query `text` matching only in these weights: every lexeme restricted
    to them (a negated one too: the whole query already excludes it everywhere).

    >>> weighted("'avali' & !'draft' | 'relat':*", "AB")
    "'avali':AB & !'draft':AB | 'relat':*AB"
    """
    return _LEXEME.sub(lambda m: f"{m.group(1)}:{'*' if m.group(2) else ''}{weights}", text)


def tier(document: F, text: str) -> Case:
    """The ranking tier of a document matching `text` (TIERS): 3 when the query matches in
    the title alone, 2 with the creators, 1 with the subjects, 0 anywhere; higher first."""
    return Case(*(When(_Matches(document, _query(weighted(text, weights))),
                       then=Value(len(TIERS) - n)) for n, weights in enumerate(TIERS)),
                default=Value(0), output_field=IntegerField())


def matching(items: QuerySet[Item], q: str, where: str = fulltext.RECORD
             ) -> tuple[QuerySet[Item], bool]:
    """items that match the search q, and whether they carry a `rank` (PostgreSQL): in
    their record, in the text of their files open to all, or in either (`where`: one of
    fulltext.WHERE). A match in the full text alone ranks as a match "anywhere" does; the
    full text finds the newest TEXT_CAP of these items (`fulltext.found`: the cost of a
    word on every fifth page is bounded so, whatever the order asked for)."""
    if not q.strip():
        return items, False
    in_text = Q(pk__in=[])
    if where != fulltext.RECORD:
        # A subquery, run only if these items are read: the site's first pages of a search
        # best match first read `_found`'s ids instead, and never run it (issue 37).
        newest = fulltext.found_subquery(q, items.values("pk"))
        if newest is not None:
            in_text = Q(pk__in=newest)
    if where == fulltext.FULLTEXT:
        return items.filter(in_text), False
    if fulltext.full_text():
        text = tsquery(q)
        if not text:
            return items.filter(in_text), False
        document = F("search_entry__document")
        return (items.filter(Q(_Matches(document, _query(text))) | in_text)
                .annotate(rank=tier(document, text))), True
    condition = Q(pk__in=[])
    for group in parsing.parse(q):
        every = Q()
        for term in group:
            found = Q(search_entry__text__contains=parsing.fold(term.text))
            every &= ~found if term.negated else found
        condition |= every
    return items.filter(condition | in_text), False


def _entries(text: str, narrowed: QuerySet[Item] | None, *, listed: bool
             ) -> QuerySet[ItemSearch]:
    """The search entries matching the text search query `text`: of the listed items (the
    site's), or of every public item, a tombstone by its title (the API's); of `narrowed`
    only, if given."""
    entries = ItemSearch.objects.filter(_Matches(F("document"), _query(text)))
    if listed:
        entries = entries.filter(listed=True)
    elif narrowed is None:
        # NOT IN one row (a unique partial index finds it), not a join with every item.
        entries = entries.exclude(item_id__in=Item.objects.filter(is_archive_service=True)
                                  .values("pk"))
    if narrowed is not None:
        entries = entries.filter(item_id__in=narrowed.values("pk"))
    return entries


def _ranked(text: str, entries: QuerySet[ItemSearch], limit: int) -> list[tuple[int, int]]:
    """(item id, tier) of the newest `limit` of these entries, best first: the index in TIERS
    of the first the query matches in (len(TIERS): anywhere), newest first within a tier.
    Only those entries are read (newest first along the primary key, or from the GIN index
    when the matches are few) and ranked."""
    newest, params = (entries.order_by("-item_id").values_list("item_id", "document")
                      [:limit].query.sql_with_params())
    ranks, ranked = [], []
    for n, weights in enumerate(TIERS):
        ranks.append(f"WHEN document @@ %s::tsquery THEN {n}")
        ranked.append(weighted(text, weights))
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT item_id, tier FROM (SELECT item_id, CASE {' '.join(ranks)} "
                       f"ELSE {len(TIERS)} END AS tier FROM ({newest}) newest) ranked "
                       f"ORDER BY tier, item_id DESC", [*ranked, *params])
        return cursor.fetchall()


class Ranked(NamedTuple):
    """A search's ranked window: (item id, tier) best first, and whether older matches
    follow it (not ranked, not counted)."""

    rows: list[tuple[int, int]]
    more: bool


def _window(text: str, entries: QuerySet[ItemSearch]) -> Ranked:
    """The window of these entries matching `text`: their newest COUNT_CAP + 1, ranked as
    `_ranked` ranks them; but if fewer lie among the newest READ_CAP entries and at least
    SPARSE do, those; and whether older matches follow.

    One query, planned as `_ranked`'s (newest first along the primary key, or the GIN index
    when PostgreSQL expects few matches), its rows fetched newest first by a server-side
    cursor a batch at a time: a read newest first stops within a batch of passing the
    newest READ_CAP entries, whatever it would have read to fill COUNT_CAP + 1. (A bound in
    the query itself, item_id > newest - READ_CAP, changes the plan: PostgreSQL then ANDs a
    bitmap of those ids with the GIN index's for a rare word: bench/README.md.)"""
    select, params = (entries.order_by("-item_id").values_list("item_id", "document")
                      [:COUNT_CAP + 1].query.sql_with_params())
    ranks = [f"WHEN document @@ %s::tsquery THEN {n}" for n in range(len(TIERS))]
    tiers = [weighted(text, weights) for weights in TIERS]
    rows: list[tuple[int, int]] = []
    passed = False  # the read has passed the newest READ_CAP entries
    with transaction.atomic(), connection.cursor() as plain:
        # Planned for every row, as `_ranked`'s query is, not for a cursor's first tenth.
        plain.execute("SET LOCAL cursor_tuple_fraction = 1")
        # Where the query is read, in its snapshot: the newest READ_CAP ids are above it.
        plain.execute(f"SELECT coalesce(max(item_id), 0) - {int(READ_CAP)} "
                      f"FROM {ItemSearch._meta.db_table}")
        (bound,) = plain.fetchone()
        with connection.chunked_cursor() as cursor:
            cursor.execute(f"SELECT item_id, CASE {' '.join(ranks)} ELSE {len(TIERS)} END "
                           f"FROM ({select}) newest", [*tiers, *params])
            while batch := cursor.fetchmany(_BATCH):
                rows += batch
                if not passed and rows[-1][0] <= bound:
                    passed = True
                    inside = [row for row in rows if row[0] > bound]
                    if len(inside) >= SPARSE:  # and rows[-1], an older match, follows
                        return Ranked(sorted(inside, key=_best), True)
    return Ranked(sorted(rows, key=_best), len(rows) > COUNT_CAP)


# Rows a fetch of `_window` reads: a sparse search reads at most this many matches past the
# newest READ_CAP entries; a common word's COUNT_CAP + 1 take a dozen fetches.
_BATCH = 1_000


def _best(row: tuple[int, int]) -> tuple[int, int]:
    """The ranking's order of (item id, tier) rows: best tier first, newest first."""
    return row[1], -row[0]


class RankedIds(NamedTuple):
    """The ids of a search's ranked results, and whether more matches follow them."""

    ids: list[int]
    more: bool


def ranked_ids(q: str, narrowed: QuerySet[Item] | None = None) -> RankedIds:
    """PostgreSQL: the ids of the listed items matching q (and among `narrowed`, if given),
    best first: the newest COUNT_CAP + 1 matches, ranked by `tier`, newest first within a
    tier; and whether more matches follow. They hold every page a reader can reach (a page
    never goes past COUNT_CAP results), and their number is the search's count, "more than"
    it if `more`.

    The cost is bounded by COUNT_CAP and READ_CAP, not by the number of matches: PostgreSQL
    reads the matches newest first along the primary key and stops at COUNT_CAP + 1 (a
    common word: a quarter of the items costs four rows read per match) or at the newest
    READ_CAP entries, or finds them all in the GIN index when they are few; then ranks only
    those. When the newest READ_CAP entries hold fewer than COUNT_CAP + 1 matches but at
    least SPARSE (two common words that seldom meet), the results are those matches, ranked,
    and older ones are neither ranked nor counted (`more`). So every match is ranked, and
    the order exact, when the query matches at most COUNT_CAP items and either fewer than
    SPARSE or all of them lie among the newest READ_CAP entries. Past that it is the order
    of the newest matches read, still exact for as many results as they hold of the best
    tier: the newest matches of a tier are the newest of that tier overall (the README's
    "Search")."""
    text = tsquery(q)
    if not text:
        return RankedIds([], False)
    rows, more = _window(text, _entries(text, narrowed, listed=True))
    return RankedIds([pk for pk, _ in rows], more)


# A place in the API's walk of a search (`RankedWalk`), greater first: (section, tier, item
# id). Section 1 is the walk's window, its newest matches ranked (tier 3 the title ... 0
# anywhere, as `tier`); section 0 the older matches, newest first (tier 0).
Place = tuple[int, int, int]


class RankedWalk:
    """PostgreSQL: the API's ?search= walked by cursor, ranked and bounded as the site's
    search (`ranked_ids`): every public item (a tombstone by its title) or those of
    `narrowed`.

    The walk's window is the newest COUNT_CAP + 1 matches when it begins (or those among the
    newest READ_CAP entries: `ranked_ids`), ranked as the site ranks them; the older matches
    follow, newest first. Every place names the window's oldest
    item (`since`), so items deposited during a walk join its window (ranked, or already
    passed) but never push an item out of it into the older matches, where it would come a
    second time. A page costs one window (COUNT_CAP + 1 matches read and ranked, as the site's
    search does) or one read of a page of older matches along the primary key, never the
    whole match; the order is the site's, and exact where the site's is (`ranked_ids`).

    A cursor carries a place as text (`key`): "<since>.<section><tier>.<item id>"."""

    # Deposits a window may gain during a walk and still rank them all (a place naming a
    # `since` much older than the newest matches, made up or very old, ranks no more).
    SLACK = COUNT_CAP + 1
    _KEY = re.compile(r"([0-9]{1,19})\.([01])([0-3])\.([0-9]{1,19})")

    def __init__(self, q: str, narrowed: QuerySet[Item] | None = None) -> None:
        self.text = tsquery(q)
        self.narrowed = narrowed
        self.since: int | None = None  # None until the walk's window is chosen
        self._window: list[Place] | None = None

    def _matches(self) -> QuerySet[ItemSearch]:
        return _entries(self.text, self.narrowed, listed=False)

    def window(self) -> list[Place]:
        """The window's places, greater first (choosing `since` when the walk begins)."""
        if self._window is None:
            if self.since is None:
                ranked, more = _window(self.text, self._matches())
                # The window's oldest match: older ones follow; none: every match.
                self.since = min(pk for pk, _ in ranked) if more else 0
            else:
                ranked = _ranked(self.text, self._matches().filter(item_id__gte=self.since),
                                 COUNT_CAP + 1 + self.SLACK)
            self._window = [(1, len(TIERS) - tier, pk) for pk, tier in ranked]
        return self._window

    def _older(self, *, below: int, above: int, limit: int, ascending: bool) -> list[Place]:
        """Places of matches older than the window, between `above` and `below`."""
        if not self.since:
            return []
        ids = (self._matches().filter(item_id__lt=min(below, self.since), item_id__gt=above)
               .order_by("item_id" if ascending else "-item_id")
               .values_list("item_id", flat=True)[:limit])
        return [(0, 0, pk) for pk in ids]

    def after(self, place: Place | None, limit: int) -> list[Place]:
        """The first `limit` places after `place` (from the first if None)."""
        if not self.text:
            return []
        older = place is not None and place[0] == 0
        found = [] if older else [p for p in self.window() if place is None or p < place]
        if len(found) < limit:
            found += self._older(below=place[2] if older else self.since or 0, above=0,
                                 limit=limit - len(found), ascending=False)
        return found[:limit]

    def before(self, place: Place | None, limit: int) -> list[Place]:
        """The last `limit` places before `place` (from the last if None), the nearest
        first."""
        if not self.text:
            return []
        found: list[Place] = []
        if place is None or place[0] == 0:
            if self.since is None:
                self.window()
            found = self._older(below=self.since or 0, above=place[2] if place else 0,
                                limit=limit, ascending=True)
        if len(found) < limit:
            found += [p for p in reversed(self.window()) if place is None or p > place]
        return found[:limit]

    def key(self, place: Place) -> str:
        section, rank, pk = place
        return f"{self.since}.{section}{rank}.{pk}"

    def place(self, key: str) -> Place | None:
        """The place a cursor's `key` names (and the walk's `since`), or None if none."""
        found = self._KEY.fullmatch(key)
        if found is None:
            return None
        since, section, rank, pk = (int(part) for part in found.groups())
        self.since, self._window = since, None
        return section, rank, pk


def in_order(items: QuerySet[Item], ids: list[int]) -> list[Item]:
    """The items of these ids, in this order (one query, and the queryset's prefetches)."""
    found = items.in_bulk(ids)
    return [found[pk] for pk in ids if pk in found]


# The one filter grammar of the site's /search and the API's /api/items/ (the site's also
# narrows by the thesis facets, THESIS_FACETS).
FILTERS = ("state", "creator", "subject", "year", "language", "type", "collection")


def filtered(items: QuerySet[Item], *, state: str = "", creator: str = "", subject: str = "",
             year: str = "", language: str = "", type: str = "", collection: str = "",
             programme: str = "", advisor: str = "", cnpq: str = "", degree: str = ""
             ) -> QuerySet[Item]:
    """items narrowed by every criterion given (the edges check their form first):

    * `state`: Original, Copy or Deleted, exactly;
    * `creator`, `subject`, `type`: one exact Dublin Core value;
    * `year`: four digits, the year of dc:date, or of the deposit when the item has no dc:date;
    * `language`: a BCP 47 tag, any case; a bare language also finds its regions (``pt``
      finds ``pt-BR``). A tombstone shows no language, so none finds it;
    * `collection`: a collection's slug: the items it owns and those mapped into it (none
      for a slug no collection has);
    * `programme`, `advisor`, `cnpq`, `degree`: one exact value of a thesis's
      dc.publisher.program, dc.contributor.advisor, dc.subject.cnpq, local.degree.level.
    """
    if state:
        items = items.filter(state=state)
    thesis = {facet: value for facet, value in (
        ("programme", programme), ("advisor", advisor), ("cnpq", cnpq), ("degree", degree))
        if value}
    if thesis:
        ids = thesis_field_ids()
        for facet, value in thesis.items():
            items = items.filter(_has_thesis_value(facet, value, ids.get(facet)))
    if creator:
        items = items.filter(_has_dc("creator", value=creator))
    if subject:
        items = items.filter(_has_dc("subject", value=subject))
    if type:
        # A type named by its label or another spelling of its URI, as deposits store it.
        items = items.filter(_has_dc("type", value=controlled.type_choice_of(type) or type))
    if year:
        # No deposit was made in the year 0000 (datetime has none); a dc:date may name it.
        deposited = Q(created__year=int(year)) if int(year) else Q(pk__in=[])
        items = items.filter(_has_dc("date", value__startswith=year)
                             | (~_has_dc("date") & deposited))
    if collection:
        found = tree.collection_by_slug(collection)
        items = tree.items_of(items, collection=found) if found else items.none()
    if language:
        # One case-blind pattern, not upper(language) = …: PostgreSQL's planner weighs a
        # pattern against the column's statistics (upper() has none, and it took half the
        # items for a handful: a search narrowed so joined every one of them, issue 29).
        items = items.filter(~Q(state=Item.State.DELETED)
                             & Q(language__iregex=rf"^{re.escape(language)}(-|$)"))
    return items


def search_items(*, q: str = "", sort: str = "", queryset: QuerySet[Item] | None = None,
                 where: str = fulltext.ALL, **filters: str) -> QuerySet[Item]:
    """Listed items matching every given criterion, in order: best match first when q is
    given on PostgreSQL, else newest first; sort="newest" or "title" chooses.

    `q` and `where` (in the record, the full text or both): see `matching`; the filters: see
    `filtered`.
    """
    items = filtered(listed_items() if queryset is None else queryset, **filters)
    items, ranked = matching(items, q, where)
    if sort == "title":
        return items.order_by(Lower("title"), "id")
    if ranked and sort != "newest":
        return items.order_by("-rank", "-search_entry__item_id")
    return items.order_by("-created", "-id")


def find(*, q: str = "", sort: str = "", where: str = fulltext.ALL, **filters: str
         ) -> Results:
    """`search_items` as `Results`: on PostgreSQL, a search best match first reads its
    results and its count from the search entries alone (`ranked_ids`), and from the pages
    of the files open to all (`fulltext.found`: the newest TEXT_CAP items matching there),
    the record's matches first. Its first results, count and facets are kept in the shared
    cache until the collection changes (`_results_key`)."""
    items = search_items(q=q, sort=sort, where=where, **filters)
    key = _results_key(q=q, sort=sort, where=where, **filters)
    if fulltext.full_text() and q.strip() and sort not in ("title", "newest"):
        named = {name: value for name, value in filters.items() if value}
        narrowed = filtered(listed_items(), **named) if named else None
        return Results(items, lambda: _found(q, narrowed, where), cache_key=key)
    return Results(items, cache_key=key, counted=True)


def _found(q: str, narrowed: QuerySet[Item] | None, where: str) -> RankedIds:
    """PostgreSQL: a search's ranked ids in the record (`ranked_ids`), the full text
    (`fulltext.found`, newest first) or both (the record's first, then the full text's
    others), and whether more follow."""
    record = ranked_ids(q, narrowed) if where != fulltext.FULLTEXT else RankedIds([], False)
    if where == fulltext.RECORD:
        return record
    text = fulltext.found(q, None if narrowed is None else narrowed.values("pk"))
    seen = set(record.ids)
    ids = record.ids + [pk for pk in text.ids if pk not in seen]
    return RankedIds(ids[:COUNT_CAP + 1], record.more or text.more or len(ids) > COUNT_CAP)


def _results_key(**criteria: str) -> str | None:
    """The cache key of a search's results under the collection's change token, which the
    database renews at the commit of every write of an item, a file, a page of a file's text
    (migration 0051) or a search entry
    (archive/db/changes.py), read where the search reads (the replica, if it serves this
    page): results kept under a token describe exactly the collection of that token. None, so
    nothing is kept, inside a transaction (it may see uncommitted rows) or without the token's
    table."""
    current = changes.token(router.db_for_read(ItemSearch))
    if current is None:
        return None
    described = repr((current, sorted(criteria.items()), FACET_SAMPLE, COUNT_CAP, READ_CAP,
                      SPARSE))
    return f"archive:search:{RESULTS_VERSION}:" + hashlib.sha256(described.encode()).hexdigest()


class Results:
    """A search's results for Django's Paginator, without counting the whole match: the ids
    of the first FACET_SAMPLE in one query, a count that stops past COUNT_CAP (`counted`:
    both in one query, `_first_and_count`), and pages read from the ids (the first pages) or
    from the database (deeper ones). Or, given
    `ranked` (a search best match first on PostgreSQL: `ranked_ids`), its ids: every page a
    reader can reach, and the count ("more than" it when more matches follow)."""

    def __init__(self, items: QuerySet[Item], ranked: Callable[[], RankedIds] | None = None,
                 *, cache_key: str | None = None, counted: bool = False) -> None:
        self.items = items
        self._count: int | None = None
        self._more: bool | None = None
        self._facets: dict | None = None
        kept = cache.get(cache_key) if cache_key else None
        if kept is not None:
            self.first_ids, self._count, self._more, self._facets = kept
            return
        if ranked is not None:
            self.first_ids, self._more = ranked()
            self._count = len(self.first_ids)
        elif counted:
            self.first_ids, self._count = _first_and_count(items)
        else:
            self.first_ids = list(items.values_list("pk", flat=True)[:FACET_SAMPLE])
        if cache_key:
            cache.set(cache_key, (self.first_ids, self.total, self._more, self.facets()),
                      RESULTS_TTL)

    def facets(self) -> dict[str, list[tuple[str, int]]]:
        """The facets of the first results (`facets`)."""
        if self._facets is None:
            self._facets = facets(self.first_ids[:FACET_SAMPLE])
        return self._facets

    @property
    def sampled(self) -> bool:
        """Whether the facets saw only the first FACET_SAMPLE results (of as many or more)."""
        return len(self.first_ids) >= FACET_SAMPLE

    @property
    def total(self) -> int:
        """The number of results, exact up to COUNT_CAP, else COUNT_CAP + 1."""
        if self._count is None:
            if len(self.first_ids) < FACET_SAMPLE:
                self._count = len(self.first_ids)
            else:
                self._count = self.items.order_by().values("pk")[:COUNT_CAP + 1].count()
        return self._count

    @property
    def more(self) -> bool:
        """Whether more items match than `count()` (the cap's, or a sparse search's)."""
        return self.total > COUNT_CAP if self._more is None else self._more

    def count(self) -> int:
        return min(self.total, COUNT_CAP)

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, page: slice) -> list[int]:
        if page.stop <= len(self.first_ids) or len(self.first_ids) < FACET_SAMPLE:
            return self.first_ids[page]  # the first ids are all there is, or hold this page
        return list(self.items.values_list("pk", flat=True)[page])


def _first_and_count(items: QuerySet[Item]) -> tuple[list[int], int]:
    """The ids of the first FACET_SAMPLE of items in their order, and their count up to
    COUNT_CAP + 1, in one query: the first COUNT_CAP + 1 ids (a programme's 2 500 theses are
    all read and sorted to find their first thousand anyway; a commoner value's first ones
    are read by the same walk as a count would, issue 34)."""
    ids = list(items.values_list("pk", flat=True)[:COUNT_CAP + 1])
    return ids[:FACET_SAMPLE], len(ids)


def _among(model: type[Item] | type[DcValue], column: str, ids: list[int]) -> Q | RawSQL:
    """model.column among ids: on PostgreSQL `= ANY(array)`, one parameter (a thousand
    placeholders of IN cost about 10 ms more to send and plan); IN elsewhere."""
    if not fulltext.full_text():
        return Q(**{f"{column}__in": ids})
    table = connection.ops.quote_name(model._meta.db_table)
    return RawSQL(f"{table}.{connection.ops.quote_name(column)} = ANY(%s::bigint[])", [ids],
                  output_field=BooleanField())


def facets(item_ids: Iterable[int], size: int = 10) -> dict[str, list[tuple[str, int]]]:
    """The commonest creators, subjects, years, languages and types among these items (a
    sample: FACET_SAMPLE at most), and a thesis's programmes, advisors, CNPq areas and degree
    levels (a CNPq area is no subject here: it has its own facet), with counts. Four
    queries."""
    ids = list(item_ids)
    counts: dict[str, Counter] = {name: Counter() for name in FACETS}
    thesis = {pk: facet for facet, pk in thesis_field_ids().items()}
    # order_by(): no sort (DcValue's default order). No DISTINCT either (the database's hash
    # aggregate of 12 000 rows was a fifth of the query, issue 34): an item counts once per
    # value of a facet, whatever fields say it, by the set of (item, facet, value), built
    # and counted in C (a set comprehension, Counter over an iterable), not row by row.
    label = thesis.get
    found = {(item_id, label(field_id, element), value) for item_id, element, field_id, value
             in DcValue.objects.filter(_among(DcValue, "item_id", ids),
                                       Q(element__in=["creator", "subject", "type", "date"])
                                       | Q(field_id__in=list(thesis)))
             .order_by().values_list("item_id", "element", "field_id", "value")}
    dates = [(item_id, value) for item_id, facet, value in found if facet == "date"]
    for (facet, value), n in Counter((facet, value) for _item, facet, value in found
                                     if facet != "date").items():
        counts[facet][value] = n
    # An item counts once in each year its dates name; a date without a readable year counts
    # in none, and the item is no longer "undated" either.
    dated = {item_id for item_id, _value in dates}
    counts["year"].update(year for _item, year in {
        (item_id, value[:4]) for item_id, value in dates
        if value[:4].isascii() and value[:4].isdigit() and len(value[:4]) == 4})
    for item_id, language, created in Item.objects.filter(_among(Item, "id", ids)).values_list(
            "pk", "language", "created"):
        if language:
            counts["language"][language] += 1
        if item_id not in dated:
            counts["year"][f"{created.year:04d}"] += 1

    def top(name: str) -> list[tuple[str, int]]:
        return heapq.nsmallest(size, counts[name].items(),
                               key=lambda pair: (-pair[1], pair[0]))

    return {**{name: top(name) for name in FACETS},
            "year": sorted(counts["year"].items(), reverse=True)[:size]}


# -- The home page's figures --------------------------------------------------------------------

# The home page's figures are read often and change by one item at a time: each process
# shares them through Django's cache for this long instead of scanning every row per request.
FIGURES_TTL = 60


def collection_figures() -> dict:
    """Items, files, total size and languages of the listed items, at most FIGURES_TTL
    seconds old (see the README's "Search": maintained counts were not worth triggers on
    every file write for a figure readers accept a minute late)."""
    return cache.get_or_set("archive:collection-figures", _collection_figures, FIGURES_TTL)


def _collection_figures() -> dict:
    items = listed_items()
    files = ItemFile.objects.filter(item__in=items).aggregate(count=Count("id"), size=Sum("size"))
    languages = sorted(set(items.exclude(language="").order_by()
                           .values_list("language", flat=True).distinct()))
    return {"items": items.count(), "files": files["count"], "size": files["size"] or 0,
            "languages": languages}


# -- The years a listing is narrowed by -------------------------------------------------------

def years() -> list[str]:
    """Every year `filtered(year=…)` finds an item in (of dc:date, else of the deposit),
    newest first: the admin's year filter. Kept in the shared cache under the collection's
    change token (`_results_key`): reading every date of a million items (some hundred
    milliseconds) once per change, not on every page of the list."""
    current = changes.token(router.db_for_read(ItemSearch))
    if current is None:
        return _years()
    return cache.get_or_set(f"archive:years:{current}", _years, FIGURES_TTL * 10)


def _years() -> list[str]:
    dated = (DcValue.objects.filter(element="date").order_by()
             .values_list(Substr("value", 1, 4), flat=True)
             .distinct())
    found = {year for year in dated if year and year.isdigit() and len(year) == 4}
    undated = (Item.objects.filter(~_has_dc("date"), is_archive_service=False).order_by()
               .dates("created", "year"))
    found.update(f"{day.year:04d}" for day in undated)
    return sorted(found, reverse=True)

