"""Pending uploads: files on their way to a deposit, not yet part of any item.

Two ways in, one kind of thing (models.PendingUpload), one way out (a deposit's services):

- a resumable upload (tus 1.0, archive/api/views/uploads.py): `create` checks the name and the
  size before the first byte, `receive` appends what a request brings and keeps whatever
  arrived when the connection drops, so the next request resumes from the last byte held;
- an admin form sent back by a validation error: `keep` holds each file it carried, so the
  librarian never chooses them again.

The bytes wait outside col/: in the upload folder (IBI_UPLOAD_TEMP_DIR/pending/<id>) on a
local disk, or, when the storage is S3, in the bucket under uploads/<id> as an S3 multipart
upload (parts of PART_SIZE bytes; the last few bytes of an interrupted request wait as
uploads/<id>.tail until the next). Memory stays flat whatever the size: a request is read
CHUNK bytes at a time. A deposit takes complete uploads through `opened` (files the deposit
services store under col/<repository name>/doc/, an S3 object copied inside the bucket) and
`consumed` (its on_saved: the rows go in the deposit's transaction, the bytes after its
commit). An upload untouched for IBI_UPLOAD_EXPIRY seconds expires, unless a submission on
its way names it (a review takes days); `sweep` (run every hour by the beat, tasks.py, and by
`manage.py fsck`) removes it, and whatever the upload folder or
the bucket's uploads/ holds that no upload claims. What one librarian's uploads declare
together is bounded by IBI_UPLOAD_QUOTA.
"""
from __future__ import annotations

import abc
import contextlib
import hashlib
import mimetypes
import os
import shutil
import tempfile
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import IO

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.files import File
from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import Q, Sum
from django.http import UnreadablePostError
from django.utils import timezone
from django.utils.translation import gettext as _

from .. import refusals
from ..models import PendingUpload, Submission
from . import limits, storage
from .services import Upload

CHUNK = 1024 * 1024
PART_SIZE = 8 * 1024 * 1024  # S3's parts: at least 5 MiB but the last
LEASE = timedelta(seconds=30)  # a writing request renews it while it reads
S3_PREFIX = "uploads/"


# A request about a pending upload that is refused: its refusals by the names the tus edge
# (api/views/uploads.py) has known them by. A full upload folder is a 507, as a full storage.
PendingError = refusals.Refusal
NotFound = refusals.NotFound
Busy = refusals.Locked
TooLarge = refusals.TooLarge
FolderFull = refusals.StorageFull


class OffsetConflict(refusals.Conflict):
    """The client's offset is not where the upload stands (or the upload is complete)."""


class LeaseLost(OffsetConflict):
    """This request stalled past its lease and another took the upload over: it wrote
    nothing more."""


# -- Where the bytes wait ------------------------------------------------------------------------

def folder() -> Path:
    return Path(settings.FILE_UPLOAD_TEMP_DIR) / "pending"


def path_of(upload: PendingUpload) -> Path:
    return folder() / str(upload.id)


def s3_key(upload: PendingUpload) -> str:
    return f"{S3_PREFIX}{upload.id}"


def _s3():
    """(boto3 client, bucket name) of the configured storage: the same credentials, endpoint
    and bucket as every stored file."""
    return default_storage.connection.meta.client, default_storage.bucket_name


# -- Creating --------------------------------------------------------------------------------

def _expiry() -> datetime:
    return timezone.now() + timedelta(seconds=settings.IBI_UPLOAD_EXPIRY)


def _clean_name(name: str) -> str:
    try:
        return storage.safe_name(name)
    except storage.FileNameError as exc:
        raise PendingError(str(exc)) from None


def create(*, owner, name: str, length: int, content_type: str = "") -> PendingUpload:
    """A new, empty upload of `length` bytes named `name`: refused (413) when the file would
    be over IBI_MAX_FILE_SIZE, or the owner's uploads over IBI_UPLOAD_QUOTA, before any byte
    of it is sent."""
    name = _clean_name(name)
    if length < 0:
        raise PendingError(_("the length of an upload is a number of bytes"))
    limits.check_size(name, length)  # FileTooLarge, a 413
    with transaction.atomic():
        _check_quota(owner, length)
        return _created(owner=owner, name=name, length=length, content_type=content_type)


