"""Asking: this Archive in process, the other included Archives over HTTP at once (§8.2 step 2).

This Archive's own archive service answers in process (`local_answer`: the code that answers
other resolvers, no network hop). Every included Archive gets the same ``urlRequest`` at once
(archive/protocol/client.py), each within IBI_RESOLVER_TIMEOUT, the round within what is left
of IBI_RESOLVER_DEADLINE; the same but for the metadata formats beyond oai_dc, which only an
Archive that announced them is asked for (formats.py `asked_of`). At most
IBI_RESOLVER_MAX_WAITING resolutions of a process wait on other Archives at once
(`ResolverBusy` beyond), and at most IBI_RESOLVER_MAX_WAITING_PER_CLIENT of them for one
client address (`ClientBusy`), so that a few clients asking for IBIs at a silent Archive
cannot take every place. An Archive whose breaker is open is not asked, and counts as silent
(health.py), unless the Original is required. Answers are read as untrusted input: badly
formed ones are dropped (the Archive counts as silent), and URLs not on their Archive's
address too (safety.py).
"""
from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext

from django.conf import settings
from django.db.models import Q

from ..archive_service import answers as archive_service
from ..deposit import links
from ..identifiers import ibi as ibilib
from ..models import Item, RegisteredArchive
from ..protocol import client
from ..protocol.pairs import PairListError, to_dict
from . import formats, health
from .reading import Answer, Source, find_url, ibis_in, state_of
from .safety import sanitized

logger = logging.getLogger(__name__)


def local_answer(ibi_text: str, verbs: Sequence[str], filepath: str | None,
                 base: str | None) -> tuple[Answer | None, str | None]:
    """This Archive's own answer, in process (one query for a plain URL), and the state the
    item is held in here."""
    found, held = archive_service.held_answer(ibi_text=ibi_text, verbs=verbs,
                                              filepath=filepath, base=base)
    pairs = dict(found)
    if not pairs:
        return None, None
    service = pairs.get("ibi.archiveservice") or ["", ""]  # our own: rep <IBI> …
    source = Source(address=links.archive_address(base), service_ibi=service[1])
    return Answer(source, sanitized(source, pairs)), held


def source_of(archive: RegisteredArchive, reply: client.Reply) -> Source:
    hosts = tuple(dict.fromkeys(ip for ip in (archive.ip, reply.ip) if ip))
    return Source(archive.address, archive.archive_service_ibi, archive.pk, hosts)


def remote_archives(service: Item | None) -> list[RegisteredArchive]:
    """Included Archives with an address, this one left out (it answered in process)."""
    return included_others(RegisteredArchive.objects.all(), service)


def included_others(archives, service: Item | None) -> list[RegisteredArchive]:
    archives = archives.filter(included=True).exclude(address="")
    ours = ibis_in([service.ibi, service.ibip]) if service else set()
    return [a for a in archives if not ibis_in([a.archive_service_ibi]) & ours]


def home_archive(ibi: ibilib.Ibi, service: Item | None) -> RegisteredArchive | None:
    """`home_of` among the included Archives, with one query for the few that may be it
    (not every Archive of the federation: a home that settles it needs no more)."""
    if ibi.form == "rep":
        named = Q(archive_service_ibi__istartswith=f"{ibi.subdomain}/{ibi.first_word}")
        host = ibi.hostname
    else:
        named = Q(archive_service_ibi__istartswith=f"{ibi.prefix}/") | Q(ip=ibi.ip)
        host = ibi.ip
    found = RegisteredArchive.objects.filter(
        named | Q(address__iexact=host) | Q(address__istartswith=f"{host}:"))
    return home_of(ibi, included_others(found, service))


def _subsystem(ibi: ibilib.Ibi) -> tuple:
    """The identification subsystem that minted an IBI (RTC-10): (hostname, port) for a
    repository name, (IP, port) for an IBIp."""
    return (ibi.hostname, ibi.port) if ibi.form == "rep" else (ibi.ip, ibi.port)


