"""The repository's file limits, one rule for every way a file comes in: IBI_MAX_FILE_SIZE
bytes a file, IBI_MAX_FILES files an item.

Checked while an upload arrives (uploads.py: the first byte over the size stops it), by the
deposit services (services.py: whatever the edge), by the admin's deposit form (a form error
before anything is stored) and by the peer client reading another Archive's record
(preservation/peer.py: never fetch what could not be kept here).
"""
from __future__ import annotations

from django.conf import settings
from django.utils.translation import gettext as _
from django.utils.translation import ngettext


class LimitExceeded(Exception):
    """A limit passed; `status` is the HTTP status an edge answers with."""

    status = 400


class FileTooLarge(LimitExceeded):
    status = 413


class TooManyFiles(LimitExceeded):
    status = 400


def max_file_size() -> int:
    return settings.IBI_MAX_FILE_SIZE


def max_files() -> int:
    return settings.IBI_MAX_FILES


def check_size(name: str, size: int) -> None:
    """FileTooLarge when a file of `size` bytes named `name` is over the limit."""
    if size > settings.IBI_MAX_FILE_SIZE:
        raise FileTooLarge(_("%(name)s is larger than %(size)d bytes") % {
            "name": name, "size": settings.IBI_MAX_FILE_SIZE})


def check_count(count: int) -> None:
    """TooManyFiles when an item would hold `count` files."""
    if count > settings.IBI_MAX_FILES:
        raise TooManyFiles(ngettext("an item holds at most %(count)d file",
                                    "an item holds at most %(count)d files",
                                    settings.IBI_MAX_FILES) % {"count": settings.IBI_MAX_FILES})
