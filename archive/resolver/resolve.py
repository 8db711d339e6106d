"""The resolver of the resolution standard (RTC-11 §8.2): a persistent URL → one URL, or why not.

`resolve` runs the resolution process of Figure 8.1 for a parsed persistent URL:

1. An IBI held here is answered by this Archive's own archive service, in process
   (`archive_service.held_answer`, the code that answers other resolvers): no network hop.
   That answer settles it when it satisfies the request for sure (`settles`): an Original's
   answer does; a Copy's does for the item itself, but not when the Original is required,
   nor for a relation (``!``, ``+``, ``:``) it cannot reach or vouch for. A Copy's relations
   are its Original's as of the last copy, and the Archive holding the Original knows better.
2. Otherwise every included Archive gets a ``urlRequest`` at once (archive/protocol/client.py),
   each within IBI_RESOLVER_TIMEOUT, the whole resolution within IBI_RESOLVER_DEADLINE.
3. Selection (`choose`): with ``ibiurl.requireditemstatus=Original`` exactly one Archive
   claiming the Original is taken and two or more are suspects (an alert); otherwise the first
   answer with the wanted URL is taken (the local one first, then by arrival), and for a
   relation the first whose URL is an Original's, when one is (`choose`). An answer
   without that URL but naming a related IBI on the way (``ibi.translation(pt)``,
   ``ibi.lastedition`` …, or ``ibi.nextedition`` for ``!``) means asking again with that IBI and
   the rest of the verbs, at most MAX_HOPS times and never twice the same question.
   Every round (the question, the Archives asked, their answers, the choice) is kept in
   ``Outcome.rounds``, for inspection (``?info``, inspection.py) to show.
4. `acknowledge` says which Table 8.11 the chosen Archive is owed, for the view to send after
   the commit (a Celery task, resolver/tasks.py) or, for an answer of our own, counts the
   access here, without HTTP, off the reader's request (archive/accesses/counter.py).

`+` without a language is decided here (§9.2, Example 9.3): among the ``url…translation(xx)``
pairs the browser's Accept-Language (q-values, read by Django's parser) picks; no acceptable
language → the bare ``.translation`` pair, which our archive service gives for the item itself
(its original-language version, Example 8.3); an Archive that gives no bare pair → not found,
as §9.2 says.

Decisions where the standard leaves room:

* Without the Original required, an answer with the URL wins over the first non-empty answer
  that would need another round: same result, one round less. A reply whose URL's state is
  Original ends the round at once: no other answer can be better.
* A tombstone (``state Deleted``) counts as the Original's word: with the Original required it
  is a claim like any other (two claims → suspects).
* A URL is only ever taken when it points at the Archive that gave it (`safe_url`). Its host
  must be one of that Archive's spellings the resolver knows before it asks: the registered
  address (the ``archiveaddress`` its inclusion gave, which the resolver confirmed by calling
  it back), the ``archiveip`` of that inclusion, or the IP the resolver reached it at. The port
  is the registered address's (80 may be written or left out, 443 too for https), or the port
  of the answer's own ``archiveaddress`` pair when that names one of those hosts: an Archive
  may move to another port of its own host, never to another host. A host name the Archive
  did not register is not looked up (no DNS on an answer's say-so): an Archive whose URLs use
  another name includes itself under that name. Our own answers use our address. Other URLs
  are dropped, logged.
"""
from __future__ import annotations

import functools
import ipaddress
import logging
import re
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from django.conf import settings
from django.http import HttpRequest
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation.trans_real import parse_accept_lang_header

from ..accesses import counter as access_counter
from ..accesses import filters as access_filters
from ..archive_service import answers as archive_service
from ..deposit import selectors
from ..identifiers import ibi as ibilib
from ..models import Item, RegisteredArchive
from ..protocol import client
from ..protocol.pairs import PairListError, Value, to_dict
from ..protocol.persistent_url import PersistentUrl

logger = logging.getLogger(__name__)

MAX_HOPS = 16
MAX_CLIENT_IPS = 8
Step = tuple[str, str | None]  # ("lastedition", None), ("translation", "pt-BR" | None) …
Preferences = list[tuple[str, float]]

_STEP = re.compile(r"\.(lastedition|translation|metadata)(?:\(([^()]*)\))?")
_URL_CHARS = re.compile(r"[\x21-\x7e]+")  # printable ASCII: what a word of Table 6.2 holds
_VERBS = {"lastedition": "GetLastEdition", "translation": "GetTranslation",
          "metadata": "GetMetadata"}