def home_of(ibi: ibilib.Ibi, archives: Sequence[RegisteredArchive]) -> RegisteredArchive | None:
    """The included Archive that answers for the host that minted `ibi`, or None: the one
    whose archive service IBI the same subsystem minted (``sid.inpe.br/mtc-m21/2012/…`` for
    ``sid.inpe.br/mtc-m21/2013/…``), else one whose address or IP is that host
    (``mtc-m21.sid.inpe.br``, the IP an IBIp carries)."""
    minted = _subsystem(ibi)
    by_host = None
    for archive in archives:
        try:
            if _subsystem(ibilib.parse(archive.archive_service_ibi)) == minted:
                return archive
        except ValueError:
            pass
        host = archive.address.rsplit(":", 1)[0].strip("[]").lower()
        if by_host is None and host and host in (ibi.hostname, ibi.ip):
            by_host = archive
        elif by_host is None and archive.ip and archive.ip == ibi.ip:
            by_host = archive
    return by_host


class ResolverBusy(Exception):
    """IBI_RESOLVER_MAX_WAITING resolutions of this process already wait for other Archives."""


class ClientBusy(ResolverBusy):
    """IBI_RESOLVER_MAX_WAITING_PER_CLIENT resolutions of this client address already wait
    for other Archives in this process."""


_waiting = 0
_waiting_by_client: Counter[str] = Counter()
_waiting_lock = threading.Lock()


@contextmanager
def _waiting_slot(reader: str) -> Iterator[None]:
    """One of the IBI_RESOLVER_MAX_WAITING places for a resolution that waits on other Archives
    (up to IBI_RESOLVER_DEADLINE), or at once ResolverBusy, or ClientBusy when `reader` (the
    client's address, "" when unknown) already holds IBI_RESOLVER_MAX_WAITING_PER_CLIENT of
    them: slow Archives may hold that many threads of a worker, never all of them, so pages
    and local persistent URLs keep answering, and no one client holds them all. A resolution
    answered without asking (an IBI nobody holds, remembered) takes no place, nor a question
    to one Archive that answers fast (`health.fast`)."""
    global _waiting
    with _waiting_lock:
        if reader and (_waiting_by_client[reader]
                       >= settings.IBI_RESOLVER_MAX_WAITING_PER_CLIENT):
            raise ClientBusy
        if _waiting >= settings.IBI_RESOLVER_MAX_WAITING:
            raise ResolverBusy
        _waiting += 1
        _waiting_by_client[reader] += 1
    try:
        yield
    finally:
        with _waiting_lock:
            _waiting -= 1
            _waiting_by_client[reader] -= 1
            if _waiting_by_client[reader] <= 0:
                del _waiting_by_client[reader]


def _answer(archive: RegisteredArchive, reply: client.Reply, found: dict,
            stand_in: str) -> Answer:
    """One Archive's answer as the resolver reads it: its URLs checked (safety.py), an oai_dc
    answer read for the format it stands in for (formats.py)."""
    source = source_of(archive, reply)
    pairs = sanitized(source, found)
    if stand_in:
        return Answer(source, formats.stand_in(pairs, stand_in), stand_in)
    return Answer(source, pairs)


def asked_of(archives: Sequence[RegisteredArchive], pairs: dict[str, str]
             ) -> dict[int, tuple[dict[str, str], str]]:
    """Archive id → (what it is asked, the format its answer stands in for): the verbs of
    Table 8.4 only, unless it announced more (formats.py)."""
    return {archive.pk: formats.asked_of(archive, pairs) for archive in archives}


