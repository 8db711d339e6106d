"""Where an import reads a Simple Archive Format export: a folder or a .zip, read safely.

A folder holds one subfolder per item (DSpace's ItemImport `-s`); a zip holds the same, at its
top or under one folder (what ItemExport's `--zip` writes), and is read where it is, never
unpacked. Refused, each failing its own item with the reason (the rest still imports):

* a path with `..` or an absolute path (`/x`, `C:\\x`): a zip slip;
* a symbolic link, in a folder or a zip (its entry's Unix mode), to a file or a folder;
* a file over IBI_MAX_FILE_SIZE, known from its size before a byte is read, and checked
  again while it is read (a zip's stated size may lie);
* an entry of a zip or a folder that belongs to no item: reported, nothing read from it.

`Package.open` gives a file the deposit services can store: a regular file of the folder,
opened without following links (deposit/bulk_import.py), or a zip member copied into a
temporary file beside the uploads (IBI_UPLOAD_TEMP_DIR), hashed on the way.
"""
from __future__ import annotations

import abc
import hashlib
import os
import posixpath
import stat
import tempfile
import zipfile
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import IO

from django.conf import settings
from django.utils.translation import gettext as _

from ..deposit import bulk_import, limits
from .saf import DUBLIN_CORE, MAX_METADATA_BYTES, SafError

CHUNK = 1024 * 1024


class Package(abc.ABC):
    """One item's folder of an export; `name` is its path in the export (item_000): a folder
    (FolderPackage) or a zip's folder (ZipPackage) says how its files are read."""

    name: str

    @abc.abstractmethod
    def exists(self, relative: str) -> bool:
        ...

    def read(self, relative: str, limit: int = MAX_METADATA_BYTES) -> bytes:
        """A small file (metadata, contents, handle), read whole within `limit` bytes."""
        try:
            with self.open_small(relative) as f:
                data = f.read(limit + 1)
        except (zipfile.BadZipFile, EOFError, OSError) as exc:
            raise SafError(_("cannot be read: %(reason)s") % {"reason": exc}, relative) from None
        if len(data) > limit:
            raise SafError(_("larger than %(count)d bytes") % {"count": limit}, relative)
        return data

    @abc.abstractmethod
    def size(self, relative: str) -> int:
        ...

    @abc.abstractmethod
    def names(self) -> list[str]:
        """The names of the files directly in the item's folder, sorted."""
        ...

    @abc.abstractmethod
    def open(self, relative: str) -> IO[bytes]:
        """A file of the item, within IBI_MAX_FILE_SIZE, for the deposit services."""
        ...

    @abc.abstractmethod
    def open_small(self, relative: str) -> IO[bytes]:
        """A file of the package's own (metadata), to be read within a limit of its own."""
        ...

    @property
    def problems(self) -> list[tuple[str, str]]:
        """(entry, reason) of what makes the whole package unsafe to read."""
        return []


def check_relative(relative: str) -> str:
    """A path inside an item's folder as `contents` names it, or SafError (zip slip)."""
    text = relative.strip()
    if not text or "\x00" in text:
        raise SafError(_("%(path)r is not a file name") % {"path": relative}, relative)
    if (PurePosixPath(text).is_absolute() or PureWindowsPath(text).is_absolute()
            or PureWindowsPath(text).drive or text.startswith(("/", "\\"))):
        raise SafError(_("%(path)r is an absolute path") % {"path": relative}, relative)
    parts = text.replace("\\", "/").split("/")
    if ".." in parts:
        raise SafError(_("%(path)r leaves the item's folder (..)") % {"path": relative},
                       relative)
    return "/".join(p for p in parts if p not in ("", "."))


def _check_size(relative: str, size: int) -> None:
    try:
        limits.check_size(relative, size)
    except limits.LimitExceeded as exc:
        raise SafError(str(exc), relative) from None


class FolderPackage(Package):
    def __init__(self, root: Path, folder: Path) -> None:
        self.root, self.folder, self.name = root, folder, folder.name

    def _path(self, relative: str) -> Path:
        try:
            return bulk_import.import_path(self.folder, check_relative(relative))
        except bulk_import.UnsafePath as exc:
            raise SafError(_(exc.template) % exc.params, relative) from None

    def exists(self, relative: str) -> bool:
        path = self.folder / relative
        return path.exists() or path.is_symlink()

    def names(self) -> list[str]:
        return sorted(p.name for p in self.folder.iterdir() if not p.is_dir())

    def size(self, relative: str) -> int:
        path = self._path(relative)
        if not path.is_file():
            raise SafError(_("%(path)r is not in the package") % {"path": relative}, relative)
        return path.stat().st_size

    def open_small(self, relative: str) -> IO[bytes]:
        path = self._path(relative)
        if not path.exists():
            raise SafError(_("%(path)r is not in the package") % {"path": relative}, relative)
        try:
            return bulk_import.open_import_file(path)
        except bulk_import.UnsafePath as exc:
            raise SafError(_(exc.template) % exc.params, relative) from None

    def open(self, relative: str) -> IO[bytes]:
        opened = self.open_small(relative)
        try:
            _check_size(relative, os.fstat(opened.fileno()).st_size)
        except BaseException:
            opened.close()
            raise
        return opened

    @property
    def problems(self) -> list[tuple[str, str]]:
        """Symbolic links anywhere in the item's folder: the item is refused whole."""
        found = []
        for folder, dirs, files in os.walk(self.folder):
            for name in dirs + files:
                path = Path(folder, name)
                if path.is_symlink():
                    shown = path.relative_to(self.root).as_posix()
                    found.append((shown, _("%(path)r is a symbolic link; links are not "
                                           "followed in an import") % {"path": shown}))
        return found


