"""Receiving uploads: bounded memory, the checksum on the way in, limits enforced while reading.

Installed for the whole site by settings.FILE_UPLOAD_HANDLERS, so the admin and the API share it:

- every file goes to a temporary file on disk, never into memory;
- its sha256 and size are computed while it arrives and attached to it (`.sha256`, `.size`),
  so archive.deposit.services never reads it a second time;
- a file over IBI_MAX_FILE_SIZE stops the upload at once (413), more than IBI_MAX_FILES files
  stop it too (400), and a name the repository would refuse is refused before any byte of it
  reaches the disk (400).

The API's multipart parser, which refuses a hostile name where Django would repair it, is
archive/api/parsers.py's.
"""
from __future__ import annotations

import hashlib

from django.core.files.uploadhandler import TemporaryFileUploadHandler
from django.http import HttpRequest
from django.http.multipartparser import MultiPartParserError

from ..refusals import Refusal
from . import limits, storage


# An upload is refused while it arrives, with a Refusal (archive/refusals.py) that the web
# middleware and the API's handler answer with its status and reason: a file too large
# (limits.FileTooLarge, 413), too many files (limits.TooManyFiles, 400), a name refused
# (BadFileName, 400), no room where uploads wait (storage.StorageFull, 507).
class BadFileName(Refusal, MultiPartParserError):
    """A file name the repository refuses: a 400, also for Django, which knows the body
    unreadable after any MultiPartParserError."""


class ChecksummingUploadHandler(TemporaryFileUploadHandler):
    """A temporary file per upload, hashed while written, within the configured limits."""

    def __init__(self, request: HttpRequest | None = None) -> None:
        super().__init__(request)
        self.received: list = []  # this request's temporary files, for discard()
        self.digest = None

    def new_file(self, field_name, file_name, *args, **kwargs) -> None:
        try:
            limits.check_count(len(self.received) + 1)
        except limits.TooManyFiles:
            self.discard()
            raise
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
        except limits.FileTooLarge:
            self.discard()
            raise
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
        return storage.StorageFull() if storage.no_room(exc) else exc

    def discard(self) -> None:
        """Close, and so delete, every temporary file of the request: nothing stays on disk."""
        for file in self.received:
            file.close()