def _check_quota(owner, length: int) -> None:
    """TooLarge when `length` more bytes would take the owner's uploads not yet deposited past
    IBI_UPLOAD_QUOTA. The owner's row is locked first (PostgreSQL): two creations at once are
    counted one after the other."""
    quota = settings.IBI_UPLOAD_QUOTA
    if not quota:
        return
    get_user_model().objects.select_for_update().filter(pk=owner.pk).exists()
    declared = PendingUpload.objects.filter(owner=owner, expires__gt=timezone.now()).aggregate(
        total=Sum("length"))["total"] or 0
    if declared + length > quota:
        raise TooLarge(_("your uploads not yet deposited declare %(declared)d bytes: "
                         "%(length)d more would pass your quota of %(quota)d bytes "
                         "(IBI_UPLOAD_QUOTA); deposit or delete some first")
                       % {"declared": declared, "length": length, "quota": quota})


def _created(*, owner, name: str, length: int, content_type: str) -> PendingUpload:
    now = timezone.now()
    upload = PendingUpload(id=uuid.uuid4(), owner=owner, name=name, length=length,
                           content_type=content_type[:255], created=now, expires=_expiry())
    if storage.on_s3():
        if length == 0:  # S3 has no multipart upload of no part
            client, bucket = _s3()
            client.put_object(Bucket=bucket, Key=s3_key(upload), Body=b"")
    else:
        try:
            folder().mkdir(mode=0o700, parents=True, exist_ok=True)
            path_of(upload).touch(mode=0o600, exist_ok=False)
        except OSError as exc:
            if not storage.no_room(exc):
                raise
            raise FolderFull(_("the upload folder is full: nothing was kept; try again once "
                               "there is room")) from exc
    if length == 0:
        upload.sha256 = hashlib.sha256().hexdigest()
    upload.save(force_insert=True)
    return upload


def keep(*, owner, file) -> PendingUpload:
    """An uploaded file (an admin form's, complete and hashed by deposit.uploads) kept as a
    complete pending upload, so that a form sent back by a validation error keeps it."""
    name = _clean_name(file.name)
    size = file.size
    sha = getattr(file, "sha256", None) or storage.sha256_of(file)[0]
    upload = PendingUpload(id=uuid.uuid4(), owner=owner, name=name, length=size, offset=size,
                           sha256=sha, content_type=(file.content_type or "")[:255],
                           created=timezone.now(), expires=_expiry())
    if storage.on_s3():
        client, bucket = _s3()
        file.seek(0)
        client.upload_fileobj(file, bucket, s3_key(upload))
    else:
        folder().mkdir(mode=0o700, parents=True, exist_ok=True)
        target = path_of(upload)
        source = getattr(file, "temporary_file_path", None)
        try:
            # The form's temporary file is in the same folder tree: a second name, no copy.
            os.link(source(), target) if source else _copy(file, target)
        except OSError:
            _copy(file, target)
    upload.save(force_insert=True)
    return upload


def _copy(file, target: Path) -> None:
    file.seek(0)
    with target.open("xb") as out:
        shutil.copyfileobj(file, out, CHUNK)


# -- Receiving -------------------------------------------------------------------------------

def find(owner, upload_id) -> PendingUpload:
    """The owner's upload of that id (a UUID or its text); NotFound for anyone else's."""
    try:
        key = uuid.UUID(str(upload_id))
    except ValueError:
        raise NotFound(_("no such upload")) from None
    found = PendingUpload.objects.filter(pk=key, owner=owner, expires__gt=timezone.now()).first()
    if found is None:
        raise NotFound(_("no such upload"))
    return found


def _claim(upload: PendingUpload, offset: int) -> None:
    """Take the upload's lease for a request that writes from `offset`, or refuse: 409 when
    the upload holds another offset, 423 while another request is writing it. The lease's end,
    `upload.busy_until`, is then this request's own: it writes nothing once the value in the
    row is another's (see `_renew`)."""
    now = timezone.now()
    lease = now + LEASE
    claimed = PendingUpload.objects.filter(
        Q(busy_until__isnull=True) | Q(busy_until__lt=now), pk=upload.pk, offset=offset,
    ).update(busy_until=lease)
    if claimed:
        upload.busy_until = lease
        return
    upload.refresh_from_db()
    if upload.offset != offset:
        raise OffsetConflict(_("the upload holds %(held)d bytes, not %(offset)d: resume from "
                               "its Upload-Offset") % {"held": upload.offset, "offset": offset})
    raise Busy(_("another request is writing this upload; retry when it ends"))


