"""Reads of items: by IBI in any spelling, with what their pages show, the relations of the
resolution standard (editions, translations) in a fixed number of queries, what the site lists.

The URLs handed out for items are deposit/links.py's; what OAI-PMH and the sitemaps page through
is harvest/selectors.py's; the home page's figures search/selectors.py's."""
from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

from django.db import connection
from django.db.models import Prefetch, QuerySet

from ..identifiers import ibi as ibilib
from ..models import DcValue, Item, ItemFile, RegisteredArchive


def spellings(parsed: ibilib.Ibi) -> list[str]:
    """Every stored spelling of one IBI: the legacy `@port` and an explicit `@80` included."""
    if parsed.form == "ibip":
        return [parsed.text]
    word, subdomain = parsed.first_word, parsed.subdomain
    ports = [f".{parsed.port}", f"@{parsed.port}"] + (["" ] if parsed.port == 80 else [])
    return sorted({parsed.text} | {f"{subdomain}/{word}{p}/{parsed.suffix}" for p in ports})


def item_by_ibi(text: str, queryset: QuerySet[Item] | None = None) -> Item | None:
    """The item with this IBI in either form and any case, or None (also for invalid text)."""
    try:
        parsed = ibilib.parse(text)
    except ValueError:
        return None
    queryset = Item.objects.all() if queryset is None else queryset
    field = "ibip__in" if parsed.form == "ibip" else "ibi__in"
    # The newest, as .first() would (Item's order: -created, -id), but chosen here: its
    # ORDER BY lets SQLite walk the whole table in that order instead of looking the few
    # spellings up in the unique index.
    found = list(queryset.filter(**{field: spellings(parsed)}).order_by())
    return max(found, key=lambda item: (item.created, item.pk), default=None)


def with_details(queryset: QuerySet[Item] | None = None) -> QuerySet[Item]:
    """Items with what the API and pages show, fetched in a fixed number of queries."""
    queryset = Item.objects.all() if queryset is None else queryset
    queryset = queryset.select_related("previous_edition", "translation_of", "next_edition",
                                       "collection")
    return queryset.prefetch_related(
        "mapped_collections",
        Prefetch("dc_values", queryset=DcValue.objects.select_related("field__schema")),
        "alternate_ids",
        Prefetch("files", queryset=ItemFile.objects.order_by("name")),
        Prefetch("translations", queryset=Item.objects.only("id", "ibi", "ibip", "language",
                                                            "translation_of_id", "state")))


def summaries(queryset: QuerySet[Item] | None = None) -> QuerySet[Item]:
    """Items as a list of them shows each (templates/archive/site/_item_summary.html): title,
    IBI, language, date and creators, these read in one more query. Not `with_details`: a
    thesis's ~25 values with their fields, its files, editions and translations, twenty
    times, were two thirds of a collection's page (bench/README.md, thesis_scale.py)."""
    queryset = Item.objects.all() if queryset is None else queryset
    return queryset.prefetch_related(
        Prefetch("dc_values", queryset=DcValue.objects.filter(element="creator")))


def original_archive(copy: Item) -> str:
    """How a Copy names the Archive of its Original: the base URL it was copied from, and that
    Archive's archive service IBI when it is registered here under that address."""
    host = urlsplit(copy.source_archive).netloc.lower()
    service = RegisteredArchive.objects.filter(address__iexact=host).values_list(
        "archive_service_ibi", flat=True).first() if host else None
    return f"{copy.source_archive} ({service})" if service else copy.source_archive


def public_items() -> QuerySet[Item]:
    return Item.objects.filter(is_archive_service=False)


def archive_service() -> Item:
    return Item.objects.get(is_archive_service=True)


def last_edition(item: Item) -> Item:
    """The newest edition of item's chain: one query, however long the chain."""
    if not item.edition_family:
        return item
    newest = (Item.objects.filter(edition_family=item.edition_family)
              .order_by("-edition_number").first())
    return newest or item


def edition_chain(item: Item) -> list[Item]:
    """Every edition of item's chain held here, oldest first (deleted ones included): one
    query. Editions held on other Archives are not known here."""
    if not item.edition_family:
        return [item]
    chain = list(Item.objects.filter(edition_family=item.edition_family)
                 .only("id", "ibi", "ibip", "state", "created", "edition_number",
                       "edition_family", "origin_relations").order_by("edition_number", "id"))
    return chain or [item]


