"""/api/items/, /api/items/<ibi> and an item's files: DRF views that translate and delegate.

Reads go through selectors, writes through archive.deposit.services; a refusal (one family,
archive/refusals.py) becomes its own status with {"detail": …} (exceptions.py). Files arrive
through archive.deposit.uploads (hashed on the way, limits enforced while reading) and
parsers.py, so nothing here touches bytes.
"""
from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator, Mapping

from django.db import transaction
from django.db.models import QuerySet
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.response import Response

from ...access import policy
from ...access import selectors as access
from ...communities import services as tree
from ...deposit import pending, selectors, services
from ...models import DC_ELEMENTS, Item
from ...refusals import Refusal
from ...registry.names import Qualified
from ...search import fulltext
from ...search import selectors as searching
from ..idempotency import IdempotentWrites
from ..pagination import ItemPagination, RankedResults
from ..parsers import JSONParser, MultiPartParser
from ..permissions import AddFilesPermissions, ItemPermissions
from ..schema import IBI_PARAMETER, IDEMPOTENCY_KEY, errors
from ..serializers.inputs import (
    AddFilesSerializer,
    DeleteSerializer,
    DepositSerializer,
    ItemUpdateSerializer,
)
from ..serializers.items import (
    FileSerializer,
    ItemSerializer,
    TombstoneSerializer,
    records,
    shown_files,
)

YEAR = re.compile(r"[0-9]{4}")


def _uploads(files) -> list[services.Upload]:
    # The declared type is a hint the deposit weighs (archive.deposit.content_types).
    return [services.Upload(name=file.name, file=file, content_type=file.content_type or "")
            for file in files]


@contextlib.contextmanager
def _files(request, data: dict, on_saved) -> Iterator[tuple[list[services.Upload], object]]:
    """The files sent with the request, then the complete uploads it names (the user's own);
    and the on_saved that ends those uploads with the write that stores them."""
    used = pending.complete_of(request.user, data.get("uploads") or [])
    with pending.opened(used) as uploaded:
        yield _uploads(data.get("files") or []) + uploaded, pending.consumed(used, on_saved)


def _dc(data: dict) -> dict[str, list]:
    """The `dc` of the services: the top-level elements (dc.<element>'s values) and the
    values of `metadata` by field; a field named both ways is refused."""
    dc: dict[str, list] = {element: data.pop(element) for element in DC_ELEMENTS
                           if element in data}
    qualified: dict[str, list] = {}
    for given in data.pop("metadata", None) or ():
        name = given["field"].strip()
        qualified.setdefault(name, []).append(Qualified(
            value=given["value"], language=given.get("language", ""),
            authority=given.get("authority", ""), confidence=given.get("confidence", -1)))
    for name in qualified:
        if name.startswith("dc.") and name[3:] in dc:
            raise Refusal(_("%(field)s is given twice: as %(element)s and in metadata")
                               % {"field": name, "element": name[3:]})
    return dc | qualified


class _ItemRecordMixin(IdempotentWrites):
    def get_serializer_context(self) -> dict:
        # Who reads (archive/access/policy.py): a librarian sees every file, with its URL.
        context = super().get_serializer_context()
        context["reader"] = (policy.LIBRARIAN if access.privileged(self.request.user)
                             else policy.PUBLIC)
        return context

    def record(self, item: Item, status_code: int = status.HTTP_200_OK) -> Response:
        """The item re-read with everything its record shows, after a write."""
        self.answered = item
        item = selectors.with_details(Item.objects.filter(pk=item.pk)).get()
        data = ItemSerializer(item, context=self.get_serializer_context()).data
        headers = {}
        if status_code == status.HTTP_201_CREATED:
            headers["Location"] = self.request.build_absolute_uri(
                reverse("api:item", args=[item.ibi]))
        return Response(data, status=status_code, headers=headers)


