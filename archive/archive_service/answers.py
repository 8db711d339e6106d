"""The archive service of the resolution standard (RTC-11 §9): answers to the resolver.

`answer` is MontarResposta (Algorithm 1): it reads the query strictly (requests.py)
and dispatches on ``servicesubject``. `url_list` is MontarListaDeURL (Algorithm 2) with every
relation this Archive supports (Example 9.2). `url_request` is what the resolver gets: the list
filtered by the verb list (FiltrarListaDeURL, Example 9.3). It computes only the relations the
verbs ask for instead of filtering the full list afterwards; the pairs are the same. A plain
urlRequest is one query (the item, its next edition and the archive service together); each
kind of relation asked adds at most one (selectors.py), whatever is on file.

Example 10.1: a urlRequest without verbs is answered with the item itself, sorted by name::

    archiveaddress mtc-m16c.sid.inpe.br
    contenttype Data
    ibi {rep sid.inpe.br/mtc-m18@80/2009/07.21.14.43 ibip 8JMKD3MGP8W/35MMLL8}
    ibi.archiveservice {rep sid.inpe.br/mtc-m18@80/2008/03.17.15.17}
    ibi.platformsoftware {rep dpi.inpe.br/banon/1998/08.02.08.56}
    state Original
    timestamp 2009-07-21T14:43:31Z
    url http://mtc-m16c.sid.inpe.br/col/sid.inpe.br/mtc-m18@80/2009/07.21.14.43/doc/…
    urlkey 1427244889-5349022633744855

Decisions where the standard leaves room:

* Relations (Table 9.5): "", ``.lastedition``, ``.translation``, ``.translation(xx[-YY])``,
  ``.metadata``, ``.metadata(oai_dc)`` and all their compositions; beside oai_dc, every format of
  archive/metadata/formats.py: ``.metadata(bibtex)``, ``.lastedition.metadata(csljson)`` …
  ``.translation(xx)`` is the member of the item's translation family (its original and the
  original's translations) in language xx; the original counts as a translation of itself (Example
  8.3). A member tagged ``pt-BR`` also answers ``.translation(pt)`` when no member is plain
  ``pt``. The bare ``.translation`` is the item itself: the resolver falls back to it when no
  language of the user's matches (Example 8.3), and it is how an item without a language is
  reached (§9.2).
* Metadata pages are not identified items: no ``ibi.metadata…`` pair (CRIARPARIBI gives "").
  They carry no language of their own, so only the bare ``.metadata.translation`` is answered,
  equal to ``.metadata`` (as in Example 9.2).
* ``.lastedition`` follows the whole chain at once (we hold it flattened); ``ibi.nextedition``
  is the next edition only, for resolvers that walk the chain (§10.2).
* A related item that is deleted has its ``ibi<rel>`` pair and no URL, hence no other pair:
  a resolver asking for it gets the ``state Deleted`` answer. A deleted item asked for directly
  is answered with its tombstone whatever the verbs, so the resolver can say it was removed.
* An item without files is reached at its landing page. ``clientinformation.ipaddress`` does
  not change the URLs.
* A file not open to all (archive/access/policy.py: an embargoed, restricted or metadata-only
  item's, or one marked restricted) is reached at the item's landing page, which offers
  access: the answer names the landing page's URL where it would name the file's, and a
  resolver redirects there, never to the file. A metadata-only item answers so for any file
  path, held or not, so that no answer tells which names it holds. The file list
  (``GetFileList``) lists the files open to all. The answer is everyone's (it is kept for
  every reader): a librarian, or a secret link's holder, follows the landing page.
* A Copy answers what it holds, marked state Copy, and names what its Original's relations
  reach but is not held here (`Item.origin_relations`, kept by preservation/copies.py): its
  ``ibi.nextedition``, its ``ibi.translation(xx)`` pairs, without URLs. A Copy whose Original
  has a later edition not held here is not its own last edition: no ``.lastedition`` pairs
  then, and a resolver walks ``ibi.nextedition`` to the Archive that holds it (§10.2).
* Filtering: the verbs give one relation pattern (bare GetTranslation: every language and the
  bare one). Besides its pairs the answer keeps the Archive's three pairs, ``ibi`` and
  ``ibi.nextedition``, and the ``urlkey`` only when there is a URL to acknowledge (Example 10.2).
* Metadata formats beyond oai_dc (``.metadata(bibtex)`` …) are asked of us only by a
  resolver that knows we answer them: every answer to a urlRequest asking for metadata
  announces them, ``metadataformats {bibtex csljson datacite oai_dc ris schemaorg}``
  (archive/resolver/formats.py); the answers without a GetMetadata verb are the standard's
  pairs only (Examples 6.2, 10.1).
* urlkeys and the acknowledgments that bring them back: urlkeys.py (each key counts once at
  most, through COUNTER's filters: the sender, `Sender`, is part of the reader). The
  relations and what they lead to: relations.py.
"""
from __future__ import annotations

