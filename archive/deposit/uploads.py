"""Receiving uploads: bounded memory, the checksum on the way in, limits enforced while reading.

Installed for the whole site by settings.FILE_UPLOAD_HANDLERS, so the admin and the API share it:

- every file goes to a temporary file on disk, never into memory;
- its sha256 and size are computed while it arrives and attached to it (`.sha256`, `.size`),
  so archive.deposit.services never reads it a second time;
- a file over IBI_MAX_FILE_SIZE stops the upload at once (413), more than IBI_MAX_FILES files
  stop it too (400), and a name the repository would refuse is refused before any byte of it
  reaches the disk (400).
"""
from __future__ import annotations

import hashlib
import html
import unicodedata

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFilesSent
from django.core.files.uploadhandler import TemporaryFileUploadHandler
from django.http import HttpRequest
from django.http.multipartparser import MultiPartParser as DjangoMultiPartParser
from django.http.multipartparser import MultiPartParserError
from django.utils.translation import gettext as _
from rest_framework.exceptions import ParseError
from rest_framework.parsers import DataAndFiles
from rest_framework.parsers import MultiPartParser as RestMultiPartParser

from . import limits, storage


class FileTooLarge(limits.FileTooLarge, RequestDataTooBig):
    """A file over IBI_MAX_FILE_SIZE. The middleware and the API answer 413; should it escape
    them, Django still answers 400, as for any RequestDataTooBig, never 500."""


class TooManyFiles(limits.TooManyFiles, TooManyFilesSent):
    """More than IBI_MAX_FILES files in one request."""


class BadFileName(MultiPartParserError):
    """A file name the repository refuses (Django answers 400 to any MultiPartParserError)."""

    status = 400


class NoRoomForUpload(storage.StorageFull):
    """The folder where uploads wait (IBI_UPLOAD_TEMP_DIR) is full: 507, nothing kept."""


# What an upload may be refused for while it arrives: the web middleware answers each with
# its status and reason (archive/web/middleware.py).
UploadRefused = FileTooLarge | TooManyFiles | BadFileName | NoRoomForUpload
UPLOAD_REFUSALS = (FileTooLarge, TooManyFiles, BadFileName, NoRoomForUpload)


class ChecksummingUploadHandler(TemporaryFileUploadHandler):
    """A temporary file per upload, hashed while written, within the configured limits."""

    def __init__(self, request: HttpRequest | None = None) -> None:
        super().__init__(request)
        self.received: list = []  # this request's temporary files, for discard()
        self.digest = None

    def new_file(self, field_name, file_name, *args, **kwargs) -> None:
        try:
            limits.check_count(len(self.received) + 1)
        except limits.TooManyFiles as exc:
            self.discard()
            raise TooManyFiles(str(exc)) from None
        try:
            # Refuse here what the deposit would refuse later: a name over 255 bytes would
            # otherwise be cut silently by Django, or break the temporary file's own name.
            storage.safe_name(file_name)
        except storage.FileNameError as exc:
            self.discard()
            raise BadFileName(str(exc)) from None
        super().new_file(field_name, file_name, *args, **kwargs)
        self.received.append(self.file)
        self.digest = hashlib.sha256()

    def receive_data_chunk(self, raw_data: bytes, start: int) -> None:
        try:
            limits.check_size(self.file_name, start + len(raw_data))
        except limits.FileTooLarge as exc:
            self.discard()
            raise FileTooLarge(str(exc)) from None
        self.digest.update(raw_data)
        try:
            return super().receive_data_chunk(raw_data, start)
        except OSError as exc:
            raise self._no_room(exc) from exc

    def file_complete(self, file_size: int):
        try:
            file = super().file_complete(file_size)  # flushes what was buffered
        except OSError as exc:
            raise self._no_room(exc) from exc
        file.sha256 = self.digest.hexdigest()
        return file

    def _no_room(self, exc: OSError) -> Exception:
        self.discard()
        return NoRoomForUpload() if storage.no_room(exc) else exc

    def discard(self) -> None:
        """Close, and so delete, every temporary file of the request: nothing stays on disk."""
        for file in self.received:
            file.close()


class StrictMultiPartParser(DjangoMultiPartParser):
    """Django's parser, but a hostile file name is refused instead of quietly repaired.

    Django strips control characters and drops a part whose name is `..`; the API answers 400
    instead, and reduces every other name exactly as the deposit does (storage.safe_name).
    """

    def sanitize_file_name(self, file_name: str) -> str:
        file_name = html.unescape(file_name)
        # C1 controls too (U+0080-U+009F), which storage.safe_name lets through.
        if any(unicodedata.category(c) == "Cc" for c in file_name):
            raise BadFileName("file names must not contain control characters")
        try:
            return storage.safe_name(file_name)
        except storage.FileNameError as exc:
            raise BadFileName(str(exc)) from None


class MultiPartParser(RestMultiPartParser):
    """DRF's multipart parser on StrictMultiPartParser; handlers discard files on any error."""

    def parse(self, stream, media_type=None, parser_context=None) -> DataAndFiles:
        request = parser_context["request"]
        meta = request.META.copy()
        meta["CONTENT_TYPE"] = media_type
        encoding = parser_context.get("encoding", settings.DEFAULT_CHARSET)
        handlers = request.upload_handlers
        try:
            data, files = StrictMultiPartParser(meta, stream, handlers, encoding).parse()
        except BaseException as exc:
            for handler in handlers:
                if isinstance(handler, ChecksummingUploadHandler):
                    handler.discard()
            if isinstance(exc, MultiPartParserError):
                raise ParseError(_("multipart form: %(reason)s") % {"reason": exc}) from None
            raise
        return DataAndFiles(data, files)
