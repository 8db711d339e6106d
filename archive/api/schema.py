"""The OpenAPI schema's own rules, beyond what drf-spectacular infers from the views.

- Anonymous reads: drf-spectacular adds the empty security requirement `{}` only for exactly
  AllowAny and IsAuthenticatedOrReadOnly; our item permissions (DjangoModelPermissions that let
  anonymous users read) allow anonymous GET too, and the schema says so.
- Closed inputs: a StrictInput serializer's view refuses fields it does not know (400), so its
  schema says `additionalProperties: false` (`closed_inputs`, a postprocessing hook).
- No NUL in a query: archive/web/middleware.py refuses one in any query parameter (400), so
  every string parameter of the query says so with a pattern (`no_nul_in_queries`, a hook).
- Errors: {"detail": "…"}, or for fields that fail validation {"<field>": ["…"]} (DRF's
  shape; a list field's errors are keyed by position: {"files": {"0": ["…"]}}).
"""
from __future__ import annotations

from django.utils.translation import ngettext
from drf_spectacular import openapi
from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse
from rest_framework import permissions, serializers

from ..refusals import Refusal


def allows_anonymous(permission: permissions.BasePermission, method: str) -> bool:
    """Whether this permission lets a request without credentials through for `method`."""
    if isinstance(permission, permissions.AllowAny):
        return True
    safe = method.upper() in permissions.SAFE_METHODS
    if isinstance(permission, permissions.IsAuthenticatedOrReadOnly):
        return safe
    if isinstance(permission, permissions.DjangoModelPermissions):
        # DjangoModelPermissionsOrAnonReadOnly and its subclasses; perms_map names none for reads.
        return (safe and not permission.authenticated_users_only
                and not permission.perms_map.get(method.upper(), [None]))
    return False


class AutoSchema(openapi.AutoSchema):
    def get_auth(self) -> list[dict]:
        auths = super().get_auth()
        if {} not in auths and all(allows_anonymous(p, self.method)
                                   for p in self.view.get_permissions()):
            auths.append({})
        return auths


class StrictInput(serializers.Serializer):
    """A request body whose view refuses unknown fields (a misspelt element must not vanish)."""


def strict_data(serializer_class: type[StrictInput], data) -> dict:
    """The body read by a StrictInput serializer: a field it does not know refused by name
    (400), any other fault as DRF says it; what it validated, as a dict."""
    form = serializer_class(data=data)
    unknown = sorted(set(data) - set(form.fields)) if hasattr(data, "keys") else []
    if unknown:
        raise Refusal(ngettext("unknown field %(fields)s", "unknown fields %(fields)s",
                               len(unknown)) % {"fields": ", ".join(unknown)})
    form.is_valid(raise_exception=True)
    return dict(form.validated_data)


def _subclasses(cls: type) -> list[type]:
    return [cls, *(found for sub in cls.__subclasses__() for found in _subclasses(sub))]


def closed_inputs(result: dict, generator, request, public) -> dict:
    """A postprocessing hook (SPECTACULAR_SETTINGS): the request bodies of StrictInput
    serializers say ``additionalProperties: false``. Their components are named as
    drf-spectacular names request bodies (COMPONENT_SPLIT_REQUEST): ``<Name>Request``, and
    ``Patched<Name>Request`` for PATCH."""
    names = set()
    for cls in _subclasses(StrictInput)[1:]:
        base = cls.__name__.removesuffix("Serializer")
        names |= {f"{base}Request", f"Patched{base}Request"}
    schemas = result.get("components", {}).get("schemas", {})
    for name, component in schemas.items():
        if name in names:
            component["additionalProperties"] = False
    # An item's PATCH names a field at least (ItemDetail.patch: {} is a 400).
    if "PatchedItemUpdateRequest" in schemas:
        schemas["PatchedItemUpdateRequest"]["minProperties"] = 1
    return result


NO_NUL = "^[^\\x00]*$"


def no_nul_in_queries(result: dict, generator, request, public) -> dict:
    """A postprocessing hook (SPECTACULAR_SETTINGS): every string query parameter without a
    pattern of its own gets NO_NUL, the rule the middleware enforces before any view."""
    for path in result.get("paths", {}).values():
        for operation in path.values():
            for parameter in operation.get("parameters", []):
                schema = parameter.get("schema", {})
                if (parameter.get("in") == "query" and schema.get("type") == "string"
                        and "pattern" not in schema and "enum" not in schema):
                    schema["pattern"] = NO_NUL
    return result


class DcElementFieldExtension(OpenApiSerializerFieldExtension):
    """A Dublin Core element: a list of strings out; in, one string or a list of them."""

    target_class = "archive.api.serializers.fields.DcElementField"

    def map_serializer_field(self, auto_schema: openapi.AutoSchema, direction: str) -> dict:
        values = {"type": "array", "items": {"type": "string"}}
        return values if direction == "response" else {"anyOf": [{"type": "string"}, values]}