import bisect
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC

from django.conf import settings

from ..access import policy
from ..db import changes
from ..deposit import links, selectors
from ..identifiers import ibi as ibilib
from ..metadata.formats import ANNOUNCEMENT, FORMATS
from ..models import Item
from ..protocol.pairs import Pair, dumps, quote_url
from .relations import (
    ALL_PATTERNS,
    METADATA,
    Node,
    Related,
    Step,
    expand,
    ibi_forms,
    next_edition_forms,
    pattern_of,
    relation_templates,
)
from .requests import ProtocolError, read_request
from .urlkeys import issue_urlkey, record_acknowledgment

# -- Pairs ------------------------------------------------------------------------------------

def forms(item: Item) -> list[str]:
    """Table 9.4: ``rep <repository name> ibip <IBIp>``."""
    return ibi_forms(item.ibi, item.ibip)


def platform_software_forms() -> list[str]:
    """IBI_PLATFORM_SOFTWARE (one IBI or both forms, with or without rep/ibip) as forms, or
    [] (written ``{}``) when unset or not IBIs: better no name than a wrong one."""
    found: dict[str, str] = {}
    for word in (settings.IBI_PLATFORM_SOFTWARE or "").split():
        if word in ("rep", "ibip"):
            continue
        try:
            found[ibilib.parse(word).form] = word
        except ValueError:
            return []
    return [word for form in ("rep", "ibip") if form in found for word in (form, found[form])]


def timestamp(item: Item) -> str:
    """Last update (a copy: its original's; a tombstone: its removal), ISO 8601 UTC."""
    when = item.updated
    if item.state == Item.State.COPY and item.origin_timestamp:
        when = item.origin_timestamp
    elif item.is_deleted and item.deleted_at:
        when = item.deleted_at
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def item_url(item: Item, base: str | None) -> str:
    """The URL of the item itself: its target file when open to all (`target_restricted`, read
    with the item by deposit/selectors.py; unknown counts as closed), else its landing page."""
    if item.is_archive_service:
        return links.service_url(item.ibi, base)
    if item.target_file and policy.is_open(item.access_rights,
                                           getattr(item, "target_restricted", True)):
        return links.file_url(item.ibi, item.target_file, base)
    return links.landing_url(item.ibi, base)


@dataclass
class _Urls:
    """CRIARPARURL: <r,i>1 the item, <r,i,y>2 a file of it, <r,i,z>3 its file list."""

    base: str | None
    file_list: bool
    file_name: str | None
    with_file: dict[int, bool]  # item id → whether its file of that name is restricted

    def __call__(self, node: Node) -> str | None:
        item = node.item
        if item.is_deleted or item.pk is None:  # held elsewhere: named, not reached here
            return None
        if node.metadata is not None:
            # Metadata pages have no files, hence no file list and no file path.
            if self.file_list or self.file_name is not None or item.is_archive_service:
                return None
            return links.metadata_url(item.ibi, self.base, node.metadata)
        if self.file_list:  # the verb list prevails over the file path
            return None if item.is_archive_service else links.file_list_url(item.ibi, self.base)
        if self.file_name is not None:
            if item.access_rights == policy.METADATA_ONLY:
                return links.landing_url(item.ibi, self.base)  # held or not: no name told
            if item.pk not in self.with_file:
                return None
            if not policy.is_open(item.access_rights, self.with_file[item.pk]):
                return links.landing_url(item.ibi, self.base)
            return links.file_url(item.ibi, self.file_name, self.base)
        return item_url(item, self.base)


def _relation_pairs(relation: str, node: Node, urls: _Urls) -> list[Pair]:
    found: list[Pair] = []
    if node.metadata is None:
        found.append(("ibi" + relation, forms(node.item)))
    url = urls(node)
    if url is None:
        return found
    return found + [
        ("url" + relation, quote_url(url)),
        ("contenttype" + relation, "Data" if node.metadata is None else "Metadata"),
        ("state" + relation, node.item.state),
        ("timestamp" + relation, timestamp(node.item)),
    ]


def _archive_pairs(base: str | None, service: Item) -> list[Pair]:
    return [("archiveaddress", links.archive_address(base)),
            ("ibi.archiveservice", forms(service)),
            ("ibi.platformsoftware", platform_software_forms())]


class NotTheService(Exception):
    """The request was sent to a path that is not this Archive's archive service IBI."""