def remote_answers(archives: Sequence[RegisteredArchive], pairs: dict[str, str],
                   deadline: float, stop, reader: str = "", *, probe_all: bool = False
                   ) -> tuple[list[Answer], list[str]]:
    """The non-empty answers in arrival order, and the Archives that gave none (no answer in
    time, no usable answer, or left alone by their breaker). Each Archive is asked what it may
    be asked (`asked_of`); `stop` is `stop_on_original`'s or None; `reader` is the client
    address whose resolution waits (for its limit); `probe_all` asks the Archives left alone
    too (health.py).

    An Archive asked ``GetMetadata(oai_dc)`` in place of a format its answer then announces
    (one of ours, heard for the first time) is asked again at once, for that format: its own
    record is better than one rendered here from oai_dc."""
    end = time.monotonic() + deadline
    answers, silent = _remote_answers(archives, pairs, deadline, stop, reader, probe_all)
    again = {a.source.archive for a in answers
             if a.stand_in and a.stand_in in formats.announced(_by_id(archives, a))}
    left = end - time.monotonic()
    if again and left > 0:
        better, _quiet = _remote_answers([a for a in archives if a.pk in again], pairs, left,
                                         None, reader, probe_all)
        by_archive = {a.source.archive: a for a in better}
        answers = [by_archive.get(a.source.archive, a) for a in answers]
    return answers, silent


def _by_id(archives: Sequence[RegisteredArchive], answer: Answer) -> RegisteredArchive:
    return next(a for a in archives if a.pk == answer.source.archive)


def _remote_answers(archives: Sequence[RegisteredArchive], pairs: dict[str, str],
                    deadline: float, stop, reader: str, probe_all: bool
                    ) -> tuple[list[Answer], list[str]]:
    known = health.of(a.pk for a in archives)
    archives, skipped = health.usable(archives, probe_all=probe_all, known=known)
    by_id = {a.pk: a for a in archives}
    asked = asked_of(archives, pairs)
    targets = []
    for archive in archives:
        try:
            targets.append((client.archive_base(archive.address, archive.archive_service_ibi),
                            archive.pk))
        except client.AddressError:
            logger.warning("resolver: Archive %s has an unusable address",
                           archive.archive_service_ibi)
    replies = []
    if targets:
        # One Archive that answers fast (the home, or where the item was found last) holds a
        # thread for its usual few milliseconds: no waiting place, or a campus behind one
        # address could resolve one remote IBI at a time (#41 asks the Archive every time).
        fast = len(targets) == 1 and health.fast(known[archives[0].pk])
        with nullcontext() if fast else _waiting_slot(reader):
            replies = client.ask_all_sync(
                targets, pairs, deadline=deadline, stop=stop,
                pairs_for={pk: own for pk, (own, _format) in asked.items()})
    answers, silent = [], [archive.archive_service_ibi for archive in skipped]
    unreadable = set()
    for reply in replies:
        archive = by_id[reply.tag]
        if not reply.ok:
            if not reply.cancelled:
                logger.info("resolver: %s gave no answer: %s", archive.archive_service_ibi,
                            reply.error)
                silent.append(archive.archive_service_ibi)
            continue
        try:
            found = to_dict(reply.pairs)
        except PairListError as exc:
            logger.warning("resolver: %s answered badly: %s", archive.archive_service_ibi, exc)
            unreadable.add(archive.pk)
            silent.append(archive.archive_service_ibi)
            continue
        if found:
            formats.remember(archive, found)
            answers.append(_answer(archive, reply, found, asked[archive.pk][1]))
    health.record([(reply.tag, reply) for reply in replies], unreadable)
    return answers, silent


def stop_on_original(archives: Sequence[RegisteredArchive], wanted, prefs,
                     pairs: dict[str, str]):
    """Ends a round (no Original required) at the first reply whose URL, on its own Archive's
    address, is the Original's: no later answer can be better."""
    by_id = {a.pk: a for a in archives}
    asked = asked_of(archives, pairs)

    def stop(reply: client.Reply) -> bool:
        archive = by_id.get(reply.tag)
        try:
            found = to_dict(reply.pairs or [])
        except PairListError:
            return False
        if archive is None or not found:
            return False
        answer = _answer(archive, reply, found, asked[archive.pk][1])
        hit = None if answer.deleted else find_url(answer, wanted, prefs)
        return hit is not None and state_of(answer, hit.relation) == "Original"
    return stop
