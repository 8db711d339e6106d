"""Preservation events (PREMIS 3): what was done to an item or a file, when, by whom, and how
it went. Every action on an item records one here, in the transaction of the action itself,
so an event exists exactly when its action happened.

    record(PremisEvent.Type.INGESTION, ibi=item.ibi, agent=person(request.user),
           detail="deposit through the admin")

The agent is one of three kinds: a person (their account: `person(user)`), this software at
its version (`software()`), or another Archive by its archive service IBI (`archive(ibi)`).
Events are never changed or deleted (archive/db/append_only.py); the selectors read them.

Who acts, when a service does not say: `acting()`. A request's person is set by the edge
(archive/web/middleware.py `ActingPersonMiddleware`, read lazily, so that the API's token
authentication, which happens in the view, is seen), as django-auditlog's middleware does;
with none (a command, a worker, the beat), this software acts.
"""
from __future__ import annotations

import contextlib
import contextvars
import functools
import uuid
from collections.abc import Callable, Iterator
from importlib.metadata import PackageNotFoundError, version
from urllib.parse import urlsplit

from django.db.models import QuerySet
from django.utils import timezone

from ..models import PremisAgent, PremisEvent, RegisteredArchive

Type = PremisEvent.Type
Outcome = PremisEvent.Outcome

SOFTWARE_NAME = "ibirepo"


@functools.cache
def software_version() -> str:
    """This software's version, as its package says (pyproject.toml): read once a process
    (the package's metadata read from disk, a millisecond and more, at every event before);
    an upgrade restarts the processes that run it."""
    try:
        return version(SOFTWARE_NAME)
    except PackageNotFoundError:  # run from a tree that was never installed
        return "0"


def _agent(kind: str, identifier_type: str, identifier: str, name: str) -> PremisAgent:
    agent, _ = PremisAgent.objects.get_or_create(
        identifier_type=identifier_type, identifier=identifier,
        defaults={"kind": kind, "name": name[:255]})
    return agent


def person(user) -> PremisAgent:
    """A person acting through their account (staff or not): identified by the account's id,
    named by its username (renamed, not deleted, when the account is erased)."""
    return _agent(PremisAgent.Kind.PERSON, "local account", str(user.pk), user.get_username())


def software() -> PremisAgent:
    """This software, at the version now running: what the app does by itself (the beat's
    checks, a worker's copy, a command run without a person named)."""
    name = f"{SOFTWARE_NAME} {software_version()}"
    return _agent(PremisAgent.Kind.SOFTWARE, "software", name, name)


def archive(ibi: str, name: str = "") -> PremisAgent:
    """Another Archive, by its archive service's IBI (a Copy received from it, a hand-over)."""
    return _agent(PremisAgent.Kind.ORGANIZATION, "IBI", ibi, name or ibi)


def archive_at(base_url: str) -> PremisAgent:
    """Another Archive known by its base URL (a peer's, a Copy's source): by its archive
    service IBI when the registry names the Archive at that address, else by the URL itself."""
    host = urlsplit(base_url).netloc or base_url
    known = RegisteredArchive.objects.filter(address=host).values_list(
        "archive_service_ibi", flat=True).first()
    if known:
        return archive(known, name=base_url)
    return _agent(PremisAgent.Kind.ORGANIZATION, "URI", base_url, base_url)


_acting: contextvars.ContextVar[Callable[[], object] | None] = contextvars.ContextVar(
    "premis_acting_person", default=None)


@contextlib.contextmanager
def acting_as(user_of: Callable[[], object]) -> Iterator[None]:
    """Within the block, `acting()` is the person `user_of()` answers (read when an event is
    recorded; an anonymous or absent user leaves this software acting)."""
    token = _acting.set(user_of)
    try:
        yield
    finally:
        _acting.reset(token)


def acting() -> PremisAgent:
    """Who acts now: the request's signed-in person, else this software."""
    user_of = _acting.get()
    user = user_of() if user_of is not None else None
    if user is not None and getattr(user, "is_authenticated", False):
        return person(user)
    return software()


def record(type: str, *, ibi: str, agent: PremisAgent | None = None, file: str = "",
           outcome: str = Outcome.SUCCESS, detail: str = "", outcome_detail: str = "",
           at=None) -> PremisEvent:
    """Record one event of the item `ibi` (its repository name), or of its file `file`;
    `agent` None: whoever acts now (`acting()`)."""
    return PremisEvent.objects.create(
        identifier=uuid.uuid4(), type=type, at=at or timezone.now(), ibi=ibi, file=file,
        agent=agent or acting(), outcome=outcome, detail=detail, outcome_detail=outcome_detail)


def rename_person(user_id: int, name: str) -> int:
    """An erased account's agent renamed (LGPD): its events stay as they were, naming it."""
    return PremisAgent.objects.filter(kind=PremisAgent.Kind.PERSON,
                                      identifier_type="local account",
                                      identifier=str(user_id)).update(name=name[:255])


def of_item(ibi: str) -> QuerySet[PremisEvent]:
    """The item's events and its files', oldest first, with their agents."""
    return PremisEvent.objects.filter(ibi=ibi).select_related("agent").order_by("at", "id")