# -- Relations of Table 9.5 as steps ----------------------------------------------------------

def steps(relation: str) -> tuple[Step, ...] | None:
    """``.lastedition.translation(pt).metadata(oai_dc)`` →
    ``(("lastedition", None), ("translation", "pt"), ("metadata", "oai_dc"))``; None if the
    text is no relation."""
    found, pos = [], 0
    while pos < len(relation):
        match = _STEP.match(relation, pos)
        if not match:
            return None
        found.append((match[1], match[2]))
        pos = match.end()
    return tuple(found)


def verbs_of(wanted: Sequence[Step]) -> tuple[str, ...]:
    """The verbs (Table 8.4) that ask for these steps."""
    return tuple(_VERBS[kind] + (f"({argument})" if argument else "") for kind, argument in wanted)


def _match(wanted: Sequence[Step], given: Sequence[Step]) -> tuple[str, ...] | None:
    """The languages a relation of an answer chose for the bare translation steps of wanted
    ("" for a bare pair), or None when it is not the relation wanted.

    A bare translation after a metadata step may be missing from the answer: metadata have no
    language variants of their own here, and an archive service reading the verb list "without
    repetition" (§8.2) turns ``+:+`` into ``+:`` anyway. The metadata themselves are then the
    original-language version, as for any bare ``+``.
    """
    chosen: list[str] = []
    position = 0
    for index, (kind, argument) in enumerate(wanted):
        given_kind, given_argument = given[position] if position < len(given) else ("", None)
        if kind == given_kind and (
                (kind == "translation" and argument is None)
                or (argument or "") == (given_argument or "")):
            if kind == "translation" and argument is None:
                chosen.append(given_argument or "")
            position += 1
        elif kind == "translation" and argument is None and any(
                k == "metadata" for k, _ in wanted[:index]):
            chosen.append("")
        else:
            return None
    return tuple(chosen) if position == len(given) else None


# -- Accept-Language --------------------------------------------------------------------------

def preferences(header: str) -> Preferences:
    """The browser's language ranges, best first, read by Django (q=0 kept: "not this")."""
    return list(parse_accept_lang_header(header or "")) if len(header or "") <= 1000 else []


def _rank(tag: str, prefs: Preferences) -> tuple[int, int] | None:
    """Where a language tag of an answer stands in the browser's list (lower is better).

    RFC 4647: a range matches its tag exactly, or a longer tag (``pt`` → ``pt-BR``); a range
    with a region falls back to its language (``pt-br`` → ``pt``). q=0 excludes.
    """
    tag = tag.lower()
    primary = tag.split("-")[0]
    if any(q == 0 and rng in (tag, primary) for rng, q in prefs):
        return None
    for position, (rng, q) in enumerate(prefs):
        if q == 0:
            continue
        if rng == tag:
            return position, 0
        if rng == primary:
            return position, 1
        if rng.split("-")[0] == tag:
            return position, 2
        if rng == "*":
            return position, 3
    return None


def _bare_rank(prefs: Preferences) -> tuple[int, int]:
    # The original language comes after every language the browser names, but before the
    # languages only "*" accepts.
    star = next((i for i, (rng, q) in enumerate(prefs) if rng == "*" and q > 0), len(prefs))
    return star, 0


def _preference(chosen: tuple[str, ...], prefs: Preferences) -> tuple | None:
    ranks = []
    for tag in chosen:
        rank = _bare_rank(prefs) if tag == "" else _rank(tag, prefs)
        if rank is None:
            return None
        ranks.append(rank)
    return tuple(ranks)


# -- One answer -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Source:
    """Who answered: this Archive (archive None) or a registered one."""

    address: str  # host[:port] its URLs must point at
    service_ibi: str
    archive: int | None = None  # RegisteredArchive id
    hosts: tuple[str, ...] = ()  # other spellings of its host: its archiveip, the IP reached

    @property
    def local(self) -> bool:
        return self.archive is None


@dataclass(frozen=True)
class Answer:
    source: Source
    pairs: dict[str, Value]

    def word(self, name: str) -> str | None:
        value = self.pairs.get(name)
        return value if isinstance(value, str) else None

    @property
    def deleted(self) -> bool:
        return self.word("state") == "Deleted"

    def forms(self, relation: str = "") -> list[str]:
        value = self.pairs.get("ibi" + relation)
        return [value] if isinstance(value, str) else list(value or [])


