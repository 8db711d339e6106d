"""The REST API under /api/: serializers that translate, views that delegate to services.

Reads go through selectors, writes through archive.deposit.services; a ServiceError becomes its own
status with {"detail": …}. Files arrive through archive.deposit.uploads (hashed on the way, limits
enforced while reading), so nothing here touches bytes.
"""
from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import UTC, datetime

from django.core.exceptions import SuspiciousOperation
from django.db.models import Q, QuerySet
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
    extend_schema_field,
)
from rest_framework import generics, serializers, status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.pagination import CursorPagination
from rest_framework.parsers import JSONParser
from rest_framework.permissions import DjangoModelPermissionsOrAnonReadOnly
from rest_framework.response import Response
from rest_framework.views import exception_handler as rest_exception_handler

from ..deposit import idempotency, links, selectors, services
from ..deposit.uploads import FileTooLarge, MultiPartParser
from ..metadata import citation
from ..models import DC_ELEMENTS, Item, ItemFile, ItemSearch
from ..search import selectors as searching
from ..web.addresses import base_url
from .schema import StrictInput, errors


def iso_utc(moment: datetime) -> str:
    """2014-01-02T17:23:57Z, the timestamp form of the resolution standard."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _base(serializer: serializers.Serializer) -> str:
    """Where the request a serializer answers reached this Archive (web/addresses.py)."""
    return base_url(serializer.context.get("request"))


# -- Serializers -------------------------------------------------------------------------------

class DcElementField(serializers.ListField):
    """The values of one Dublin Core element, named by the field, as a list of strings."""

    child = serializers.CharField(allow_blank=True)

    def __init__(self, **kwargs) -> None:
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)

    def get_attribute(self, item: Item) -> list[str]:
        return item.dc(self.field_name)

    def to_internal_value(self, data) -> list[str]:
        # One value is a list of one, in JSON as in a form (where a field may simply not repeat).
        return super().to_internal_value([data] if isinstance(data, str) else data)


class CreatorField(DcElementField):
    """dc:creator: each value a name ("Family, Given") or {"name": …, "orcid": …} with an
    ORCID iD (bare or as its https://orcid.org/ URL). In a multipart form an object is sent as
    its JSON text. Cleans to [(name, bare iD or "")]; out, the names as every element's."""

    child = serializers.JSONField()

    def to_internal_value(self, data) -> list[tuple[str, str]]:
        values = [data] if isinstance(data, str | dict) else data
        if not isinstance(values, list):
            raise ValidationError(_("a creator is a name, an object {\"name\", \"orcid\"}, "
                                    "or a list of them"))
        return [self._one(value) for value in values]

    @staticmethod
    def _one(value) -> tuple[str, str]:
        if isinstance(value, str) and value.lstrip().startswith("{"):
            try:  # a multipart form's way of sending an object
                value = json.loads(value)
            except ValueError:
                raise ValidationError(_("a creator that starts with { must be a JSON object "
                                        "{\"name\", \"orcid\"}")) from None
        if isinstance(value, str):
            return value, ""
        if (not isinstance(value, dict) or set(value) - {"name", "orcid"}
                or not isinstance(value.get("name"), str)
                or not isinstance(value.get("orcid", ""), str | None)):
            raise ValidationError(_('a creator object is {"name": "…", "orcid": "…"}, '
                                    "both strings"))
        try:
            return value["name"], services.clean_orcid(value.get("orcid") or "")
        except services.ServiceError as exc:
            raise ValidationError(str(exc)) from None


class CreatorSerializer(serializers.Serializer):
    """A creator with the ORCID iD deposited with it ("" when none)."""

    name = serializers.CharField()
    orcid = serializers.CharField(help_text="bare ORCID iD, e.g. 0000-0002-1825-0097; "
                                            "empty when unknown")


class DublinCoreFields(serializers.Serializer):
    creator = CreatorField()
    subject = DcElementField()
    description = DcElementField()
    publisher = DcElementField()
    contributor = DcElementField()
    date = DcElementField()
    type = DcElementField()
    format = DcElementField()
    identifier = DcElementField()
    source = DcElementField()
    relation = DcElementField()
    coverage = DcElementField()
    rights = DcElementField()


class FileSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()

    class Meta:
        model = ItemFile
        fields = ["name", "size", "sha256", "content_type", "url"]

    def get_url(self, file: ItemFile) -> str:
        return links.file_url(file.item.ibi, file.name, _base(self))


class TombstoneSerializer(serializers.ModelSerializer):
    """A deleted item's record, wherever the API shows one (an item, a list, a search): the
    site's tombstone policy (archive/site/views.py `_tombstone`). Its identifiers, state,
    title, citation, the date and reason of its deletion and the newer edition; never its
    description, other metadata or files."""

    timestamp = serializers.SerializerMethodField(help_text="last change, ISO 8601 UTC")
    persistent_url = serializers.SerializerMethodField()
    citation = serializers.SerializerMethodField(help_text="as the tombstone page cites it")
    newer_edition = serializers.SerializerMethodField(
        help_text="IBI of the next (else latest) edition, if any")

    class Meta:
        model = Item
        fields = ["ibi", "ibip", "state", "title", "timestamp", "persistent_url", "citation",
                  "deleted_at", "deletion_reason", "newer_edition"]
        read_only_fields = fields

    def get_timestamp(self, item: Item) -> str:
        return iso_utc(item.updated)

    def get_persistent_url(self, item: Item) -> str:
        return links.persistent_url(item.ibi, _base(self))

    def get_citation(self, item: Item) -> str:
        return citation.apa(citation.of_item(
            item, url=links.persistent_url(item.ibi, _base(self)),
            publisher=links.archive_address(_base(self))))

    def get_newer_edition(self, item: Item) -> str | None:
        newer = selectors.newer_edition(item)
        return newer.ibi if newer is not None else None


class ItemSerializer(DublinCoreFields, serializers.ModelSerializer):
    """An item's record: both IBI forms, state, files with their URLs, Dublin Core, links.
    A deleted item's record is its tombstone (TombstoneSerializer), here and in lists."""

    timestamp = serializers.SerializerMethodField(help_text="last update, ISO 8601 UTC")
    files = FileSerializer(many=True)
    persistent_url = serializers.SerializerMethodField()
    landing_url = serializers.SerializerMethodField()
    previous_edition = serializers.SlugRelatedField(slug_field="ibi", read_only=True,
                                                    allow_null=True)
    next_edition = serializers.SerializerMethodField()
    translation_of = serializers.SlugRelatedField(slug_field="ibi", read_only=True,
                                                  allow_null=True)
    translations = serializers.SlugRelatedField(slug_field="ibi", many=True, read_only=True)
    creators = serializers.SerializerMethodField(
        help_text="the creators with their ORCID iDs, in the order of creator")

    class Meta:
        model = Item
        fields = ["ibi", "ibip", "state", "title", "language", "timestamp", "target_file",
                  "files", "persistent_url", "landing_url", *DC_ELEMENTS, "creators",
                  "previous_edition",
                  "next_edition", "translation_of", "translations", "transferable", "created",
                  "deleted_at", "source_archive", "copied_at", "origin_timestamp"]

    def get_fields(self) -> dict:
        # A record is output only: writes go through the input serializers below.
        fields = super().get_fields()
        for field in fields.values():
            field.read_only = True
        return fields

    def to_representation(self, item: Item) -> dict:
        if item.is_deleted:
            return TombstoneSerializer(item, context=self.context).data
        return super().to_representation(item)

    def get_timestamp(self, item: Item) -> str:
        # A copy's timestamp is its original's, as the archive service answers it.
        if item.state == Item.State.COPY and item.origin_timestamp:
            return iso_utc(item.origin_timestamp)
        return iso_utc(item.updated)

    def get_persistent_url(self, item: Item) -> str:
        return links.persistent_url(item.ibi, _base(self))

    def get_landing_url(self, item: Item) -> str:
        return links.landing_url(item.ibi, _base(self))

    @extend_schema_field(CreatorSerializer(many=True))
    def get_creators(self, item: Item) -> list[dict[str, str]]:
        return [{"name": v.value, "orcid": v.orcid} for v in item.dc_values.all()
                if v.element == "creator"]

    def get_next_edition(self, item: Item) -> str | None:
        following = getattr(item, "next_edition", None)  # reverse one-to-one: may not exist
        return following.ibi if following is not None else None


def records(*, many: bool = False) -> PolymorphicProxySerializer:
    """In the schema, what ItemSerializer gives: a live item's record or a tombstone."""
    return PolymorphicProxySerializer(
        component_name="ItemOrTombstone", serializers=[ItemSerializer, TombstoneSerializer],
        resource_type_field_name=None, many=many)


class ItemIbiField(serializers.CharField):
    """An IBI in either form, any case, naming an item of this repository."""

    def to_internal_value(self, data) -> Item:
        text = super().to_internal_value(data)
        item = selectors.item_by_ibi(text, selectors.public_items())
        if item is None:
            raise ValidationError(_("no item of this repository has the IBI %(ibi)r")
                                  % {"ibi": text})
        return item


class ChecksumsField(serializers.ListField):
    """sha256 of each file, in order: repeated fields, or one field separated by commas."""

    child = serializers.RegexField(r"^[0-9a-fA-F]{64}$", error_messages={
        "invalid": gettext_lazy("a sha256 is 64 hexadecimal digits")})

    def to_internal_value(self, data) -> list[str]:
        values = [data] if isinstance(data, str) else data
        if isinstance(values, list):
            values = [part for value in values for part in re.split(r"[\s,]+", str(value))
                      if part]
        return super().to_internal_value(values)


def files_field() -> serializers.ListField:
    return serializers.ListField(
        child=serializers.FileField(allow_empty_file=True, use_url=False), allow_empty=False,
        min_length=1,
        help_text="one or more files (repeat the field)")


class DepositSerializer(StrictInput, DublinCoreFields):
    title = serializers.CharField(max_length=1000)
    files = files_field()
    target_file = serializers.CharField(required=False, allow_blank=True,
                                        help_text="the default file; the first one if empty")
    language = serializers.CharField(required=False, allow_blank=True, max_length=35,
                                     help_text="BCP 47, e.g. pt-BR")
    previous_edition = ItemIbiField(required=False, help_text="IBI of the previous edition")
    translation_of = ItemIbiField(required=False, help_text="IBI of the item translated")
    sha256 = ChecksumsField(required=False, help_text="sha256 of each file, in order")
    transferable = serializers.BooleanField(
        required=False, default=True,
        help_text="false: this Original may never migrate to another Archive")


class AddFilesSerializer(serializers.Serializer):
    files = files_field()
    sha256 = ChecksumsField(required=False, help_text="sha256 of each file, in order")


class ItemUpdateSerializer(StrictInput, DublinCoreFields):
    """What PATCH may change; a DC element given replaces all values of that element."""

    title = serializers.CharField(max_length=1000, required=False)
    language = serializers.CharField(required=False, allow_blank=True, max_length=35)
    target_file = serializers.CharField(required=False, allow_blank=True)
    translation_of = ItemIbiField(required=False, allow_null=True, allow_blank=True,
                                  help_text="IBI of the item translated; empty or null: none")
    transferable = serializers.BooleanField(required=False)

    def validate_translation_of(self, value):
        return value or None


class DeleteSerializer(serializers.Serializer):
    reason = serializers.CharField(required=False, allow_blank=True, max_length=1000,
                                   help_text="shown on the tombstone, e.g. a retraction")


def _uploads(files) -> list[services.Upload]:
    # The declared type is a hint the deposit weighs (archive.deposit.content_types).
    return [services.Upload(name=file.name, file=file, content_type=file.content_type or "")
            for file in files]


def _dc(data: dict) -> dict[str, list[str]]:
    return {element: data[element] for element in DC_ELEMENTS if element in data}


# -- Views -------------------------------------------------------------------------------------

class ItemPermissions(DjangoModelPermissionsOrAnonReadOnly):
    """Anonymous reads; writes need archive.add_item / change_item / delete_item."""


class AddFilesPermissions(ItemPermissions):
    perms_map = {**ItemPermissions.perms_map, "POST": ["%(app_label)s.change_%(model_name)s"]}


class ItemPagination(CursorPagination):
    """A cursor, not page numbers: follow `next` (and `previous`). Newest deposit first (by
    id), or best match first for ?search= on PostgreSQL; each page is read from an index
    wherever it is, nothing is counted, and items deposited while a client walks the list
    neither repeat nor push others out of it. ?page_size= from 1, at most 200."""

    page_size_query_param = "page_size"
    max_page_size = 200
    ordering = ("-id",)
    invalid_cursor_message = "invalid cursor: follow the next or previous link as given"

    def get_ordering(self, request, queryset, view) -> tuple[str, ...]:
        # One unique key each: the position alone says where the next page starts.
        return ("-rank_key",) if "rank_key" in queryset.query.annotations else self.ordering

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


IBI_PARAMETER = OpenApiParameter(
    # Two or four segments (IBIp, repository name), none empty: anything else is a 404.
    "ibi", {"type": "string", "maxLength": 255, "pattern": r"^[^/\s]+(/[^/\s]+){1,3}$"},
    OpenApiParameter.PATH, examples=[
        OpenApiExample("repository name", "sid.inpe.br/mtc-m19/2013/09.04.12.27.57"),
        OpenApiExample("IBIp", "8JMKD3MGP7W/3EPGUE5")],
    description="Either form of the IBI, any case, slashes as they are: "
                "sid.inpe.br/mtc-m19/2013/09.04.12.27.57 or 8JMKD3MGP7W/3EPGUE5")


class _ItemRecordMixin:
    def record(self, item: Item, status_code: int = status.HTTP_200_OK) -> Response:
        """The item re-read with everything its record shows, after a write."""
        item = selectors.with_details(Item.objects.filter(pk=item.pk)).get()
        data = ItemSerializer(item, context=self.get_serializer_context()).data
        headers = {}
        if status_code == status.HTTP_201_CREATED:
            headers["Location"] = self.request.build_absolute_uri(
                reverse("api:item", args=[item.ibi]))
        return Response(data, status=status_code, headers=headers)


def filter_items(items: QuerySet[Item], params
                 ) -> tuple[QuerySet[Item], QuerySet[ItemSearch] | None]:
    """?state= (any case), ?language= (pt also finds pt-BR), ?search= (the site's search).
    The items, and on PostgreSQL for a search the ranked search entries of those items, from
    which a page is read (archive/search/selectors.py `ranked_entries`)."""
    narrowed = False
    state = params.get("state")
    if state is not None:  # given, it must name a state: `?state=` is no wildcard
        states = {value.lower(): value for value in Item.State.values}
        state = state.strip()
        if state.lower() not in states:
            raise ValidationError({"state": [
                _("one of %(states)s") % {"states": ", ".join(Item.State.values)}]})
        items = items.filter(state=states[state.lower()])
        narrowed = True
    # A tombstone shows no language (TombstoneSerializer), so none finds it; its search
    # entry holds its title alone, for the same reason (archive/search/schema.py).
    language = params.get("language", "").strip()
    if language:
        items = items.filter(~Q(state=Item.State.DELETED)
                             & (Q(language__iexact=language)
                                | Q(language__istartswith=f"{language}-")))
        narrowed = True
    q = params.get("search", "")
    if searching.full_text() and q.strip():
        return items, searching.ranked_entries(q, items if narrowed else None)
    return searching.matching(items, q)[0], None


class ItemList(_ItemRecordMixin, generics.ListAPIView):
    """GET: the repository's items, newest first (best match first for ?search= on
    PostgreSQL), by cursor; the archive service is not listed.
    POST: deposit a new item (multipart)."""

    serializer_class = ItemSerializer
    permission_classes = [ItemPermissions]
    parser_classes = [MultiPartParser]
    pagination_class = ItemPagination

    def get_queryset(self) -> QuerySet[Item]:
        items, self.ranked = filter_items(selectors.with_details(selectors.public_items()),
                                          self.request.query_params)
        return items

    def paginate_queryset(self, queryset: QuerySet[Item]) -> list[Item]:
        if self.ranked is None:
            return super().paginate_queryset(queryset)
        # A search on PostgreSQL: the page is walked in the ranked entries, then its items read.
        entries = self.paginator.paginate_queryset(self.ranked, self.request, view=self)
        return searching.in_order(queryset, [entry.item_id for entry in entries])

    def get_serializer_class(self):
        # The browsable API renders its POST form from this.
        return DepositSerializer if self.request.method == "POST" else ItemSerializer

    @extend_schema(parameters=[
        OpenApiParameter("state", OpenApiTypes.STR, enum=Item.State.values),
        OpenApiParameter("language", OpenApiTypes.STR,
                         description="BCP 47 tag; a bare language also finds its regions"),
        OpenApiParameter("search", OpenApiTypes.STR,
                         description="the site's search: words, \"phrases\", prefix*, "
                                     "-excluded, OR; in the title, creators, subjects and "
                                     "other metadata (a tombstone: its title only). "
                                     "PostgreSQL: accents ignored, Portuguese and English "
                                     "stems, best match first; SQLite: substrings, accents "
                                     "ignored, newest first"),
    ], responses={200: records(many=True),
                  **errors(400, 404, e400="an unknown state, an unreadable page_size, a "
                                          "page other than 1",
                           e404="an invalid cursor")})
    def get(self, request, *args, **kwargs) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        request={"multipart/form-data": DepositSerializer},
        parameters=[OpenApiParameter(
            "Idempotency-Key", OpenApiTypes.STR, OpenApiParameter.HEADER,
            description="Optional, 1-255 printable ASCII characters, kept 24 hours per user. "
                        "The same key with the same fields and files answers the same 201 "
                        "(header Idempotent-Replayed: true) without a second item; with other "
                        "fields or files, or while the first request is still depositing, "
                        "409.")],
        # A replayed key answers the item as it is now: a tombstone if it was deleted since.
        responses={201: records(), **errors(400, 401, 403, 409, 413)})
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

        def deposit(on_saved=None) -> Item:
            return services.item_deposit(
                title=data["title"], uploads=_uploads(data["files"]),
                target_file=data.get("target_file", ""), language=data.get("language", ""),
                previous_edition=data.get("previous_edition"),
                translation_of=data.get("translation_of"),
                sha256=data.get("sha256") or None, dc=_dc(data),
                transferable=data["transferable"], on_saved=on_saved)

        key = request.headers.get("Idempotency-Key")
        if key is None:
            return self.record(deposit(), status.HTTP_201_CREATED)
        fields = {name: request.data.getlist(name) for name in request.data
                  if name != "files"}
        files = [(f.name, getattr(f, "sha256", "")) for f in data["files"]]
        item, replayed = idempotency.once(
            user=request.user, key=key, deposit=deposit,
            request_fingerprint=idempotency.fingerprint(fields, files))
        response = self.record(item, status.HTTP_201_CREATED)
        if replayed:
            response["Idempotent-Replayed"] = "true"
        return response


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

    @extend_schema(responses={
        200: ItemSerializer,
        410: OpenApiResponse(TombstoneSerializer, description="deleted: its tombstone"),
        **errors(404)})
    def get(self, request, ibi: str) -> Response:
        item = self.get_object()
        # A tombstone is still read, but as what it is: gone, as its persistent URL answers.
        return Response(self.get_serializer(item).data,
                        status=status.HTTP_410_GONE if item.is_deleted else status.HTTP_200_OK)

    @extend_schema(request=ItemUpdateSerializer,
                   responses={200: ItemSerializer, **errors(400, 401, 403, 404, 409)})
    def patch(self, request, ibi: str) -> Response:
        item = self.get_object()
        if not isinstance(request.data, Mapping):
            return Response({"detail": _("the body must be a JSON object of fields")},
                            status=status.HTTP_400_BAD_REQUEST)
        form = ItemUpdateSerializer(data=request.data, partial=True)
        fixed = sorted(set(request.data) - set(form.fields))
        if fixed:
            detail = _("cannot change %(fields)s") % {"fields": ", ".join(fixed)}
            return Response({"detail": detail},
                            status=status.HTTP_400_BAD_REQUEST)
        form.is_valid(raise_exception=True)
        fields = dict(form.validated_data)
        dc = {element: fields.pop(element) for element in DC_ELEMENTS if element in fields}
        services.item_update(item=item, dc=dc or None, **fields)
        return self.record(item)

    @extend_schema(request=DeleteSerializer,
                   responses={200: TombstoneSerializer, **errors(400, 401, 403, 404)})
    def delete(self, request, ibi: str) -> Response:
        item = self.get_object()
        form = DeleteSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        return self.record(services.item_delete(item=item,
                                                reason=form.validated_data.get("reason", "")))


@extend_schema(parameters=[IBI_PARAMETER])
class ItemFiles(_OneItem):
    """Add files to an item; a name the item already has is a conflict, never an overwrite."""

    permission_classes = [AddFilesPermissions]
    parser_classes = [MultiPartParser]
    pagination_class = None  # an item's files are few: one list

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
        return Response(FileSerializer(item.files.all(), many=True, context=context).data)

    @extend_schema(request={"multipart/form-data": AddFilesSerializer},
                   responses={201: ItemSerializer, **errors(400, 401, 403, 404, 409, 413)})
    def post(self, request, ibi: str) -> Response:
        item = self.get_object()
        form = AddFilesSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        services.item_add_files(item=item, uploads=_uploads(form.validated_data["files"]),
                                sha256=form.validated_data.get("sha256") or None)
        return self.record(item, status.HTTP_201_CREATED)


def exception_handler(exc: Exception, context: dict) -> Response | None:
    """DRF's handler, plus the repository's own refusals, each as {"detail": …}."""
    if isinstance(exc, services.ServiceError | FileTooLarge):
        return Response({"detail": str(exc)}, status=exc.status)
    if isinstance(exc, SuspiciousOperation):  # too many files or fields: Django's limits
        return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
    return rest_exception_handler(exc, context)