def _leased(upload: PendingUpload):
    """The upload's row while this request's lease is the one it holds: a write through it
    that changes no row has lost the lease."""
    return PendingUpload.objects.filter(pk=upload.pk, busy_until=upload.busy_until)


def _renew(upload: PendingUpload) -> None:
    """The lease extended, if it is still this request's; LeaseLost if another request took
    it over (this one stalled past its end): from then on this request writes nothing, neither
    bytes nor the upload's state. Asked before every write: an expired lease nobody took is
    still this request's (a claim changes the value)."""
    lease = timezone.now() + LEASE
    if not _leased(upload).update(busy_until=lease):
        raise LeaseLost(_("another request took this upload over while this one stalled: "
                          "its bytes were not kept; resume from its Upload-Offset"))
    upload.busy_until = lease


def receive(upload: PendingUpload, *, offset: int, stream: IO[bytes], count: int
            ) -> PendingUpload:
    """Append up to `count` bytes read from `stream` at `offset` (which must be the upload's);
    whatever arrives before the stream ends or breaks is kept and counted. The upload's new
    state; once its last byte is in, its sha256 too. Every write, of bytes or of the state,
    is under this request's lease (LeaseLost once it is another's)."""
    if upload.sha256 or upload.offset >= upload.length:
        raise OffsetConflict(_("the upload is complete"))
    if offset != upload.offset:
        raise OffsetConflict(_("the upload holds %(held)d bytes, not %(offset)d: resume from "
                               "its Upload-Offset") % {"held": upload.offset, "offset": offset})
    if count > upload.length - offset:
        raise TooLarge(_("%(count)d bytes from offset %(offset)d pass the upload's length, "
                         "%(length)d") % {"count": count, "offset": offset,
                                          "length": upload.length})
    _claim(upload, offset)
    upload.offset = offset
    # One request carrying the whole file is hashed as it arrives; otherwise once at the end.
    digest = hashlib.sha256() if offset == 0 else None
    receiver = _S3Receiver(upload, digest) if storage.on_s3() else _LocalReceiver(upload, digest)
    try:
        try:
            with receiver:
                for chunk in _read(stream, count):
                    _renew(upload)
                    receiver.write(chunk)
        except OSError as exc:
            if not storage.no_room(exc):
                raise
            # What fitted is on disk and counted below: the client resumes from there.
            raise FolderFull(_("the upload folder is full: the bytes that fitted are kept; "
                               "resume from Upload-Offset once there is room")) from exc
    finally:
        if not receiver.lost:
            held = receiver.held
            complete = held == upload.length
            fields = {"offset": held, "busy_until": None, "expires": _expiry()}
            if complete:
                fields["sha256"] = (digest.hexdigest() if digest is not None
                                    else _hash(upload))
            if not _leased(upload).update(**fields):
                raise LeaseLost(_("another request took this upload over while this one "
                                  "stalled: resume from its Upload-Offset"))
            for name, value in fields.items():
                setattr(upload, name, value)
    return upload


def _read(stream: IO[bytes], count: int) -> Iterator[bytes]:
    """The request's bytes, CHUNK at a time, until `count` or until the client stops."""
    left = count
    while left > 0:
        try:
            chunk = stream.read(min(CHUNK, left))
        except (UnreadablePostError, OSError):
            return  # the connection dropped: what arrived so far is kept
        if not chunk:
            return
        left -= len(chunk)
        yield chunk