def ibi_in(forms: Sequence[str]) -> str | None:
    """The first valid IBI of a forms-of-IBI value (Table 9.4: ``rep X ibip Y``)."""
    for word in forms[1::2] if len(forms) % 2 == 0 else forms:
        try:
            return str(ibilib.parse(word))
        except ValueError:
            continue
    return None


def ibis_in(forms: Sequence[str]) -> set[ibilib.Ibi]:
    """Every valid IBI of a forms-of-IBI value."""
    found = set()
    for word in forms:
        try:
            found.add(ibilib.parse(word))
        except ValueError:
            continue
    return found


@dataclass(frozen=True)
class Hit:
    relation: str
    url: str
    key: tuple = ()


def find_url(answer: Answer, wanted: Sequence[Step], prefs: Preferences) -> Hit | None:
    """The ``url<relation>`` pair the wanted steps ask for, the browser's best language first."""
    best: Hit | None = None
    for name, value in answer.pairs.items():
        if not _is_url(name) or not isinstance(value, str):
            continue
        given = steps(name[3:])
        chosen = None if given is None else _match(wanted, given)
        key = None if chosen is None else _preference(chosen, prefs)
        if key is not None and (best is None or (key, name[3:]) < (best.key, best.relation)):
            best = Hit(name[3:], value, key)
    return best


def find_hop(answer: Answer, wanted: Sequence[Step], prefs: Preferences
             ) -> tuple[str, tuple[Step, ...]] | None:
    """(IBI, remaining steps) to ask next when the answer lacks the URL (§8.2, §10.2): the
    IBI of the longest part of the way it names, else ``ibi.nextedition`` for ``!``."""
    for length in range(len(wanted), 0, -1):
        best = None
        for name in answer.pairs:
            given = steps(name[3:]) if name.startswith("ibi.") else None
            chosen = None if given is None else _match(wanted[:length], given)
            key = None if chosen is None else _preference(chosen, prefs)
            if key is not None and (best is None or (key, name) < best[:2]):
                best = (key, name, ibi_in(answer.forms(name[3:])))
        if best and best[2]:
            return best[2], tuple(wanted[length:])
    following = ibi_in(answer.forms(".nextedition"))
    if wanted and wanted[0][0] == "lastedition" and following:
        return following, tuple(wanted)
    return None


def state_of(answer: Answer, relation: str) -> str | None:
    return answer.word("state" + relation)


# -- Selection (§8.2) -------------------------------------------------------------------------

@dataclass
class Choice:
    kind: str  # found | deleted | hop | conflict | copies_only | none
    answer: Answer | None = None
    hit: Hit | None = None
    hop: tuple[str, tuple[Step, ...]] | None = None
    suspects: list[Answer] = field(default_factory=list)


def choose(answers: Sequence[Answer], wanted: Sequence[Step], prefs: Preferences, *,
           original: bool) -> Choice:
    """§8.2 on the non-empty answers of one round, in the order they count (local first).

    For a relation an Original's URL goes before a Copy's: a Copy's relations are those of
    its Original when it was copied (a later edition, a new translation are not in them)."""
    hits = [(a, find_url(a, wanted, prefs)) for a in answers if not a.deleted]
    with_url = [(a, hit) for a, hit in hits if hit is not None]
    if wanted:
        with_url.sort(key=lambda found: state_of(found[0], found[1].relation) != "Original")
    tombstones = [a for a in answers if a.deleted]
    if original:
        claims = [(a, hit) for a, hit in with_url if state_of(a, hit.relation) == "Original"]
        claims += [(a, None) for a in tombstones]
        if len(claims) > 1:
            return Choice("conflict", suspects=[a for a, _ in claims])
        if claims:
            answer, hit = claims[0]
            return Choice("found", answer, hit) if hit else Choice("deleted", answer)
    elif with_url:
        answer, hit = with_url[0]
        return Choice("found", answer, hit)
    elif tombstones:
        return Choice("deleted", tombstones[0])
    for answer in answers:
        if not answer.deleted and (hop := find_hop(answer, wanted, prefs)):
            return Choice("hop", answer, hop=hop)
    if with_url:  # only copies, and the Original was required
        return Choice("copies_only", with_url[0][0], suspects=[a for a, _ in with_url])
    return Choice("none", answers[0] if answers else None)