def folder_packages(root: Path) -> tuple[list[Package], list[tuple[str, str]]]:
    """The item folders of `root` (sorted), and (entry, reason) for what is no item."""
    packages: list[Package] = []
    strays = []
    for child in sorted(root.iterdir()):
        if child.name.startswith("."):
            continue
        if child.is_symlink():
            strays.append((child.name, _("%(path)r is a symbolic link; links are not followed "
                                         "in an import") % {"path": child.name}))
        elif child.is_dir():
            packages.append(FolderPackage(root, child))
        else:
            strays.append((child.name, _("a file outside any item's folder")))
    return packages, strays


class ZipPackage(Package):
    def __init__(self, archive: zipfile.ZipFile, prefix: str,
                 members: dict[str, zipfile.ZipInfo], bad: list[tuple[str, str]]) -> None:
        self.archive, self.prefix, self.members, self.bad = archive, prefix, members, bad
        self.name = prefix.rstrip("/")

    @property
    def problems(self) -> list[tuple[str, str]]:
        return self.bad

    def _info(self, relative: str) -> zipfile.ZipInfo:
        clean = check_relative(relative)
        info = self.members.get(clean)
        if info is None:
            raise SafError(_("%(path)r is not in the package") % {"path": relative}, relative)
        return info

    def exists(self, relative: str) -> bool:
        return relative in self.members

    def names(self) -> list[str]:
        return sorted(name for name in self.members if "/" not in name)

    def size(self, relative: str) -> int:
        return self._info(relative).file_size

    def open_small(self, relative: str) -> IO[bytes]:
        return self.archive.open(self._info(relative))

    def open(self, relative: str) -> IO[bytes]:
        info = self._info(relative)
        _check_size(relative, info.file_size)
        temp = tempfile.TemporaryFile(dir=settings.IBI_UPLOAD_TEMP_DIR)
        digest, size = hashlib.sha256(), 0
        try:
            with self.archive.open(info) as src:
                while chunk := src.read(CHUNK):
                    size += len(chunk)
                    _check_size(relative, size)
                    digest.update(chunk)
                    temp.write(chunk)
        except (zipfile.BadZipFile, OSError, EOFError) as exc:
            temp.close()
            raise SafError(_("cannot be read from the zip: %(reason)s") % {"reason": exc},
                           relative) from None
        except BaseException:
            temp.close()
            raise
        temp.seek(0)
        temp.sha256, temp.size = digest.hexdigest(), size  # read once: store() trusts these
        return temp


def _zip_problem(info: zipfile.ZipInfo) -> str:
    name = info.filename
    try:
        check_relative(name)
    except SafError as exc:
        return str(exc)
    if stat.S_ISLNK(info.external_attr >> 16):
        return _("%(path)r is a symbolic link; links are not followed in an import") % {
            "path": name}
    return ""


def zip_packages(archive: zipfile.ZipFile) -> tuple[list[Package], list[tuple[str, str]]]:
    """The item folders of a zip (holding a dublin_core.xml, at its top or one folder down),
    and (entry, reason) for every entry that belongs to none or that is refused outright."""
    infos = [i for i in archive.infolist() if not i.is_dir()]
    names = {posixpath.normpath(i.filename.replace("\\", "/")): i for i in infos}
    folders = sorted({posixpath.dirname(n) for n in names
                      if posixpath.basename(n) == DUBLIN_CORE
                      and 1 <= n.count("/") <= 2 and not _zip_problem(names[n])})
    packages: list[Package] = []
    taken: set[str] = set()
    strays = []
    for folder in folders:
        prefix = folder + "/"
        members, bad = {}, []
        for name, info in names.items():
            raw = info.filename.replace("\\", "/")
            if not raw.startswith(prefix):
                continue
            taken.add(name)
            problem = _zip_problem(info)
            if problem:
                bad.append((info.filename, problem))
            else:
                members[check_relative(raw[len(prefix):])] = info
        packages.append(ZipPackage(archive, prefix, members, bad))
    for name, info in names.items():
        if name not in taken:
            strays.append((info.filename, _zip_problem(info)
                           or _("a file outside any item's folder")))
    return packages, strays


def open_source(path: Path) -> tuple[list[Package], list[tuple[str, str]], zipfile.ZipFile | None]:
    """The packages of a folder or a .zip, the entries that are no item, and the open zip
    (close it when done)."""
    if path.is_dir():
        packages, strays = folder_packages(path)
        return packages, strays, None
    archive = zipfile.ZipFile(path)
    packages, strays = zip_packages(archive)
    return packages, strays, archive
