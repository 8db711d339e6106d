"""/api/uploads/: resumable uploads, the tus 1.0 protocol (core, creation, expiration and
termination; https://tus.io/protocols/resumable-upload), for files too big to send in one go.

    POST   /api/uploads/        Upload-Length, Upload-Metadata "filename <base64>": 201, Location
    HEAD   /api/uploads/<id>    Upload-Offset: the last byte the server holds
    PATCH  /api/uploads/<id>    application/offset+octet-stream from Upload-Offset: 204
    DELETE /api/uploads/<id>    the upload and its bytes gone: 204
    GET    /api/uploads/<id>    JSON: name, length, offset, sha256 once complete
    OPTIONS /api/uploads/       Tus-Version, Tus-Extension, Tus-Max-Size

A complete upload is then deposited by naming its id: `uploads` of POST /api/items/ and of
POST /api/items/<ibi>/files. Why not drf-tus (the maintained Django library): it reads each
PATCH whole into memory (a 5 GiB request, 5 GiB of RAM), keeps nothing of a request cut short
(the client resumes from the previous request's end, not from the last byte the server had),
writes to the system's /tmp, has no S3 behind it, and pins django-fsm 2.8.1. The protocol's part
here is this thin edge; the bytes are archive/deposit/pending.py's.
"""
from __future__ import annotations

import base64
import binascii
import re

from django.http import UnreadablePostError
from django.urls import reverse
from django.utils.http import http_date
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import permissions, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from ...deposit import limits, pending
from ...models import PendingUpload
from ...refusals import Refusal
from ...review import selectors as review
from ...web.throttling import WriteThrottle
from ..schema import ErrorSerializer, errors

TUS_VERSION = "1.0.0"
EXTENSIONS = "creation,expiration,termination"
OFFSET_STREAM = "application/offset+octet-stream"
DIGITS = re.compile(r"[0-9]{1,19}")
NAME_KEYS = ("filename", "name")
# Upload-Metadata naming the file: "filename <base64>" among other pairs (the schema's rule).
METADATA_PATTERN = r"^([^,]*,)*\s*filename [A-Za-z0-9+/]+={0,2}\s*(,.*)?$"
TYPE_KEYS = ("filetype", "type", "contentType")
DRAIN_LIMIT = 64 * 1024 * 1024  # bytes of a refused PATCH read (and dropped), at most


class UploadPermissions(permissions.BasePermission):
    """A librarian's (who may deposit or add files: archive.add_item or change_item), or a
    submitter's (who holds the submitter role in a collection: their submission's files,
    issue 35). OPTIONS, the protocol's discovery, is anyone's."""

    def has_permission(self, request, view) -> bool:
        if request.method == "OPTIONS":
            return True
        user = request.user
        return bool(user and user.is_authenticated and (
            user.has_perm("archive.add_item") or user.has_perm("archive.change_item")
            or review.submitter_collections(user).exists()))


class CreationThrottle(WriteThrottle):
    """A new upload counts as a write; the requests that carry its bytes, bounded by the
    length it declared, do not (a file in many small requests is one upload)."""

    def allow_request(self, request, view) -> bool:
        return request.method not in ("POST", "DELETE") or super().allow_request(request, view)


class UploadSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()
    complete = serializers.BooleanField(read_only=True)

    class Meta:
        model = PendingUpload
        fields = ["id", "url", "name", "length", "offset", "complete", "sha256", "expires"]

    def get_url(self, upload: PendingUpload) -> str:
        return self.context["request"].build_absolute_uri(
            reverse("api:upload", args=[upload.id]))