class _Receiver(abc.ABC):
    """What the bytes of one request went to. On the way out (`settle`, under the lease: the
    last read may have stalled past it) what arrived is made durable; `lost` when the lease
    was another request's by then, and nothing of the upload was touched."""

    lost = False

    def __exit__(self, kind, exc, tb) -> None:
        try:
            if kind is not None and issubclass(kind, LeaseLost):
                self.lost = True
                return
            try:
                _renew(self.upload)
            except LeaseLost:
                self.lost = True
                return
            self.settle()
        finally:
            self.close()

    @abc.abstractmethod
    def settle(self) -> None:
        """Make what arrived durable (the local file, or the S3 part), under the lease."""

    def close(self) -> None:  # noqa: B027 (a receiver with nothing open has nothing to close)
        return None


class _LocalReceiver(_Receiver):
    """Writes at the offset in the upload folder's file, unbuffered (nothing left to flush
    once the lease is lost); what was written is on disk (fsync) before the offset says so."""

    def __init__(self, upload: PendingUpload, digest) -> None:
        self.upload, self.digest = upload, digest
        self.held = self.written = upload.offset  # held: on disk for sure

    def __enter__(self):
        self.out = path_of(self.upload).open("r+b", buffering=0)
        self.out.seek(self.written)
        return self

    def write(self, chunk: bytes) -> None:
        view = memoryview(chunk)
        while view:
            done = self.out.write(view)  # a full disk may take part of it, then refuse
            self.written += done
            view = view[done:]
        if self.digest is not None:
            self.digest.update(chunk)

    def settle(self) -> None:
        self.out.truncate(self.written)  # bytes no offset counted (a crash's) go
        os.fsync(self.out.fileno())
        self.held = self.written

    def close(self) -> None:
        self.out.close()


class _S3Receiver(_Receiver):
    """Sends S3 parts of PART_SIZE as they fill; what is left when the request ends waits as
    the tail object (the last part once the upload completes). Parts and tail are recorded
    before the offset counts them."""

    def __init__(self, upload: PendingUpload, digest) -> None:
        self.upload, self.digest = upload, digest
        self.client, self.bucket = _s3()
        self.key = s3_key(upload)
        self.parts = [list(part) for part in upload.parts]
        self.sent = sum(part[2] for part in self.parts)
        self.buffer = bytearray()
        self.held = upload.offset  # in the bucket for sure: the parts, and the tail if any

    def __enter__(self):
        if not self.upload.multipart_id:
            started = self.client.create_multipart_upload(
                Bucket=self.bucket, Key=self.key,
                ContentType=self.upload.content_type or "application/octet-stream")
            self.upload.multipart_id = started["UploadId"]
            self._record(multipart_id=self.upload.multipart_id)
        if self.upload.offset > self.sent:  # the tail an earlier request left
            tail = self.client.get_object(Bucket=self.bucket, Key=f"{self.key}.tail")
            self.buffer += tail["Body"].read()[:self.upload.offset - self.sent]
        return self

    def _record(self, **fields) -> None:
        if not _leased(self.upload).update(**fields):
            _renew(self.upload)  # raises LeaseLost: the row is another request's now

    def write(self, chunk: bytes) -> None:
        self.buffer += chunk
        if self.digest is not None:
            self.digest.update(chunk)
        while len(self.buffer) >= PART_SIZE:
            self._part(bytes(self.buffer[:PART_SIZE]))
            del self.buffer[:PART_SIZE]

    def _part(self, data: bytes) -> None:
        number = len(self.parts) + 1
        sent = self.client.upload_part(Bucket=self.bucket, Key=self.key, Body=data,
                                       UploadId=self.upload.multipart_id, PartNumber=number)
        self.parts.append([number, sent["ETag"], len(data)])
        self._record(parts=self.parts, offset=self.sent + len(data))
        self.sent = self.held = self.sent + len(data)
        self.upload.parts = self.parts

    def settle(self) -> None:
        if self.sent + len(self.buffer) == self.upload.length:
            if self.buffer or not self.parts:
                self._part(bytes(self.buffer))  # the last part may be short
                self.buffer.clear()
            self.client.complete_multipart_upload(
                Bucket=self.bucket, Key=self.key, UploadId=self.upload.multipart_id,
                MultipartUpload={"Parts": [{"PartNumber": n, "ETag": etag}
                                           for n, etag, _size in self.parts]})
            self.client.delete_object(Bucket=self.bucket, Key=f"{self.key}.tail")
        elif self.buffer:
            self.client.put_object(Bucket=self.bucket, Key=f"{self.key}.tail",
                                   Body=bytes(self.buffer))
            self.held = self.sent + len(self.buffer)


