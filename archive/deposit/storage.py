"""The uniform repository layout on Django's storage API: col/<repository name>/doc/<file>.

The work's files (DSpace's ORIGINAL bundle) are in doc/, and only they: what DSpace made or
kept beside them for an item that came from there (its TEXT, THUMBNAIL and LICENSE bundles,
models/files.py) lies in bundles/<bundle, in lower case>/ beside doc/, where no download path
reaches (site/downloads.py serves doc/ only) and a copy of doc/ never takes it for the work's.

Every byte goes through `default_storage`, so the local disk and S3 share one code path. On the
local disk that storage is `AtomicFileSystemStorage`: a file appears under its name whole or not
at all, whatever fails while it is written (a full disk: `StorageFull`, a 507).
"""
from __future__ import annotations

import errno
import hashlib
import os
import posixpath
import tempfile
import unicodedata
from contextlib import suppress
from dataclasses import dataclass
from typing import IO

from django.core.files import File
from django.core.files.storage import FileSystemStorage, default_storage
from django.utils.translation import gettext as _

from .. import refusals

CHUNK = 1024 * 1024
MAX_NAME_BYTES = 255
BIDI_CONTROLS = frozenset("\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def on_s3() -> bool:
    """Whether the files live on S3 (django-storages' S3Storage, or a subclass), asked without
    importing boto3 where they do not: every process, a `manage.py` command or a worker,
    starts that much sooner."""
    kind = default_storage.__class__  # the lazy storage set up, as configured
    return any(c.__module__ == "storages.backends.s3" for c in kind.__mro__)


class FileNameError(ValueError):
    """A file name that cannot be stored inside an item's doc/ folder."""


class StorageConflict(RuntimeError):
    """Something already lives at a key we were about to write."""

    def __init__(self, key: str) -> None:
        super().__init__(f"{key} already exists")
        self.key = key


# No room left where files are stored (or uploads wait): a 507, nothing of the file kept.
StorageFull = refusals.StorageFull


def no_room(exc: OSError) -> bool:
    """Whether an OSError says the file system (or the user's quota) is full."""
    return exc.errno in (errno.ENOSPC, errno.EDQUOT)


# Where AtomicFileSystemStorage writes a file before it gets its name: inside the storage's
# root, so on the same file system as col/, but outside col/ (fsck sweeps it, never reports it).
INCOMING = ".incoming"


class AtomicFileSystemStorage(FileSystemStorage):
    """Django's FileSystemStorage, except that a file appears under its name whole or never.

    Django writes a file in place, or moves an upload that lives on another file system by
    copying it: a full disk or a process killed mid-write left a partial file under its final
    name in col/, which fsck calls an orphan and a deposit sent again meets as a conflict (409).
    Here the bytes are written beside, in INCOMING, flushed to disk, and only then linked under
    their name: a hard link is atomic and never replaces a file. The partial file of a failure
    is removed at once; one a killed process left, fsck sweeps. An upload waiting on the same
    file system is linked directly, without a copy.
    """

    def _save(self, name, content):
        full_path = self.path(name)
        directory = os.path.dirname(full_path)
        os.makedirs(directory, exist_ok=True)
        incoming = self.path(INCOMING)
        os.makedirs(incoming, exist_ok=True)
        source = (content.temporary_file_path() if hasattr(content, "temporary_file_path")
                  else None)
        partial = None
        try:
            if source is None or os.stat(source).st_dev != os.stat(incoming).st_dev:
                fd, partial = tempfile.mkstemp(prefix="part-", dir=incoming)
                with os.fdopen(fd, "wb") as out:
                    for chunk in content.chunks():
                        out.write(chunk if isinstance(chunk, bytes) else chunk.encode())
                    out.flush()
                    os.fsync(out.fileno())
                source = partial
            if self.file_permissions_mode is not None:
                os.chmod(source, self.file_permissions_mode)
            while True:
                try:
                    os.link(source, full_path)
                    break
                except FileExistsError:
                    name = self.get_available_name(name)
                    full_path = self.path(name)
        except OSError as exc:
            if no_room(exc):
                raise StorageFull from exc
            raise
        finally:
            if partial is not None:
                with suppress(FileNotFoundError):
                    os.unlink(partial)
        return str(name).replace("\\", "/")


@dataclass(frozen=True)
class Stored:
    name: str
    size: int
    sha256: str


def item_folder(rep: str) -> str:
    """col/sid.inpe.br/mtc-m19/2013/09.04.12.27.57 — four directories from the IBI."""
    return f"col/{rep}"


ORIGINAL = "ORIGINAL"


def bundle_folder(rep: str, bundle: str = ORIGINAL) -> str:
    """col/<rep>/doc for the work's files, col/<rep>/bundles/<bundle> for another bundle's.

        >>> bundle_folder("r/e/p/1"), bundle_folder("r/e/p/1", "THUMBNAIL")
        ('col/r/e/p/1/doc', 'col/r/e/p/1/bundles/thumbnail')
    """
    if bundle == ORIGINAL:
        return f"{item_folder(rep)}/doc"
    return f"{item_folder(rep)}/bundles/{bundle.lower()}"


def file_key(rep: str, name: str, bundle: str = ORIGINAL) -> str:
    """col/<repository name>/doc/<file name>, the storage key and the download path (for a
    file of another bundle, col/<repository name>/bundles/<bundle>/<file name>)."""
    return f"{bundle_folder(rep, bundle)}/{name}"


def safe_name(name: str) -> str:
    """Reduce an uploaded name to a bare file name, or refuse it.

    `../../x`, `..\\x`, `/etc/x` and `C:\\x` all become `x`: whatever a browser or client sent
    as a path, only its last component names a file, so nothing can land outside doc/.
    """
    if not isinstance(name, str) or not name:
        raise FileNameError(_("a file needs a name"))
    name = unicodedata.normalize("NFC", name)
    if any(unicodedata.category(c) == "Cc" or c in BIDI_CONTROLS for c in name):
        # Control characters break headers and terminals; bidirectional overrides make
        # "evil\u202Efdp.exe" display as "evilexe.pdf".
        raise FileNameError(_("file names must not contain control or bidirectional characters"))
    bare = posixpath.basename(name.replace("\\", "/")).strip()
    if bare in ("", ".", ".."):
        raise FileNameError(_("%(name)r does not name a file") % {"name": name})
    if len(bare.encode()) > MAX_NAME_BYTES:
        raise FileNameError(_("file names are limited to %(count)d bytes")
                            % {"count": MAX_NAME_BYTES})
    return bare


def sha256_of(fileobj: IO[bytes]) -> tuple[str, int]:
    """Stream a file once, in chunks, for its checksum and size."""
    digest, size = hashlib.sha256(), 0
    fileobj.seek(0)
    while chunk := fileobj.read(CHUNK):
        digest.update(chunk)
        size += len(chunk)
    fileobj.seek(0)
    return digest.hexdigest(), size


def digests_of(fileobj: IO[bytes]) -> tuple[str, str, int]:
    """Stream a file once for both its digests and its size: (sha256, sha512, size)."""
    sha256, sha512, size = hashlib.sha256(), hashlib.sha512(), 0
    fileobj.seek(0)
    while chunk := fileobj.read(CHUNK):
        sha256.update(chunk)
        sha512.update(chunk)
        size += len(chunk)
    fileobj.seek(0)
    return sha256.hexdigest(), sha512.hexdigest(), size


def store(rep: str, name: str, fileobj: IO[bytes], bundle: str = ORIGINAL) -> Stored:
    """Write one file under the item's doc/ folder (or its bundle's); never overwrite
    anything."""
    key = file_key(rep, name, bundle)
    sha = getattr(fileobj, "sha256", None)
    size = getattr(fileobj, "size", None)
    if sha is None or size is None:
        sha, size = sha256_of(fileobj)
    if default_storage.exists(key):
        raise StorageConflict(key)
    copy_to = getattr(fileobj, "copy_to", None)
    if copy_to is not None:
        # A pending upload already in the bucket (pending.py): copied there, not sent again.
        copy_to(key)
        return Stored(name=name, size=size, sha256=sha)
    saved = default_storage.save(key, fileobj if isinstance(fileobj, File) else File(fileobj))
    if saved != key:
        # Lost a race with another writer: keep theirs, drop ours.
        default_storage.delete(saved)
        raise StorageConflict(key)
    return Stored(name=name, size=size, sha256=sha)


def remove(rep: str, names: list[str], bundle: str = ORIGINAL) -> None:
    for name in names:
        default_storage.delete(file_key(rep, name, bundle))


def open_file(rep: str, name: str, bundle: str = ORIGINAL):
    return default_storage.open(file_key(rep, name, bundle), "rb")


def list_folder(rep: str, bundle: str = ORIGINAL) -> list[str]:
    """Names stored under the item's doc/ folder (or its bundle's)."""
    try:
        _dirs, files = default_storage.listdir(bundle_folder(rep, bundle))
    except FileNotFoundError:
        return []
    return sorted(files)
