"""The repository's file limits, one rule for every way a file comes in: IBI_MAX_FILE_SIZE
bytes a file, IBI_MAX_FILES files an item.

Checked while an upload arrives (uploads.py: the first byte over the size stops it), by the
deposit services (services.py: whatever the edge), by the admin's deposit form (a form error
before anything is stored) and by the peer client reading another Archive's record
(preservation/peer.py: never fetch what could not be kept here).
"""
from __future__ import annotations

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFilesSent
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from ..refusals import Refusal, TooLarge


class LimitExceeded(Refusal):
    """A limit passed (a 400 unless said otherwise)."""


# Also Django's own exceptions for a request past its limits: raised by the upload handler
# (uploads.py) while Django parses a form, Django then knows the body unreadable and, should
# the refusal escape every edge, answers 400, never 500.
class FileTooLarge(LimitExceeded, TooLarge, RequestDataTooBig):
    """A file over IBI_MAX_FILE_SIZE: 413."""


class TooManyFiles(LimitExceeded, TooManyFilesSent):
    """More than IBI_MAX_FILES files in one item (or one request)."""


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