def is_service_path(path: str, service: Item | None) -> bool:
    """Whether path is exactly the archive service's IBI: either form, any case, legacy port."""
    if service is None:
        return False
    if path.lower() in (service.ibi.lower(), service.ibip.lower()):
        return True
    return ibilib.same(path, service.ibi) or ibilib.same(path, service.ibip)


def check_path(path: str | None, service: Item | None = None) -> None:
    """NotTheService unless path (None: known already) is the archive service's IBI."""
    if path is not None and not is_service_path(
            path, service or selectors.archive_service_or_none()):
        raise NotTheService(path)


def _file_name(filepath: str | None) -> str | None:
    """The file a path names in our flat doc/ folders, or "" for a path naming none."""
    if filepath is None:
        return None
    name = filepath[1:]
    return "" if "/" in name else unicodedata.normalize("NFC", name)


@dataclass
class _Built:
    """An answer as the cache keeps it: its pairs without the urlkey, the item a fresh urlkey
    is issued for (None: no urlkey), the item's state here (None: not held), and the pairs
    written (`text`), before and after the urlkey's line, once the first request wrote them."""

    pairs: list[Pair]
    keyed_item: int | None
    held: str | None
    halves: tuple[str, str] | None = None

    def with_key(self) -> list[Pair]:
        if self.keyed_item is None:
            return self.pairs
        return sorted([*self.pairs, ("urlkey", issue_urlkey(self.keyed_item))])

    def text(self) -> str:
        """dumps(self.with_key()), writing only the urlkey's line anew."""
        if self.halves is None:  # the names are sorted and unique, urlkey not among them
            at = bisect.bisect_left([name for name, _value in self.pairs], "urlkey")
            self.halves = (dumps(self.pairs[:at]), dumps(self.pairs[at:]))
        key = (dumps([("urlkey", issue_urlkey(self.keyed_item))])
               if self.keyed_item is not None else "")
        return "\r\n".join(part for part in (self.halves[0], key, self.halves[1]) if part)


def _build(ibi_text: str, patterns: Sequence[Sequence[Step]], *, file_list: bool,
           filepath: str | None, base: str | None, filtered: bool,
           service: Item | None = None, path: str | None = None
           ) -> tuple[list[Pair], str | None]:
    """The answer and the state the item is held in here (None: not held), from the cache
    (changes.py) when this process built it since the last change to any item; only the
    urlkey is fresh then."""
    found = _built(ibi_text, patterns, file_list=file_list, filepath=filepath, base=base,
                   filtered=filtered, service=service, path=path)
    return found.with_key(), found.held


def _built(ibi_text: str, patterns: Sequence[Sequence[Step]], *, file_list: bool,
           filepath: str | None, base: str | None, filtered: bool,
           service: Item | None = None, path: str | None = None) -> _Built:
    key = ("urlRequest", ibi_text, tuple(map(tuple, patterns)), file_list, filepath, filtered,
           path, links.base_url(base))
    current = changes.token()
    found = changes.get(key, current)
    if found is None:
        found = _Built(*_build_uncached(ibi_text, patterns, file_list=file_list,
                                        filepath=filepath, base=base, filtered=filtered,
                                        service=service, path=path))
        changes.put(key, current, found)
    return found


def _build_uncached(ibi_text: str, patterns: Sequence[Sequence[Step]], *, file_list: bool,
                    filepath: str | None, base: str | None, filtered: bool,
                    service: Item | None, path: str | None
                    ) -> tuple[list[Pair], int | None, str | None]:
    """(The pairs without the urlkey, the item a urlkey is to be issued for or None, the
    item's state here or None)."""
    if service is None:
        service, item = selectors.service_and_item(ibi_text)
    else:
        item = selectors.item_with_next_edition(ibi_text)
    check_path(path, service)
    if service is None or item is None:  # no archive service, no Archive: nothing to say
        return [], None, None
    answer = dict(_archive_pairs(base, service))
    answer["ibi"] = forms(item)
    if item.is_deleted:
        answer.update(state=item.state, timestamp=timestamp(item))
        return sorted(answer.items()), None, item.state
    related = Related(item)
    if following := next_edition_forms(item):
        answer["ibi.nextedition"] = following
    nodes = [found for pattern in patterns for found in expand(related, pattern)]
    file_name = _file_name(filepath)
    with_file: dict[int, bool] = {}
    if file_name and not file_list:
        with_file = selectors.items_with_file(
            {n.item.pk for _, n in nodes
             if n.metadata is None and not n.item.is_deleted and n.item.pk is not None},
            file_name)
    urls = _Urls(base, file_list, file_name, with_file)
    for relation, node in nodes:
        answer.update(_relation_pairs(relation, node, urls))
    if any(kind == METADATA for pattern in patterns for kind, _argument in pattern):
        answer[ANNOUNCEMENT] = sorted(FORMATS)  # the formats beyond oai_dc asked of us
    keyed = not filtered or any(name.startswith("url") for name in answer)
    return sorted(answer.items()), item.pk if keyed else None, item.state