def settles(choice: Choice, held: str | None, wanted: Sequence[Step], *,
            original: bool) -> bool:
    """Whether our own answer, about an item held here in state `held`, ends the round
    without asking the other Archives (§8.2: the first answer that satisfies the request).

    A URL whose state is Original settles it. A Copy's URL settles only a request for the
    item itself (a file, its file list) without the Original required: what the Copy holds
    is what its Original held. Otherwise an Original's word (a hop it names, no such
    translation, a tombstone) settles it: the relations of an Original are held where it is.
    A Copy's does not, except a tombstone (deleted at its source) and a hop to another IBI
    its Original relates to, which is asked of every Archive in turn.
    """
    if choice.kind == "found":
        if state_of(choice.answer, choice.hit.relation) == "Original":
            return True
        return not original and not wanted
    if choice.kind == "copies_only":
        return False
    if held != "Copy" or choice.kind == "deleted":
        return True
    return choice.kind == "hop" and ibilib.parse(choice.hop[0]) not in ibis_in(
        choice.answer.forms())


# -- URLs we may redirect to ------------------------------------------------------------------

def allowed_netlocs(address: str, hosts: Sequence[str] = (), vouched: str | None = None
                    ) -> set[str]:
    """The host[:port] a URL from the Archive at address may name (see the module docstring):
    address's host and the other hosts on address's port, plus vouched's port (the answer's
    ``archiveaddress``) when vouched names one of those hosts::

        >>> sorted(allowed_netlocs("mtc-m16d.sid.inpe.br", ["150.163.2.174"]))
        ['150.163.2.174', '150.163.2.174:80', 'mtc-m16d.sid.inpe.br', 'mtc-m16d.sid.inpe.br:80']
        >>> sorted(allowed_netlocs("a.example:8001", [], vouched="a.example:8002"))
        ['a.example:8001', 'a.example:8002']
        >>> allowed_netlocs("a.example:8001", [], vouched="evil.example:8001")
        {'a.example:8001'}
    """
    try:
        host, port = client.split_address(address)
    except client.AddressError:
        return set()
    names = {host}
    for other in hosts:
        try:
            names.add(client.split_address(f"[{other}]" if ":" in other else other)[0])
        except client.AddressError:
            continue
    ports = {port}
    if vouched:
        try:
            vouched_host, vouched_port = client.split_address(vouched)
        except client.AddressError:
            vouched_host = ""
        if vouched_host in names:
            ports.add(vouched_port)
    allowed = set()
    for name in names:
        shown = f"[{name}]" if ":" in name else name
        allowed |= {f"{shown}:{p}" for p in ports}
        allowed |= {shown} if ports & {80, 443} else set()
    return allowed


def safe_url(url: str, address: str, hosts: Sequence[str] = (), vouched: str | None = None
             ) -> bool:
    """Whether url is an absolute http(s) URL on one of `allowed_netlocs` (Django's own check
    refuses scheme-relative, backslash, control-character and userinfo tricks)::

        >>> safe_url("http://a.example:8001/col/x/doc/f.pdf", "a.example:8001")
        True
        >>> safe_url("http://a.example:8001@evil.example/", "a.example:8001")
        False
        >>> safe_url("http://127.0.0.1:8001/col/x/doc/f.pdf", "localhost:8001", ["127.0.0.1"])
        True
    """
    allowed = allowed_netlocs(address, hosts, vouched)
    if (not isinstance(url, str) or len(url) > 4096 or not _URL_CHARS.fullmatch(url)
            or not url.lower().startswith(("http://", "https://"))):
        return False
    lowered = re.sub(r"^(https?://)([^/?#]*)", lambda m: m[1] + m[2].lower(), url)
    return url_has_allowed_host_and_scheme(lowered, allowed_hosts=allowed)


def _is_url(name: str) -> bool:
    return name == "url" or name.startswith("url.")


def _sanitized(source: Source, pairs: dict[str, Value]) -> dict[str, Value]:
    kept = {}
    vouched = pairs.get("archiveaddress")
    vouched = vouched if isinstance(vouched, str) else None
    for name, value in pairs.items():
        if _is_url(name) and not (isinstance(value, str) and safe_url(
                value, source.address, source.hosts, vouched)):
            logger.warning("resolver: dropped %s from %s: not a URL on its address %s",
                           name, source.service_ibi, source.address)
            continue
        kept[name] = value
    return kept