def filter_items(items: QuerySet[Item], params
                 ) -> tuple[QuerySet[Item], RankedResults | None]:
    """?state= (any case), ?creator=, ?subject=, ?type=, ?year=, ?language=, ?collection= (the
    site's filters: archive/search/selectors.py `filtered`), ?search= (the site's search).
    The items, and on PostgreSQL for a search its ranked walk among those items, from which a
    page is read (`RankedWalk`: ranked and bounded as the site's search)."""
    criteria = {name: params.get(name, "").strip() for name in searching.FILTERS
                if params.get(name, "").strip()}
    state = params.get("state")
    if state is not None:  # given, it must name a state: `?state=` is no wildcard
        states = {value.lower(): value for value in Item.State.values}
        if state.strip().lower() not in states:
            raise ValidationError({"state": [
                _("one of %(states)s") % {"states": ", ".join(Item.State.values)}]})
        criteria["state"] = states[state.strip().lower()]
    if "year" in params and not YEAR.fullmatch(params["year"]):
        raise ValidationError({"year": [_("Give the year as four digits.")]})
    where = params.get("in", fulltext.RECORD)
    if where not in fulltext.WHERE:
        raise ValidationError({"in": [
            _("one of %(choices)s") % {"choices": ", ".join(fulltext.WHERE)}]})
    items = searching.filtered(items, **criteria)
    q = params.get("search", "")
    if fulltext.full_text() and q.strip() and where == fulltext.RECORD:
        return items, RankedResults(searching.RankedWalk(q, items if criteria else None))
    return searching.matching(items, q, where)[0], None


def text_matches(found: fulltext.TextMatches) -> dict:
    """An item's matches in the full text as the API gives them: its first matching pages
    (and whether more follow), and
    each snippet as its text and the [start, end) offsets of the words matched in it."""
    snippets = []
    for snippet in found.snippets:
        text, marked = "", []
        for piece, matched in snippet.parts:
            if matched:
                marked.append([len(text), len(text) + len(piece)])
            text += piece
        snippets.append({"file": snippet.file, "page": snippet.page, "text": text,
                         "highlights": marked})
    return {"more": found.more,
            "pages": [{"file": name, "page": number} for name, number in found.pages],
            "snippets": snippets}


