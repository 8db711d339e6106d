"""One family for every refusal: what the repository will not do, and the HTTP status an edge
answers it with.

A service refuses by raising a `Refusal` (or a subclass): its message says why, in the
language active where it was raised, and its `status` is what the API, the pages and the
admin answer. An edge catches this one class, as pretix's api/exception.py does over DRF's;
no service imports an HTTP response type (pyproject.toml's import contracts and
tests/test_suite.py say so).

The subclasses are statuses, not places: a deposit and a pending upload refused for their
size are both a `TooLarge`. Where a module needs a name of its own (services.ChecksumMismatch,
pending.LeaseLost, limits.LimitExceeded, which a caller catches for itself), it subclasses one
of these.

>>> issubclass(StorageFull, Refusal), StorageFull.status
(True, 507)
>>> str(Conflict("the item already has a file named 'a.pdf'"))
"the item already has a file named 'a.pdf'"
"""
from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy


class Refusal(Exception):
    """A request the repository refuses, for the reason its message gives (its class's
    `message` when none is given); `status` is the HTTP status an edge answers with."""

    status = 400
    message = _("the request is refused")

    def __init__(self, message: str | None = None) -> None:
        super().__init__(str(self.message if message is None else message))


class Forbidden(Refusal):
    """The one asking may not do this (a role they do not hold, a task they do not hold)."""

    status = 403
    message = _("you may not do this")


class NotFound(Refusal):
    status = 404
    message = pgettext_lazy("refusal", "not found")


class Conflict(Refusal):
    """What is asked contradicts what is there (a file of that name, an offset, a state)."""

    status = 409
    message = _("the request conflicts with what is there")


class TooLarge(Refusal):
    status = 413
    message = _("too large")


class Locked(Refusal):
    """Another request is at work on the same thing; retrying when it ends may succeed."""

    status = 423
    message = _("another request is at work on this; retry when it ends")


class BadGateway(Refusal):
    """Another Archive, asked on this request's behalf, could not be asked or answered
    nonsense."""

    status = 502
    message = _("the other Archive could not be asked")


class StorageFull(Refusal):
    """No room left where files are stored (or uploads wait): nothing of the file was kept."""

    status = 507
    message = _("the storage is full: nothing was kept; try again once there is room")