# -- Asking -----------------------------------------------------------------------------------

def client_ips(request: HttpRequest) -> list[str]:
    """Table 8.10: the client first, then its proxies (X-Forwarded-For, then REMOTE_ADDR).
    Only valid IPs are passed on; the list only informs the Archives' statistics."""
    return list(_valid_ips(request.META.get("HTTP_X_FORWARDED_FOR", ""),
                           request.META.get("REMOTE_ADDR", "")))


@functools.lru_cache(maxsize=1024)  # the same readers and proxies come back
def _valid_ips(forwarded_for: str, remote_addr: str) -> tuple[str, ...]:
    ips = []
    for text in [*forwarded_for.split(","), remote_addr]:
        try:
            ips.append(str(ipaddress.ip_address(text.strip())))
        except ValueError:
            continue
    return tuple(ips[:MAX_CLIENT_IPS]) or ("0.0.0.0",)


def _local_answer(ibi_text: str, verbs: Sequence[str], filepath: str | None,
                  request: HttpRequest | None) -> tuple[Answer | None, str | None]:
    """This Archive's own answer, in process (one query for a plain URL), and the state the
    item is held in here."""
    found, held = archive_service.held_answer(ibi_text=ibi_text, verbs=verbs,
                                              filepath=filepath, request=request)
    pairs = dict(found)
    if not pairs:
        return None, None
    service = pairs.get("ibi.archiveservice") or ["", ""]  # our own: rep <IBI> …
    source = Source(address=selectors.archive_address(request), service_ibi=service[1])
    return Answer(source, _sanitized(source, pairs)), held


def _source(archive: RegisteredArchive, reply: client.Reply) -> Source:
    hosts = tuple(dict.fromkeys(ip for ip in (archive.ip, reply.ip) if ip))
    return Source(archive.address, archive.archive_service_ibi, archive.pk, hosts)


def remote_archives(service: Item | None) -> list[RegisteredArchive]:
    """Included Archives with an address, this one left out (it answered in process)."""
    archives = RegisteredArchive.objects.filter(included=True).exclude(address="")
    ours = ibis_in([service.ibi, service.ibip]) if service else set()
    return [a for a in archives if not ibis_in([a.archive_service_ibi]) & ours]


class ResolverBusy(Exception):
    """IBI_RESOLVER_MAX_WAITING resolutions of this process already wait for other Archives."""


_waiting = 0
_waiting_lock = threading.Lock()


@contextmanager
def _waiting_slot() -> Iterator[None]:
    """One of the IBI_RESOLVER_MAX_WAITING places for a resolution that waits on other Archives
    (up to IBI_RESOLVER_DEADLINE), or ResolverBusy at once: slow Archives may hold that many
    threads of a worker, never all of them, so pages and local persistent URLs keep answering."""
    global _waiting
    with _waiting_lock:
        if _waiting >= settings.IBI_RESOLVER_MAX_WAITING:
            raise ResolverBusy
        _waiting += 1
    try:
        yield
    finally:
        with _waiting_lock:
            _waiting -= 1


def _remote_answers(archives: Sequence[RegisteredArchive], pairs: dict[str, str],
                    deadline: float, stop) -> tuple[list[Answer], list[str]]:
    """The non-empty answers in arrival order, and the Archives that gave none."""
    by_id = {a.pk: a for a in archives}
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
        with _waiting_slot():
            replies = client.ask_all_sync(targets, pairs, deadline=deadline, stop=stop)
    answers, silent = [], []
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
            continue
        if found:
            source = _source(archive, reply)
            answers.append(Answer(source, _sanitized(source, found)))
    return answers, silent


# -- The resolution process -------------------------------------------------------------------

@dataclass(frozen=True)
class Round:
    """One question of the resolution and what it met, kept for inspection (``?info``): the
    IBI and steps asked, the other Archives asked ((id, archive service IBI, address); this
    Archive is always asked first, in process), the non-empty answers, those silent, the
    choice."""

    ibi: str
    wanted: tuple[Step, ...]
    asked: tuple[tuple[int, str, str], ...]
    answers: tuple[Answer, ...]
    silent: tuple[str, ...]
    choice: Choice