class ItemList(_ItemRecordMixin, generics.ListAPIView):
    """GET: the repository's items, newest first (for ?search= on PostgreSQL the site's
    order: the newest COUNT_CAP + 1 matches ranked, then the older newest first), by cursor;
    the archive service is not listed.
    POST: deposit a new item (multipart)."""

    serializer_class = ItemSerializer
    permission_classes = [ItemPermissions]
    parser_classes = [MultiPartParser]
    pagination_class = ItemPagination
    success_status = {"POST": status.HTTP_201_CREATED}
    recognises_repeats = True
    found_in_text: dict = {}  # ibi → fulltext.TextMatches of the page's items

    def get_queryset(self) -> QuerySet[Item]:
        items, self.ranked = filter_items(selectors.with_details(selectors.public_items()),
                                          self.request.query_params)
        return items

    def paginate_queryset(self, queryset: QuerySet[Item]) -> list[Item]:
        if self.ranked is None:
            page = super().paginate_queryset(queryset)
        else:
            # A search on PostgreSQL: the page is walked in the ranked matches, then its
            # items read.
            walked = self.paginator.paginate_queryset(self.ranked, self.request, view=self)
            page = searching.in_order(queryset, [entry.item_id for entry in walked])
        q = self.request.query_params.get("search", "").strip()
        self.found_in_text = {}
        if q and self.request.query_params.get("in", fulltext.RECORD) != fulltext.RECORD:
            found = fulltext.matches(q, [item.pk for item in page])
            self.found_in_text = {item.ibi: found[item.pk] for item in page if item.pk in found}
        return page

    def get_paginated_response(self, data) -> Response:
        # ?in=fulltext or all: each item found in the full text with its pages and snippets.
        for record in data:
            if record["ibi"] in self.found_in_text:
                record["matches"] = text_matches(self.found_in_text[record["ibi"]])
        return super().get_paginated_response(data)

    def get_serializer_class(self):
        # The browsable API renders its POST form from this.
        return DepositSerializer if self.request.method == "POST" else ItemSerializer

    @extend_schema(parameters=[
        OpenApiParameter("state", OpenApiTypes.STR, enum=Item.State.values),
        OpenApiParameter("language", OpenApiTypes.STR,
                         description="BCP 47 tag; a bare language also finds its regions"),
        OpenApiParameter("creator", OpenApiTypes.STR,
                         description="one creator, exactly as deposited (the site's facet)"),
        OpenApiParameter("subject", OpenApiTypes.STR,
                         description="one subject, exactly as deposited"),
        OpenApiParameter("type", OpenApiTypes.STR,
                         description="one dc:type value, exactly as stored"),
        OpenApiParameter("collection", OpenApiTypes.STR,
                         description="a collection's slug: the items it owns and those "
                                     "mapped into it"),
        OpenApiParameter("year", {"type": "string", "pattern": "^[0-9]{4}$"},
                         description="the year of dc:date, or of the deposit when the item "
                                     "has none"),
        OpenApiParameter("in", OpenApiTypes.STR, enum=list(fulltext.WHERE),
                         description="where ?search= looks: record (the default: the "
                                     "metadata), fulltext (the text of the files open to "
                                     "all, page by page), all (either); newest first but "
                                     "for record. An item found in the full text has "
                                     "\"matches\": its pages and snippets"),
        OpenApiParameter("search", OpenApiTypes.STR,
                         description="the site's search: words, \"phrases\", prefix*, "
                                     "-excluded, OR; in the title, creators, subjects and "
                                     "other metadata (a tombstone: its title only). "
                                     "PostgreSQL: accents ignored, Portuguese and English "
                                     "stems; the newest 10 001 matches best first (as the "
                                     "site's search; a sparse query: those among the "
                                     "newest 100 010 entries), then the older ones "
                                     "newest first; "
                                     "SQLite: substrings, accents ignored, newest first"),
    ], responses={200: records(many=True),
                  **errors(400, 404, e400="an unknown state or ?in=, a year that is not four "
                                          "digits, an unreadable page_size, a page other "
                                          "than 1",
                           e404="an invalid cursor")})
    def get(self, request, *args, **kwargs) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        request={"multipart/form-data": DepositSerializer},
        parameters=[IDEMPOTENCY_KEY],
        # A replayed key answers the item as it is now: a tombstone if it was deleted since.
        responses={201: records(), **errors(303, 400, 401, 403, 409, 413, 507)})
    def post(self, request) -> Response:
        form = DepositSerializer(data=request.data)
        unknown = sorted(set(request.data) - set(form.fields))
        if unknown:  # a misspelt element (creater=…) must not vanish silently
            detail = ngettext("unknown field %(fields)s", "unknown fields %(fields)s",
                              len(unknown)) % {"fields": ", ".join(unknown)}
            return Response({"detail": detail},
                            status=status.HTTP_400_BAD_REQUEST)
        form.is_valid(raise_exception=True)
        data = form.validated_data

        given = data.get("access")
        with _files(request, data, self.on_saved) as (uploads, on_saved):
            item = services.item_deposit(
                title=data["title"], uploads=uploads,
                target_file=data.get("target_file", ""), language=data.get("language", ""),
                previous_edition=data.get("previous_edition"),
                translation_of=data.get("translation_of"),
                sha256=data.get("sha256") or None, dc=_dc(data),
                transferable=data["transferable"],
                access=services.Access(**given) if given is not None else None,
                restricted_files=data.get("restricted_files", ()), on_saved=on_saved,
                collection=data.get("collection"), by_profile=True)
        return self.record(item, status.HTTP_201_CREATED)


class _OneItem(_ItemRecordMixin, generics.GenericAPIView):
    serializer_class = ItemSerializer

    def get_queryset(self) -> QuerySet[Item]:
        return selectors.with_details(selectors.public_items())

    def get_object(self) -> Item:
        item = selectors.item_by_ibi(self.kwargs["ibi"], self.get_queryset())
        if item is None:
            raise NotFound(_("no item of this repository has the IBI %(ibi)r")
                           % {"ibi": self.kwargs["ibi"]})
        self.check_object_permissions(self.request, item)
        return item


