"""How the item list is walked: by cursor, never by page number."""
from __future__ import annotations

from typing import NamedTuple

from django.utils.translation import gettext as _
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.pagination import CursorPagination

from ..search.selectors import RankedWalk

INVALID_CURSOR = "invalid cursor: follow the next or previous link as given"


class ItemPagination(CursorPagination):
    """A cursor, not page numbers: follow `next` (and `previous`). Newest deposit first (by
    id), or for ?search= on PostgreSQL the site's order (`RankedResults`); each page is read
    from an index wherever it is, nothing is counted, and items deposited while a client
    walks the list neither repeat nor push others out of it. ?page_size= from 1, at most
    200."""

    page_size_query_param = "page_size"
    max_page_size = 200
    ordering = ("-id",)
    invalid_cursor_message = INVALID_CURSOR

    def get_ordering(self, request, queryset, view) -> tuple[str, ...]:
        # One unique key each: the position alone says where the next page starts.
        return ("-rank_key",) if isinstance(queryset, RankedResults) else self.ordering

    def paginate_queryset(self, queryset, request, view=None):
        # Page numbers are gone: a client still counting pages must hear so, not get the
        # first page again and again.
        page = request.query_params.get("page")
        if page is not None and page.strip() != "1":
            raise ValidationError({"page": ["pages are not numbered any more: follow the "
                                            "next link (?cursor=)"]})
        return super().paginate_queryset(queryset, request, view)

    def get_page_size(self, request) -> int:
        # DRF falls back to the default on a page_size it cannot read; a client that asked
        # for something else should hear so rather than get a page it did not ask for.
        given = request.query_params.get(self.page_size_query_param)
        if given is None:
            return self.page_size
        if not given.isascii() or not given.isdigit() or int(given) < 1:
            raise ValidationError({"page_size": [_("a whole number from 1")]})
        return min(int(given), self.max_page_size)

    def get_schema_operation_parameters(self, view) -> list[dict]:
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_size_query_param:
                parameter["schema"]["minimum"] = 1
                parameter["description"] = (f"Number of results to return per page, "
                                            f"at most {self.max_page_size} (more is cut).")
            if parameter["name"] == self.cursor_query_param:
                parameter["description"] = ("Where the page starts: take it from the next "
                                            "or previous link, never build it.")
        return [*parameters, {
            "name": "page", "in": "query", "required": False, "deprecated": True,
            "schema": {"type": "integer", "enum": [1]},
            "description": "Gone: the list is walked by cursor. 1 is the first page; any "
                           "other value is a 400."}]


class Walked(NamedTuple):
    """One result of a ranked walk: its item, and its place as a cursor's position."""

    item_id: int
    rank_key: str


class RankedResults:
    """A search's walk (archive/search/selectors.py `RankedWalk`: ranked and bounded as the
    site's search) read as DRF's CursorPagination reads a queryset ordered by a unique key:
    `order_by("-rank_key")` (forward) or `order_by("rank_key")` (back), `filter()` past the
    cursor's position, then a slice. Nothing else of a queryset is asked of it."""

    def __init__(self, walk: RankedWalk) -> None:
        self.walk = walk
        self.forward = True
        self.position = None

    def order_by(self, *ordering: str) -> RankedResults:
        self.forward = ordering[0].startswith("-")
        return self

    def filter(self, **past: str) -> RankedResults:
        (key,) = past.values()  # rank_key__lt going forward, rank_key__gt going back
        self.position = self.walk.place(key)
        if self.position is None:
            raise NotFound(INVALID_CURSOR)
        return self

    def __getitem__(self, page: slice) -> list[Walked]:
        read = self.walk.after if self.forward else self.walk.before
        return [Walked(place[2], self.walk.key(place))
                for place in read(self.position, page.stop)[page.start:]]