@dataclass
class Outcome:
    kind: str  # found | deleted | conflict | copies_only | not_found | translation_missing
    ibi: str  # the IBI asked about last
    answer: Answer | None = None
    hit: Hit | None = None
    suspects: list[Answer] = field(default_factory=list)
    silent: list[str] = field(default_factory=list)  # Archives that did not answer in time
    wanted: tuple[Step, ...] = ()
    hops: int = 0
    asked_others: bool = False  # whether any other Archive was asked (else: our records only)
    rounds: list[Round] = field(default_factory=list)  # every question asked, in order

    @property
    def url(self) -> str:
        return self.hit.url if self.hit else ""

    @property
    def missing_language(self) -> str | None:
        """The language asked for explicitly, when the item exists but not in it."""
        if self.kind != "translation_missing":
            return None
        return next((arg for kind, arg in self.wanted if kind == "translation" and arg), None)


def _translation_missing(answer: Answer | None, wanted: Sequence[Step]) -> bool:
    """Whether the item exists but not in a language asked for explicitly: the answer names
    no IBI for the way up to that translation (our archive service names every one it has)."""
    if answer is None:
        return False
    for position, (kind, argument) in enumerate(wanted):
        if kind == "translation" and argument:
            prefix = wanted[:position + 1]
            if not any(name.startswith("ibi.") and (given := steps(name[3:])) is not None
                       and _match(prefix, given) is not None for name in answer.pairs):
                return True
    return False


def _outcome(choice: Choice, ibi_text: str, wanted: tuple[Step, ...], hops: int,
             silent: list[str], asked_others: bool, rounds: list[Round]) -> Outcome:
    kind = {"found": "found", "deleted": "deleted", "conflict": "conflict",
            "copies_only": "copies_only"}.get(choice.kind, "not_found")
    if kind == "not_found" and _translation_missing(choice.answer, wanted):
        kind = "translation_missing"
    return Outcome(kind, ibi_text, choice.answer, choice.hit, choice.suspects, silent, wanted,
                   hops, asked_others, rounds)


def _stop_on_original(archives: Sequence[RegisteredArchive], wanted, prefs):
    """Ends a round (no Original required) at the first reply whose URL, on its own Archive's
    address, is the Original's: no later answer can be better."""
    by_id = {a.pk: a for a in archives}

    def stop(reply: client.Reply) -> bool:
        archive = by_id.get(reply.tag)
        try:
            pairs = to_dict(reply.pairs or [])
        except PairListError:
            return False
        if archive is None or not pairs:
            return False
        source = _source(archive, reply)
        answer = Answer(source, _sanitized(source, pairs))
        hit = None if answer.deleted else find_url(answer, wanted, prefs)
        return hit is not None and state_of(answer, hit.relation) == "Original"
    return stop