def _hash(upload: PendingUpload) -> str:
    """The sha256 of a complete upload's bytes, read once, CHUNK at a time."""
    digest = hashlib.sha256()
    with _open(upload) as source:
        while chunk := source.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


@contextlib.contextmanager
def _open(upload: PendingUpload) -> Iterator[IO[bytes]]:
    if storage.on_s3():
        client, bucket = _s3()
        body = client.get_object(Bucket=bucket, Key=s3_key(upload))["Body"]
        try:
            yield body
        finally:
            body.close()
    else:
        with path_of(upload).open("rb") as source:
            yield source


@contextlib.contextmanager
def local_path(upload: PendingUpload) -> Iterator[Path]:
    """A path on this machine to a complete upload's bytes, for a tool that reads files (the
    checks before review): the upload folder's own file, or, with S3, a temporary copy
    removed on the way out."""
    if not storage.on_s3():
        yield path_of(upload)
        return
    # Beside the upload folder, not in it: its sweep removes what no upload claims.
    Path(settings.FILE_UPLOAD_TEMP_DIR).mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=settings.FILE_UPLOAD_TEMP_DIR, prefix="check-") as copy:
        with _open(upload) as source:
            shutil.copyfileobj(source, copy, CHUNK)
        copy.flush()
        yield Path(copy.name)


# -- Depositing ------------------------------------------------------------------------------

def complete_of(owner, ids: Iterable) -> list[PendingUpload]:
    """The owner's complete uploads of these ids, in the order given; a PendingError for an id
    that is no such upload, or whose bytes have not all arrived."""
    found = []
    for upload_id in ids:
        try:
            upload = find(owner, upload_id)
        except NotFound:  # a bad value in the deposit's body, not a resource not found
            raise PendingError(_("no such upload: %(id)s") % {"id": upload_id}) from None
        if not upload.complete:
            raise PendingError(_("%(name)s has not finished uploading (%(offset)d of "
                                 "%(length)d bytes)") % {"name": upload.name,
                                                          "offset": upload.offset,
                                                          "length": upload.length})
        if upload in found:
            raise PendingError(_("the upload %(id)s is named twice") % {"id": upload.id})
        found.append(upload)
    return found


@dataclass
class _S3Source:
    """A complete upload in the bucket: storage.store copies it inside the bucket (S3's own
    multipart copy) instead of sending its bytes again."""

    upload: PendingUpload

    def __post_init__(self) -> None:
        self.sha256, self.size = self.upload.sha256, self.upload.length

    def copy_to(self, key: str) -> None:
        client, bucket = _s3()
        kind = mimetypes.guess_type(self.upload.name)[0] or "application/octet-stream"
        client.copy({"Bucket": bucket, "Key": s3_key(self.upload)}, bucket, key,
                    ExtraArgs={"ContentType": kind})

    def read(self, size: int = -1) -> bytes:  # never called: store copies
        raise NotImplementedError

    def close(self) -> None:
        pass


class _Waiting(File):
    """A complete upload in the upload folder: storage.AtomicFileSystemStorage links these
    bytes under col/ as it links a temporary file (a second name, no copy; a copy only when
    the folders are on different file systems). Nothing writes an upload once complete."""

    def __init__(self, path: Path, name: str) -> None:
        super().__init__(path.open("rb"), name=name)
        self.path = path

    def temporary_file_path(self) -> str:
        return str(self.path)


@contextlib.contextmanager
def opened(uploads: list[PendingUpload]) -> Iterator[list[Upload]]:
    """The deposit services' Uploads of complete pending uploads, their checksums and sizes
    already known; the files are closed on the way out."""
    files = []
    try:
        for upload in uploads:
            if storage.on_s3():
                source = _S3Source(upload)
            else:
                source = _Waiting(path_of(upload), upload.name)
                source.sha256, source.size = upload.sha256, upload.length
            files.append(source)
        yield [Upload(name=upload.name, file=file, content_type=upload.content_type)
               for upload, file in zip(uploads, files, strict=True)]
    finally:
        for file in files:
            file.close()