@extend_schema(parameters=[IBI_PARAMETER])
class ItemDetail(_OneItem):
    """One item by IBI: read, change its metadata, delete it (a tombstone stays)."""

    permission_classes = [ItemPermissions]
    parser_classes = [JSONParser, MultiPartParser]
    success_status = {"PATCH": status.HTTP_200_OK, "DELETE": status.HTTP_200_OK}

    @extend_schema(responses={
        200: ItemSerializer,
        410: OpenApiResponse(TombstoneSerializer, description="deleted: its tombstone"),
        **errors(404)})
    def get(self, request, ibi: str) -> Response:
        item = self.get_object()
        # A tombstone is still read, but as what it is: gone, as its persistent URL answers.
        return Response(self.get_serializer(item).data,
                        status=status.HTTP_410_GONE if item.is_deleted else status.HTTP_200_OK)

    @extend_schema(request=ItemUpdateSerializer, parameters=[IDEMPOTENCY_KEY],
                   responses={200: ItemSerializer, **errors(303, 400, 401, 403, 404, 409)})
    def patch(self, request, ibi: str) -> Response:
        item = self.get_object()
        if not isinstance(request.data, Mapping):
            return Response({"detail": _("the body must be a JSON object of fields")},
                            status=status.HTTP_400_BAD_REQUEST)
        if not request.data:  # {} or a form of no field (a body its parser could not read)
            return Response({"detail": _("the body names no field to change")},
                            status=status.HTTP_400_BAD_REQUEST)
        form = ItemUpdateSerializer(data=request.data, partial=True)
        fixed = sorted(set(request.data) - set(form.fields))
        if fixed:
            detail = _("cannot change %(fields)s") % {"fields": ", ".join(fixed)}
            return Response({"detail": detail},
                            status=status.HTTP_400_BAD_REQUEST)
        form.is_valid(raise_exception=True)
        fields = dict(form.validated_data)
        dc = _dc(fields)
        given, restricted = fields.pop("access", None), fields.pop("restricted_files", None)
        moved, mapped = fields.pop("collection", None), fields.pop("mapped_collections", None)
        with transaction.atomic():  # metadata, access and place change together, or none
            if moved is not None:
                if not dc:  # the values it has must do in its new collection's profile
                    services.check_profile(collection=moved, rows=[], item=item)
                tree.item_move(item=item, collection=moved)
            if mapped is not None:
                tree.item_map(item=item, collections=mapped)
            if fields or dc:
                services.item_update(item=item, dc=dc or None, by_profile=True,
                                     collection=moved, **fields)
            if given is not None or restricted is not None:
                services.item_set_access(item=item, restricted_files=restricted,
                                         **(given or {}))
            self.on_saved(item)
        return self.record(item)

    @extend_schema(request=DeleteSerializer, parameters=[IDEMPOTENCY_KEY],
                   responses={200: TombstoneSerializer, **errors(303, 400, 401, 403, 404, 409)})
    def delete(self, request, ibi: str) -> Response:
        item = self.get_object()
        form = DeleteSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        return self.record(services.item_delete(
            item=item, reason=form.validated_data.get("reason", ""),
            at_creators_request=form.validated_data["at_creators_request"],
            on_saved=self.on_saved))


@extend_schema(parameters=[IBI_PARAMETER])
class ItemFiles(_OneItem):
    """Add files to an item; a name the item already has is a conflict, never an overwrite."""

    permission_classes = [AddFilesPermissions]
    parser_classes = [MultiPartParser]
    pagination_class = None  # an item's files are few: one list
    success_status = {"POST": status.HTTP_201_CREATED}

    def get_serializer_class(self):
        return AddFilesSerializer if self.request.method == "POST" else ItemSerializer

    @extend_schema(responses={200: FileSerializer(many=True),
                              410: OpenApiResponse(TombstoneSerializer,
                                                   description="deleted: its tombstone"),
                              **errors(404)})
    def get(self, request, ibi: str) -> Response:
        """The item's files; a deleted item lists none: 410 with its tombstone."""
        item = self.get_object()
        context = self.get_serializer_context()
        if item.is_deleted:
            return Response(TombstoneSerializer(item, context=context).data,
                            status=status.HTTP_410_GONE)
        return Response(FileSerializer(shown_files(item, context["reader"]), many=True,
                                       context=context).data)

    @extend_schema(request={"multipart/form-data": AddFilesSerializer},
                   parameters=[IDEMPOTENCY_KEY],
                   responses={201: ItemSerializer,
                              **errors(303, 400, 401, 403, 404, 409, 413, 507)})
    def post(self, request, ibi: str) -> Response:
        item = self.get_object()
        form = AddFilesSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        with _files(request, form.validated_data, self.on_saved) as (uploads, on_saved):
            services.item_add_files(item=item, uploads=uploads,
                                    sha256=form.validated_data.get("sha256") or None,
                                    on_saved=on_saved)
        return self.record(item, status.HTTP_201_CREATED)