def _metadata(header: str) -> dict[str, str]:
    """Upload-Metadata: comma-separated "key base64value" pairs (a key alone is allowed)."""
    found = {}
    for pair in filter(None, (p.strip() for p in header.split(","))):
        key, _sep, value = pair.partition(" ")
        try:
            found[key] = base64.b64decode(value.strip(), validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            raise Refusal(
                _("Upload-Metadata: the value of %(key)s is not UTF-8 text in base64")
                % {"key": key}) from None
    return found


def _number(request, header: str) -> int:
    value = request.headers.get(header)
    if value is None or not DIGITS.fullmatch(value.strip()):
        raise Refusal(_("%(header)s must be a number of bytes")
                                   % {"header": header})
    return int(value)


class UnsupportedVersion(Exception):
    """A request without Tus-Resumable: 1.0.0 (answered 412 with the version spoken)."""


TUS_RESUMABLE = OpenApiParameter("Tus-Resumable", {"type": "string", "enum": [TUS_VERSION]},
                                 OpenApiParameter.HEADER, required=True)
PRECONDITION = OpenApiResponse(ErrorSerializer, description="Tus-Resumable is not 1.0.0")


class _Tus(APIView):
    permission_classes = [UploadPermissions]
    throttle_classes = [CreationThrottle]
    parser_classes = []  # the bytes are read by pending.receive, as they arrive

    def initial(self, request, *args, **kwargs) -> None:
        super().initial(request, *args, **kwargs)
        if request.method != "OPTIONS" and request.headers.get("Tus-Resumable") != TUS_VERSION:
            raise UnsupportedVersion

    def handle_exception(self, exc):
        if isinstance(exc, UnsupportedVersion):
            return Response({"detail": _("this server speaks tus %(version)s (Tus-Resumable)")
                             % {"version": TUS_VERSION}},
                            status=status.HTTP_412_PRECONDITION_FAILED,
                            headers={"Tus-Version": TUS_VERSION})
        return super().handle_exception(exc)

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        response["Tus-Resumable"] = TUS_VERSION
        response["Cache-Control"] = "no-store"
        if request.method == "PATCH" and response.status_code >= 400 \
                and request.user.is_authenticated:
            _drain(request)
        return response

    def options(self, request, *args, **kwargs) -> Response:
        return Response(status=status.HTTP_204_NO_CONTENT, headers={
            "Tus-Version": TUS_VERSION, "Tus-Extension": EXTENSIONS,
            "Tus-Max-Size": str(limits.max_file_size())})


def _drain(request) -> None:
    """What a refused PATCH's body still holds, read and thrown away before its answer, up to
    DRAIN_LIMIT bytes. A refusal is decided from the headers, before a byte of the body is
    read: left unread, the bytes stay on the server's connection, and closing it with them
    unread resets it, which nginx (that passes uploads on unbuffered, still sending them)
    answers 502 in place of the refusal. A client sends its whole body before it reads the
    answer anyway. Bounded, and for users signed in only: an anonymous sender is not worth a
    thread; deploy/nginx.conf never reuses an upload's connection, drained or not."""
    left = DRAIN_LIMIT
    try:
        while left > 0 and (chunk := request.read(min(pending.CHUNK, left))):
            left -= len(chunk)
    except (UnreadablePostError, OSError):
        pass  # the client is gone: nothing left to read


def _state(upload: PendingUpload) -> dict[str, str]:
    return {"Upload-Offset": str(upload.offset), "Upload-Length": str(upload.length),
            "Upload-Expires": http_date(upload.expires.timestamp())}


class UploadList(_Tus):
    """Create a resumable upload (tus creation): its length and name first, its bytes after."""

    @extend_schema(
        request=None, parameters=[
            TUS_RESUMABLE,
            OpenApiParameter("Upload-Length", {"type": "string", "pattern": "^[0-9]{1,19}$"},
                             OpenApiParameter.HEADER, required=True,
                             description="the file's size in bytes; over the size limit: 413, "
                                         "before any byte is sent"),
            OpenApiParameter("Upload-Metadata",
                             {"type": "string", "pattern": METADATA_PATTERN},
                             OpenApiParameter.HEADER, required=True,
                             description="comma-separated pairs \"key base64(value)\": "
                                         "filename (required), filetype"),
            OpenApiParameter("Location", str, OpenApiParameter.HEADER, response=[201],
                             description="the upload's URL"),
        ],
        responses={201: OpenApiResponse(description="created: send its bytes with PATCH"),
                   412: PRECONDITION, **errors(400, 401, 403, 413, 507)})
    def post(self, request) -> Response:
        length = _number(request, "Upload-Length")
        metadata = _metadata(request.headers.get("Upload-Metadata", ""))
        name = next((metadata[k] for k in NAME_KEYS if metadata.get(k)), "")
        if not name:
            raise Refusal(_("Upload-Metadata must name the file (filename)"))
        kind = next((metadata[k] for k in TYPE_KEYS if metadata.get(k)), "")
        upload = pending.create(owner=request.user, name=name, length=length,
                                content_type=kind)
        return Response(status=status.HTTP_201_CREATED, headers={
            "Location": request.build_absolute_uri(reverse("api:upload", args=[upload.id])),
            **_state(upload)})


UPLOAD_ID = OpenApiParameter("id", {"type": "string", "format": "uuid"}, OpenApiParameter.PATH)


@extend_schema(parameters=[UPLOAD_ID, TUS_RESUMABLE])
class UploadDetail(_Tus):
    """One of your uploads: how much of it the server holds, its next bytes, its end."""

    @extend_schema(responses={200: UploadSerializer, 412: PRECONDITION,
                              **errors(401, 403, 404)})
    def get(self, request, id: str) -> Response:  # noqa: A002  (the path's name)
        upload = pending.find(request.user, id)
        return Response(UploadSerializer(upload, context={"request": request}).data,
                        headers=_state(upload))

    @extend_schema(responses={200: OpenApiResponse(description="Upload-Offset: the bytes held"),
                              412: PRECONDITION, **errors(401, 403, 404)})
    def head(self, request, id: str) -> Response:  # noqa: A002
        upload = pending.find(request.user, id)
        return Response(status=status.HTTP_200_OK, headers=_state(upload))

    @extend_schema(
        request={OFFSET_STREAM: {"type": "string", "format": "binary"}},
        parameters=[OpenApiParameter("Upload-Offset", {"type": "string",
                                                       "pattern": "^[0-9]{1,19}$"},
                                     OpenApiParameter.HEADER, required=True,
                                     description="where these bytes go: the upload's offset")],
        responses={204: OpenApiResponse(description="Upload-Offset: the bytes now held"),
                   412: PRECONDITION,
                   411: OpenApiResponse(ErrorSerializer, description="no Content-Length"),
                   415: OpenApiResponse(ErrorSerializer,
                                        description="not application/offset+octet-stream"),
                   423: OpenApiResponse(ErrorSerializer,
                                        description="another request is writing it"),
                   **errors(400, 401, 403, 404, 409, 413, 507)})
    def patch(self, request, id: str) -> Response:  # noqa: A002
        upload = pending.find(request.user, id)
        if request.content_type != OFFSET_STREAM:
            return Response({"detail": _("the bytes of an upload are sent as %(type)s")
                             % {"type": OFFSET_STREAM}},
                            status=status.HTTP_415_UNSUPPORTED_MEDIA_TYPE)
        offset = _number(request, "Upload-Offset")
        if not DIGITS.fullmatch(request.META.get("CONTENT_LENGTH") or ""):
            # Django reads no chunked body: the length first, as every tus client sends it.
            return Response({"detail": _("a PATCH of an upload needs its Content-Length")},
                            status=status.HTTP_411_LENGTH_REQUIRED)
        count = int(request.META["CONTENT_LENGTH"])
        # The request itself is the stream (DRF's Request hands read() to Django's).
        upload = pending.receive(upload, offset=offset, stream=request, count=count)
        return Response(status=status.HTTP_204_NO_CONTENT, headers=_state(upload))

    @extend_schema(responses={204: OpenApiResponse(description="gone, its bytes too"),
                              412: PRECONDITION, 423: OpenApiResponse(ErrorSerializer),
                              **errors(401, 403, 404)})
    def delete(self, request, id: str) -> Response:  # noqa: A002
        pending.terminate(pending.find(request.user, id))
        return Response(status=status.HTTP_204_NO_CONTENT)