def url_request(*, ibi_text: str, verbs: Sequence[str] = (), filepath: str | None = None,
                client_ips: Sequence[str] = (), base: str | None = None,
                service: Item | None = None) -> list[Pair]:
    """The answer to a urlRequest (MontarListaDeURL filtered by the verbs); [] when the IBI is
    not here. For the resolver, too, when the IBI is held locally: no HTTP needed.

    `verbs` are canonical verbs of Table 8.4 (PersistentUrl.verbs), `filepath` a decoded
    path-absolute such as ``/reference.bib`` (PersistentUrl.filepath). `client_ips` is accepted
    for the standard's sake; it changes nothing here. `service`: the archive service item, if
    the caller has it already.
    """
    return held_answer(ibi_text=ibi_text, verbs=verbs, filepath=filepath, base=base,
                       service=service)[0]


def held_answer(*, ibi_text: str, verbs: Sequence[str] = (), filepath: str | None = None,
                base: str | None = None, service: Item | None = None
                ) -> tuple[list[Pair], str | None]:
    """`url_request`, and the state the item is held in here (None: not held). Our own
    resolver needs both: an Original's answer settles a resolution, a Copy's not always
    (resolver/resolve.py `settles`), and a filtered answer need not say the item's state."""
    return _build(ibi_text, [pattern_of(verbs)], file_list="GetFileList" in verbs,
                  filepath=filepath, base=base, filtered=True, service=service)


def url_list(*, ibi_text: str, verbs: Sequence[str] = (), filepath: str | None = None,
             base: str | None = None) -> list[Pair]:
    """MontarListaDeURL unfiltered: every relation this Archive answers (Example 9.2)."""
    return _build(ibi_text, ALL_PATTERNS, file_list="GetFileList" in verbs, filepath=filepath,
                  base=base, filtered=False)[0]


@dataclass(frozen=True)
class Sender:
    """Who sent a request, as the HTTP edge saw it: its address and User-Agent (an
    acknowledgment's reader for COUNTER's filters, urlkeys.py)."""

    address: str = ""
    user_agent: str | None = None


def answer(query: str, base: str | None = None, *, path: str | None = None,
           sender: Sender | None = None) -> list[Pair]:
    """MontarResposta (Algorithm 1) for a raw query string sent to `path` by `sender`.

    Raises ProtocolError for a bad request, and NotTheService when path is given and is not the
    archive service's IBI (nothing is done then). A urlRequest finds the archive service and
    the item in one query, so the path costs nothing more to check.
    """
    found = _answer(query, base, path=path, sender=sender)
    return found.with_key() if isinstance(found, _Built) else found


def answer_text(query: str, base: str | None = None, *, path: str | None = None,
                sender: Sender | None = None) -> str:
    """`answer` written as a pair list (pairs.dumps): what the archive service sends. A
    urlRequest's answer is written once per build, only its fresh urlkey each time."""
    found = _answer(query, base, path=path, sender=sender)
    return found.text() if isinstance(found, _Built) else dumps(found)


def _answer(query: str, base: str | None, *, path: str | None,
            sender: Sender | None = None) -> _Built | list[Pair]:
    try:
        subject, asked = read_request(query)
    except ProtocolError:
        check_path(path)
        raise
    if subject == "urlRequest":
        verbs = asked["verbs"]
        return _built(asked["ibi_text"], [pattern_of(verbs)], file_list="GetFileList" in verbs,
                      filepath=asked["filepath"], base=base, filtered=True, path=path)
    check_path(path)
    if subject == "acknowledgment":  # Algorithm 1, lines 19-20: whatever it holds
        if asked is not None:
            sender = sender or Sender()
            record_acknowledgment(**asked, sender_ip=sender.address,
                                  user_agent=sender.user_agent)
        return [("notice", ["acknowledgment", "received"])]
    return [("confirmation", "yes")]


def archive_info(base: str | None = None) -> dict | None:
    """What /api/archive tells: who this Archive is and which relations it answers."""
    service = selectors.archive_service_or_none()
    if service is None:
        return None
    software = platform_software_forms()
    return {
        "archiveaddress": links.archive_address(base),
        "archiveserviceibi": service.ibi,
        "archiveserviceibip": service.ibip,
        "platformsoftware": dict(zip(software[0::2], software[1::2], strict=True)),
        "relations": relation_templates(),
    }