def chain_known_whole(chain: list[Item]) -> bool:
    """Whether an edition chain held here (`edition_chain`) is the whole chain: neither its
    first edition names a previous one nor its last a next one held on another Archive
    (``Item.origin_relations``: a Copy's as its Original states them, a migrated Original's
    as its former Archive did), and its last edition is no Copy: a Copy's relations are its
    Original's as of the last copy, and a newer edition may have come since (#25, 2)."""
    return not (chain[0].origin_relations.get(".previousedition")
                or chain[-1].origin_relations.get(".nextedition")
                or chain[-1].state == Item.State.COPY)


def memento_chain(item: Item) -> list[Item] | None:
    """item's edition chain (`edition_chain`) when this Archive's TimeGate answers for it
    (resolver/memento.py): two editions or more, known whole here; None otherwise."""
    if item.is_archive_service or not item.edition_family:
        return None
    chain = edition_chain(item)
    return chain if len(chain) > 1 and chain_known_whole(chain) else None


# -- Archive service: a fixed number of queries per answer, whatever is on file ---------------
# Every urlRequest runs some of these reads. They are raw SQL because compiling the same queries
# through the ORM costs more than running them (bench/archive_service.py): plain SQL that
# SQLite and PostgreSQL both read, over the columns the models define.

_TABLE = Item._meta.db_table
# Whether the item's target file is restricted (NULL: no such file), for the URL its answer
# gives (archive_service/answers.py asks archive/access/policy.py).
_TARGET = (f"(SELECT f.restricted FROM {ItemFile._meta.db_table} f "
           "WHERE f.item_id = {a}.id AND f.name = {a}.target_file) AS target_restricted")
_ITEM_SQL = (f"SELECT i.*, n.ibi AS next_ibi, n.ibip AS next_ibip, {_TARGET.format(a='i')} "
             f"FROM {_TABLE} i LEFT JOIN {_TABLE} n ON n.previous_edition_id = i.id "
             "WHERE i.{field} IN ({marks}) ORDER BY i.id LIMIT 1")
# A bare boolean, not "= %s": SQLite then reads the partial index one_archive_service.
_SERVICE_SQL = f"SELECT * FROM {_TABLE} WHERE is_archive_service LIMIT 1"
_NEWEST_SQL = (f"SELECT i.*, {_TARGET.format(a='i')} FROM {_TABLE} i "
               "WHERE i.edition_family IN ({marks}) "
               f"AND i.edition_number = (SELECT MAX(j.edition_number) FROM {_TABLE} j "
               "WHERE j.edition_family = i.edition_family)")
_FAMILY_SQL = (f"SELECT i.*, {_TARGET.format(a='i')} FROM {_TABLE} i "
               "WHERE i.id IN ({marks}) OR i.translation_of_id IN ({marks})")
_SERVICE_AND_ITEM_SQL = (
    f"SELECT i.*, n.ibi AS next_ibi, n.ibip AS next_ibip, {_TARGET.format(a='i')} "
    f"FROM {_TABLE} i LEFT JOIN {_TABLE} n ON n.previous_edition_id = i.id "
    "WHERE i.{field} IN ({marks}) "
    f"UNION ALL SELECT s.*, NULL, NULL, NULL FROM {_TABLE} s WHERE s.is_archive_service")


def _marks(values: list) -> str:
    return ", ".join(["%s"] * len(values))


def item_with_next_edition(text: str) -> Item | None:
    """`item_by_ibi` in one query, with the next edition's IBI as .next_ibi / .next_ibip
    ("" when there is none)."""
    try:
        parsed = ibilib.parse(text)
    except ValueError:
        return None
    found = spellings(parsed)
    sql = _ITEM_SQL.format(field="ibip" if parsed.form == "ibip" else "ibi", marks=_marks(found))
    item = next(iter(Item.objects.raw(sql, found)), None)
    if item is not None:
        item.next_ibi, item.next_ibip = item.next_ibi or "", item.next_ibip or ""
    return item