def consumed(uploads: list[PendingUpload], then: Callable | None = None) -> Callable:
    """A deposit's on_saved: the rows are deleted in its transaction, the bytes once it
    commits (then `then(item)`, the edge's own on_saved, if any)."""
    def on_saved(item) -> None:
        PendingUpload.objects.filter(pk__in=[u.pk for u in uploads]).delete()
        for upload in uploads:
            transaction.on_commit(lambda upload=upload: _remove_bytes(upload))
        if then is not None:
            then(item)
    return on_saved


# -- Ending ----------------------------------------------------------------------------------

def terminate(upload: PendingUpload) -> None:
    """The upload and its bytes, gone (tus termination; the admin's remove button)."""
    if upload.busy_until and upload.busy_until > timezone.now():
        raise Busy(_("another request is writing this upload; retry when it ends"))
    _remove_bytes(upload)
    upload.delete()


def _remove_bytes(upload: PendingUpload) -> None:
    if storage.on_s3():
        client, bucket = _s3()
        if upload.multipart_id and not upload.sha256:
            with contextlib.suppress(client.exceptions.NoSuchUpload):
                client.abort_multipart_upload(Bucket=bucket, Key=s3_key(upload),
                                              UploadId=upload.multipart_id)
        client.delete_objects(Bucket=bucket, Delete={"Objects": [
            {"Key": s3_key(upload)}, {"Key": f"{s3_key(upload)}.tail"}]})
    else:
        path_of(upload).unlink(missing_ok=True)


@dataclass(frozen=True)
class Swept:
    what: str  # "expired": an upload past its expiry; "stray": bytes no upload claims
    name: str
    size: int


def _held_by_submissions() -> set[uuid.UUID]:
    """The uploads a submission still on its way names (issue 35): not abandoned, however
    long its review takes; they go with its publication (`consumed`), or expire once it is
    withdrawn or no longer names them."""
    ids = set()
    for files in Submission.objects.exclude(
            state__in=[Submission.State.PUBLISHED, Submission.State.WITHDRAWN]
    ).values_list("files", flat=True):
        for text in files:
            with contextlib.suppress(ValueError, TypeError, AttributeError):
                ids.add(uuid.UUID(text))
    return ids


def sweep(min_age: int) -> list[Swept]:
    """Remove every expired upload with its bytes, then whatever waits in the upload folder's
    pending/ (or the bucket's uploads/) that no upload claims and that is older than
    `min_age` seconds (younger, it may be an upload being created)."""
    swept = []
    for upload in PendingUpload.objects.filter(expires__lte=timezone.now()).exclude(
            pk__in=_held_by_submissions()):
        _remove_bytes(upload)
        upload.delete()
        swept.append(Swept("expired", upload.name, upload.offset))
    known = {str(pk) for pk in PendingUpload.objects.values_list("pk", flat=True)}
    cutoff = timezone.now() - timedelta(seconds=min_age)
    if storage.on_s3():
        client, bucket = _s3()
        for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket,
                                                                     Prefix=S3_PREFIX):
            for found in page.get("Contents", []):
                name = found["Key"][len(S3_PREFIX):].removesuffix(".tail")
                if name not in known and found["LastModified"] < cutoff:
                    client.delete_object(Bucket=bucket, Key=found["Key"])
                    swept.append(Swept("stray", found["Key"], found["Size"]))
        for page in client.get_paginator("list_multipart_uploads").paginate(
                Bucket=bucket, Prefix=S3_PREFIX):
            for started in page.get("Uploads", []):
                name = started["Key"][len(S3_PREFIX):]
                if name not in known and started["Initiated"] < cutoff:
                    client.abort_multipart_upload(Bucket=bucket, Key=started["Key"],
                                                  UploadId=started["UploadId"])
                    swept.append(Swept("stray", started["Key"], 0))
    elif folder().is_dir():
        for path in sorted(folder().iterdir()):
            info = path.lstat()  # a link is removed as a link, never followed
            if (path.name not in known and not path.is_dir()
                    and info.st_mtime < cutoff.timestamp()):
                path.unlink(missing_ok=True)
                swept.append(Swept("stray", str(path), info.st_size))
    return swept