def resolve(url: PersistentUrl, *, ips: Sequence[str], accept_language: str = "",
            request: HttpRequest | None = None) -> Outcome:
    """The resolution process (§8.2) for one persistent URL; see the module docstring."""
    prefs = preferences(accept_language)
    original = url.required_item_status == "Original"
    wanted = steps(url.relation()) or ()
    extra = ("GetFileList",) if "GetFileList" in url.verbs else ()
    filepath = url.filepath
    asked = ibilib.parse(url.ibi)  # ValueError for an IBI of the right shape but no date
    ibi_text = asked.text
    archives: list[RegisteredArchive] | None = None
    end = time.monotonic() + settings.IBI_RESOLVER_DEADLINE
    seen: set[tuple] = set()
    silent: list[str] = []
    rounds: list[Round] = []
    for hops in range(MAX_HOPS):
        seen.add((asked, wanted, filepath))
        verbs = verbs_of(wanted) + extra
        local, held = _local_answer(ibi_text, verbs, filepath, request)
        answers = [local] if local else []
        choice = choose(answers, wanted, prefs, original=original) if local else None
        others: list[RegisteredArchive] = []
        quiet: list[str] = []
        if choice is None or not settles(choice, held, wanted, original=original):
            if archives is None:
                archives = remote_archives(selectors.archive_service_or_none())
            left = end - time.monotonic()
            if archives and left > 0:
                pairs = {"servicesubject": "urlRequest",
                         "clientinformation.ipaddress": " ".join(ips),
                         "parsedibiurl.ibi": ibi_text}
                if filepath:
                    pairs["parsedibiurl.filepath"] = filepath
                if verbs:
                    pairs["parsedibiurl.verblist"] = " ".join(verbs)
                stop = None if original else _stop_on_original(archives, wanted, prefs)
                remote, quiet = _remote_answers(archives, pairs, left, stop)
                others = archives
                answers += remote
                silent += [name for name in quiet if name not in silent]
            choice = choose(answers, wanted, prefs, original=original)
        rounds.append(Round(ibi_text, wanted, tuple((a.pk, a.archive_service_ibi, a.address)
                                                    for a in others),
                            tuple(answers), tuple(quiet), choice))
        if choice.kind != "hop":
            return _outcome(choice, ibi_text, wanted, hops, silent, archives is not None,
                            rounds)
        next_ibi, next_wanted = choice.hop  # next_ibi: valid, canonical (ibi_in)
        # A hop asks for one item directly: the file path and the file list still apply. The
        # same IBI again (an item that is its own last edition or translation) or a question
        # asked before would bring nothing new.
        question = (ibilib.parse(next_ibi), next_wanted, filepath)
        itself = ibis_in(choice.answer.forms()) | {asked}
        if question in seen or question[0] in itself:
            return _outcome(Choice("none", choice.answer), ibi_text, wanted, hops, silent,
                            archives is not None, rounds)
        asked, ibi_text, wanted = question[0], question[0].text, next_wanted
    return Outcome("not_found", ibi_text, wanted=wanted, silent=silent, hops=MAX_HOPS,
                   asked_others=archives is not None, rounds=rounds)


# -- Acknowledgment (Table 8.11) --------------------------------------------------------------

def acknowledgment_pairs(outcome: Outcome, ips: Sequence[str], persistent: str
                         ) -> dict[str, str] | None:
    """The pairs of Table 8.11 for a found URL, values as the Archive gave them; None when
    the answer lacks what the message needs (no urlkey, no content type or state)."""
    answer, hit = outcome.answer, outcome.hit
    if answer is None or hit is None:
        return None
    contenttype = answer.word("contenttype" + hit.relation)
    state = state_of(answer, hit.relation)
    urlkey = answer.word("urlkey")
    if contenttype not in ("Data", "Metadata") or state not in ("Original", "Copy") or not urlkey:
        return None
    pairs = {"servicesubject": "acknowledgment", "clientinformation.ipaddress": " ".join(ips),
             "contenttype": contenttype}
    forms = answer.forms(hit.relation)
    if forms:
        pairs["ibi"] = " ".join(forms)
    pairs.update({"state": state, "url": hit.url, "url.persistent": persistent,
                  "urlkey": urlkey})
    return pairs


def acknowledge(outcome: Outcome, ips: Sequence[str], persistent: str,
                relation: str, user_agent: str | None = None
                ) -> tuple[int, dict[str, str]] | None:
    """Count a local access here (`count_local_access`), or say what the chosen Archive is owed:
    (its id, the Table 8.11 pairs), for the view to send after the commit (resolver/tasks.py).
    None when nothing is owed: a robot on COUNTER's list is nobody's reader (the Archive
    cannot tell: it sees our User-Agent, not the reader's)."""
    if outcome.answer is not None and outcome.answer.source.local:
        item_id = counted_item(outcome)
        if item_id is not None:
            count_local_access(item_id, ips, relation, user_agent)
        return None
    if user_agent is not None and access_filters.is_robot(user_agent):
        return None
    pairs = acknowledgment_pairs(outcome, ips, persistent)
    if pairs is None:
        return None
    return outcome.answer.source.archive, pairs


def counted_item(outcome: Outcome) -> int | None:
    """The item whose access our own answer asks to count (its urlkey's), or None when the
    answer gives nothing an acknowledgment could carry."""
    pairs = acknowledgment_pairs(outcome, [], "")
    return archive_service.read_urlkey(pairs["urlkey"]) if pairs else None


def count_local_access(item_id: int, ips: Sequence[str], relation: str,
                       user_agent: str | None = None) -> None:
    """The acknowledgment our resolver owes our own archive service, without HTTP: the access
    is counted off the reader's request, or with the transaction it is in, robots and double
    clicks left out (archive/accesses/counter.py)."""
    access_counter.count(item_id, ips, relation, timezone.now(), user_agent=user_agent)