def archive_service_or_none() -> Item | None:
    """The archive service item, or None before the first migrate."""
    return next(iter(Item.objects.raw(_SERVICE_SQL)), None)


def service_and_item(text: str) -> tuple[Item | None, Item | None]:
    """(archive service, `item_with_next_edition(text)`) in one query."""
    try:
        parsed = ibilib.parse(text)
    except ValueError:
        return archive_service_or_none(), None
    found = spellings(parsed)
    field = "ibip" if parsed.form == "ibip" else "ibi"
    rows = list(Item.objects.raw(
        _SERVICE_AND_ITEM_SQL.format(field=field, marks=_marks(found)), found))
    service = next((row for row in rows if row.is_archive_service), None)
    item = min((row for row in rows if getattr(row, field) in found), default=None,
               key=lambda row: row.pk)
    if item is not None:
        item.next_ibi, item.next_ibip = item.next_ibi or "", item.next_ibip or ""
    return service, item


def newest_editions(items: Iterable[Item]) -> dict[str, Item]:
    """The newest edition of each edition chain of items, by edition_family: one query."""
    families = sorted({item.edition_family for item in items if item.edition_family})
    if not families:
        return {}
    rows = Item.objects.raw(_NEWEST_SQL.format(marks=_marks(families)), families)
    return {row.edition_family: row for row in rows}


def translation_families(items: Iterable[Item]) -> list[Item]:
    """Originals of items (or items themselves) and all their translations: one query."""
    roots = sorted({item.translation_of_id or item.pk for item in items})
    rows = Item.objects.raw(_FAMILY_SQL.format(marks=_marks(roots)), roots + roots)
    return sorted(rows, key=lambda row: row.pk)


def items_with_file(item_ids: Iterable[int], name: str) -> dict[int, bool]:
    """Which of these items hold a file with exactly this name, and whether it is restricted
    there: one query."""
    return dict(ItemFile.objects.filter(item_id__in=list(item_ids), name=name)
                .values_list("item_id", "restricted"))


# The previous edition and the family's languages of one item, in one query: this runs on every
# redirect of an item held here (the resolver's Link headers), where the ORM's query building
# would cost more than the query.
_RELATIONS_SQL = """
SELECT 'p', prev.ibi FROM {t} i JOIN {t} prev ON prev.id = i.previous_edition_id
 WHERE i.{field} IN ({marks})
UNION ALL
SELECT 'l', m.language FROM {t} i JOIN {t} m ON m.id = COALESCE(i.translation_of_id, i.id)
       OR m.translation_of_id = COALESCE(i.translation_of_id, i.id)
 WHERE i.{field} IN ({marks}) AND m.language <> '' AND m.state <> %s
"""


def previous_and_languages(item_ibi: str) -> tuple[str | None, dict[str, bool]]:
    """The previous edition's IBI and the languages (Table 9.5 tags) of the translation family
    of an item held here."""
    parsed = ibilib.parse(item_ibi)
    found = spellings(parsed)
    sql = _RELATIONS_SQL.format(t=_TABLE, marks=", ".join(["%s"] * len(found)),
                                field="ibip" if parsed.form == "ibip" else "ibi")
    with connection.cursor() as cursor:
        cursor.execute(sql, [*found, *found, Item.State.DELETED])
        rows = cursor.fetchall()
    previous = next((value for kind, value in rows if kind == "p"), None)
    languages = {value: True for kind, value in rows if kind == "l" and len(value) <= 5}
    return previous, languages


# -- What the site lists, and an item's editions ------------------------------------------------

def listed_items() -> QuerySet[Item]:
    """What home, search and browse list: the public items that are not deleted."""
    return public_items().exclude(state=Item.State.DELETED)


def newer_edition(item: Item) -> Item | None:
    """What a tombstone points readers to: the next edition, else the latest, else None."""
    found = editions(item)
    return found["next"] or found["latest"]


def editions(item: Item) -> dict[str, Item | None]:
    """Previous, next and latest edition of item (None where there is none or it is item)."""
    try:
        following = item.next_edition
    except Item.DoesNotExist:
        following = None
    latest = last_edition(item)
    return {"previous": item.previous_edition, "next": following,
            "latest": None if latest.pk == item.pk else latest}