class CreatorFieldExtension(OpenApiSerializerFieldExtension):
    """dc:creator: names out; in, a name, an object {name, orcid}, or a list of either."""

    target_class = "archive.api.serializers.fields.CreatorField"

    def map_serializer_field(self, auto_schema: openapi.AutoSchema, direction: str) -> dict:
        if direction == "response":
            return {"type": "array", "items": {"type": "string"}}
        creator = {"type": "object", "additionalProperties": False, "required": ["name"],
                   "properties": {"name": {"type": "string"}, "orcid": {
                       "type": "string", "nullable": True,
                       "description": "ORCID iD, 0000-0000-0000-000X or its "
                                      "https://orcid.org/ URL"}}}
        one = {"anyOf": [{"type": "string"}, creator]}
        return {"anyOf": [*one["anyOf"], {"type": "array", "items": one}]}


class AccessFieldExtension(OpenApiSerializerFieldExtension):
    """An item's access in: an object of optional texts (in a multipart form, its JSON)."""

    target_class = "archive.api.serializers.fields.AccessField"

    def map_serializer_field(self, auto_schema: openapi.AutoSchema, direction: str) -> dict:
        access = {"type": "object", "additionalProperties": False, "properties": {
            "rights": {"type": "string",
                       "enum": ["open", "embargoed", "restricted", "metadata-only"]},
            "embargo_until": {"type": "string", "format": "date", "nullable": True,
                              "description": "with embargoed: the first day the files "
                                             "are open to all, after today"},
            "reason": {"type": "string", "maxLength": 1000}}}
        return access if direction == "response" else {
            "anyOf": [access, {"type": "string", "description": "the object as JSON text "
                                                                "(multipart)"}]}


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()


# Raw schema: DRF's field errors are an object keyed by field name, which no serializer states.
FIELD_ERRORS = {
    "type": "object",
    "description": '{"detail": "…"}, or {"<field>": ["…"]} for fields that fail validation',
    "properties": {"detail": {"type": "string"}},
    "additionalProperties": {"anyOf": [
        {"type": "array", "items": {"type": "string"}},
        {"type": "object"},
    ]},
    "minProperties": 1,
}

ERRORS = {
    400: OpenApiResponse(FIELD_ERRORS, description="bad request"),
    401: OpenApiResponse(ErrorSerializer, description="no or bad token"),
    403: OpenApiResponse(ErrorSerializer, description="missing permission"),
    404: OpenApiResponse(ErrorSerializer, description="no such item"),
    409: OpenApiResponse(ErrorSerializer, description="checksum mismatch or conflict"),
    413: OpenApiResponse(ErrorSerializer, description="a file is too large"),
    507: OpenApiResponse(ErrorSerializer, description="no room left where files are stored or "
                         "uploads wait: nothing was kept; send it again once there is room"),
    502: OpenApiResponse(ErrorSerializer, description="another Archive could not be reached "
                         "or answered badly"),
    429: OpenApiResponse(ErrorSerializer, description="too many writes, too many anonymous "
                         "reads from this address, or too many wrong tokens from it (counted "
                         "only against requests that present one): wait Retry-After seconds"),
    503: OpenApiResponse(ErrorSerializer, description="the database connection was lost, or "
                         "the database is not available: nothing was written; send the "
                         "request again after Retry-After seconds"),
    303: OpenApiResponse(ErrorSerializer, description="the write was done and committed, but "
                         "the database connection was lost before the answer could be read "
                         "back: the Location header is the item (do not send the request "
                         "again)"),
}
# Any operation may meet these: the rate limits (web/throttling.py) and a dropped database
# connection (web/middleware.py).
ALWAYS = (429, 503)


def errors(*codes: int, **descriptions: str) -> dict[int, OpenApiResponse]:
    """The error answers of an operation; `e404="…"` says what a 404 means there."""
    answers = {code: ERRORS[code] for code in (*codes, *ALWAYS)}
    for key, text in descriptions.items():
        code = int(key.removeprefix("e"))
        answers[code] = OpenApiResponse(answers[code].response, description=text)
    return answers


IBI_PARAMETER = OpenApiParameter(
    # Two or four segments (IBIp, repository name), none empty: anything else is a 404.
    "ibi", {"type": "string", "maxLength": 255, "pattern": r"^[^/\s]+(/[^/\s]+){1,3}$"},
    OpenApiParameter.PATH, examples=[
        OpenApiExample("repository name", "sid.inpe.br/mtc-m19/2013/09.04.12.27.57"),
        OpenApiExample("IBIp", "8JMKD3MGP7W/3EPGUE5")],
    description="Either form of the IBI, any case, slashes as they are: "
                "sid.inpe.br/mtc-m19/2013/09.04.12.27.57 or 8JMKD3MGP7W/3EPGUE5")

# Every write of the API takes one (archive/api/idempotency.py).
IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key", {"type": "string", "minLength": 1, "maxLength": 255},
    OpenApiParameter.HEADER,
    description="Optional, 1-255 printable ASCII characters, kept 24 hours per user. The same "
                "key with the same request (method, path, fields and files) answers again "
                "with the first answer's status and the item as it is now (header "
                "Idempotent-Replayed: true), without writing twice; with another request, or "
                "while the first is still at work, 409. Without a key, a deposit (POST "
                "/api/items/) of the same content as one the same user made within "
                "IBI_DEPOSIT_REPEAT_WINDOW (10 minutes: the same fields, the same files by "
                "name and sha256) is that deposit: 201 with the first item and "
                "Idempotent-Replayed: true. To deposit the same content twice on purpose, "
                "send a key with each.")
