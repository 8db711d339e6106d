"""Which files a bulk import may read: only regular files inside the import folder.

`manage.py importitems` reads paths written by whoever prepared the CSV or the folder, and
every file it reads becomes a public download. So a path is taken only when it names a
regular file below the source folder, reached without `..` and without a symbolic link
anywhere on the way (a link may point anywhere, and may be changed after it was checked):

    >>> import_path(Path("/data/collection"), "files/report.pdf")
    PosixPath('/data/collection/files/report.pdf')
    >>> import_path(Path("/data/collection"), "../passwd")
    Traceback (most recent call last):
    archive.deposit.bulk_import.UnsafePath: '../passwd': '..' is not allowed in an import path

No database, no Django: the command reads the source, this decides what it may open. So
UnsafePath carries its English message template and parameters, marked for the catalogue by a
local gettext_noop, and the command (the edge) translates them: `exc.template % exc.params`.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import IO

__all__ = ["UnsafePath", "check_item_folder", "folder_file", "import_path", "open_import_file"]


def gettext_noop(message: str) -> str:
    """Marks a message for makemessages; the edge translates it (Django's gettext)."""
    return message


class UnsafePath(ValueError):
    """A path an import refuses to read; the message says which and why.

    `template` (marked for translation) and `params` let the edge say it in the operator's
    language; str() is the English message."""

    def __init__(self, template: str, **params: object) -> None:
        super().__init__(template % params)
        self.template, self.params = template, params


def import_path(root: Path, relative: str) -> Path:
    """`relative` (as written in a CSV cell) joined to the folder `root`, or UnsafePath.

    Refused: an absolute path (`/x`, `C:\\x`, `\\\\server\\x`), any `..` component (even one
    that would stay inside, `sub/../x`: a writer who needs it made a mistake), a symbolic link
    as any component, and anything that does not resolve to a path below `root`.
    """
    text = relative.strip()
    if not text:
        raise UnsafePath(gettext_noop("an empty path"))
    if "\x00" in text:
        raise UnsafePath(gettext_noop("%(path)r: a NUL character in the path"), path=text)
    if (PurePosixPath(text).is_absolute() or PureWindowsPath(text).is_absolute()
            or PureWindowsPath(text).drive or text.startswith(("/", "\\"))):
        raise UnsafePath(gettext_noop("%(path)r: absolute paths are not allowed in an import"),
                         path=text)
    parts = text.replace("\\", "/").split("/")
    if ".." in parts:
        raise UnsafePath(gettext_noop("%(path)r: '..' is not allowed in an import path"), path=text)
    return _inside(root, [p for p in parts if p not in ("", ".")], text)


def folder_file(root: Path, path: Path) -> Path:
    """A file found by listing an item's subfolder of `root`: not a link, inside `root`."""
    return _inside(root, list(path.relative_to(root).parts), path.name)


def _inside(root: Path, parts: list[str], shown: str) -> Path:
    root = root.resolve()
    current = root
    for part in parts:
        current = current / part
        if current.is_symlink():
            raise UnsafePath(gettext_noop("%(path)r: %(part)r is a symbolic link; links are "
                                          "not followed in an import"), path=shown, part=part)
    if not current.resolve().is_relative_to(root):  # belt and braces after the walk above
        raise UnsafePath(gettext_noop("%(path)r is outside the import folder %(root)s"), path=shown,
                         root=root)
    return current


def check_item_folder(root: Path, folder: Path) -> None:
    """An item's subfolder of a folder import: a real folder directly below `root`."""
    if folder.is_symlink():
        raise UnsafePath(gettext_noop("%(path)r is a symbolic link; links are not followed in "
                                      "an import"), path=folder.name)
    if folder.resolve().parent != root.resolve():  # a link above it, say
        raise UnsafePath(gettext_noop("%(path)r is outside the import folder %(root)s"),
                         path=folder.name, root=root)


def open_import_file(path: Path) -> IO[bytes]:
    """Open a checked path for reading, refusing a link put there since the check (O_NOFOLLOW)
    and anything that is not a regular file (a FIFO would block, a device never end)."""
    try:
        # Non-blocking only for the open itself: a FIFO would otherwise wait for a writer.
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        if path.is_symlink():
            raise UnsafePath(gettext_noop("%(path)r is a symbolic link; links are not followed "
                                          "in an import"), path=path.name) from None
        raise UnsafePath(gettext_noop("%(path)r: %(reason)s"), path=path.name,
                         reason=exc.strerror) from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise UnsafePath(gettext_noop("%(path)r is not a regular file"), path=path.name)
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")
