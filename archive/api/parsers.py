"""The API's parsers: DRF's, whose refusals also cover JSON nested too deep and file names the
repository would not store.

Multipart: Django's parser under DRF's, but a hostile file name is refused (400) where Django
would quietly repair it, and every temporary file is discarded on any error.

JSON: Python's parser recurses once per level: a body of a thousand nested arrays raised
RecursionError, which is no ValueError, so DRF's parser let it through as a 500. Here it is a
400 like any unreadable body, and so is a body that parses but nests deeper than
deposit/values.py MAX_JSON_DEPTH, which the next recursive walk over it (the Idempotency-Key's
fingerprint, a field's validation) would fail on instead.
"""
from __future__ import annotations

import html
import unicodedata

from django.conf import settings
from django.http.multipartparser import MultiPartParser as DjangoMultiPartParser
from django.http.multipartparser import MultiPartParserError
from django.utils.translation import gettext as _
from rest_framework import parsers
from rest_framework.exceptions import ParseError

from ..deposit import storage, uploads, values


class JSONParser(parsers.JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            data = None
        else:
            if values.json_depth(data) <= values.MAX_JSON_DEPTH:
                return data
        raise ParseError(_("JSON parse error - arrays and objects nested deeper than "
                           "%(depth)d levels") % {"depth": values.MAX_JSON_DEPTH})


class StrictMultiPartParser(DjangoMultiPartParser):
    """Django's parser, but a hostile file name is refused instead of quietly repaired.

    Django strips control characters and drops a part whose name is `..`; the API answers 400
    instead, and reduces every other name exactly as the deposit does (storage.safe_name).
    """

    def sanitize_file_name(self, file_name: str) -> str:
        file_name = html.unescape(file_name)
        # C1 controls too (U+0080-U+009F), which storage.safe_name lets through.
        if any(unicodedata.category(c) == "Cc" for c in file_name):
            raise uploads.BadFileName("file names must not contain control characters")
        try:
            return storage.safe_name(file_name)
        except storage.FileNameError as exc:
            raise uploads.BadFileName(str(exc)) from None


class MultiPartParser(parsers.MultiPartParser):
    """DRF's multipart parser on StrictMultiPartParser; handlers discard files on any error."""

    def parse(self, stream, media_type=None, parser_context=None) -> parsers.DataAndFiles:
        request = parser_context["request"]
        meta = request.META.copy()
        meta["CONTENT_TYPE"] = media_type
        encoding = parser_context.get("encoding", settings.DEFAULT_CHARSET)
        handlers = request.upload_handlers
        try:
            data, files = StrictMultiPartParser(meta, stream, handlers, encoding).parse()
        except BaseException as exc:
            for handler in handlers:
                if isinstance(handler, uploads.ChecksummingUploadHandler):
                    handler.discard()
            if isinstance(exc, MultiPartParserError):
                raise ParseError(_("multipart form: %(reason)s") % {"reason": exc}) from None
            raise
        return parsers.DataAndFiles(data, files)
