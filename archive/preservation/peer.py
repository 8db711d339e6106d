"""Talking to another Archive running this software, over its REST API (/api/items/…).

A peer's answers are read as untrusted input: `fetch_record` turns the item JSON into a
`Record` or raises PeerError with a message an operator can act on, and `download` streams one
file to a temporary file while hashing it, stopping as soon as it grows past its announced
size, so memory stays bounded and nothing unverified is ever stored.

Files are fetched from the peer's own download path (`<base>/col/<rep>/doc/<name>`), built
here from the base URL the operator gave, never from a URL in the answer. The request carries
`Range: bytes=0-`: a copy is not a reader, and the peer counts only full 200 downloads.

A copy keeps the item's access conditions (its level, embargo, reason, restricted files).
Files not open to all leave the other Archive only to an Archive it authenticates: the
record and the files are asked with the API token IBI_PEER_TOKENS names for that Archive (an
account its `manage.py createpeer` made, which reads every file; its reads are in its audit
trail). Without a token an item whose files are not all open is refused, never copied half.

A base URL typed by a librarian is a request this server makes on their behalf, so
(server-side request forgery):

* only an allowed Archive is asked (`allowed_base`): one registered at this resolver (its
  RegisteredArchive address, plain http) or one listed in IBI_PEER_ARCHIVES;
* every connection goes through the one outgoing client (protocol/outgoing.py) and its
  guarded transport: the host resolved once, no address in IBI_RESOLVER_DENY_NETWORKS, the
  checked address pinned;
* records and hand-overs follow no redirect and are read up to MAX_RECORD_BYTES. File
  downloads alone follow redirects (MAX_REDIRECTS), each hop guarded the same way, because an
  Archive on S3 redirects downloads to its bucket; those bytes only ever meet a length cap
  and a checksum;
* whatever went wrong on the way, the error says "not reachable" and nothing more (the
  detail goes to the log): a closed port, a silent one and one that speaks something else
  than HTTP look alike, so the form is no port scanner.
"""
from __future__ import annotations

import hashlib
import logging
import unicodedata
from dataclasses import dataclass
from datetime import date, datetime
from urllib.parse import quote, urlsplit

import httpx
from django.conf import settings
from django.core.files.uploadedfile import TemporaryUploadedFile
from django.urls import reverse
from django.utils.translation import gettext as _

from ..deposit import content_types, limits, storage, values
from ..identifiers import ibi as ibilib
from ..identifiers import orcid
from ..models import DC_ELEMENTS, AccessRights, Item, RegisteredArchive
from ..protocol import client as guarded
from ..protocol import outgoing

logger = logging.getLogger(__name__)

TIMEOUT = httpx.Timeout(30.0)
USER_AGENT = "ibirepo-copy/1"
EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()
# An item record of IBI_MAX_FILES = 100 files is some 30 kB: room for the largest, and a bound
# on what a peer can make us hold in memory.
MAX_RECORD_BYTES = 16 * 1024 * 1024
MAX_REDIRECTS = 3
DEFAULT_PORTS = {"http": 80, "https": 443}


class PeerError(RuntimeError):
    """Another Archive could not be asked, or answered something we cannot use."""


class ChecksumError(PeerError):
    """A fetched file is not the one the peer's record announced."""


@dataclass(frozen=True)
class RemoteFile:
    name: str
    size: int
    sha256: str
    content_type: str
    restricted: bool = False


@dataclass(frozen=True)
class Record:
    """An item as a peer describes it (the JSON of GET /api/items/<ibi>), checked."""

    ibi: str
    ibip: str
    state: str
    title: str
    language: str
    timestamp: datetime
    target_file: str
    transferable: bool
    files: tuple[RemoteFile, ...]
    dc: dict[str, tuple[str, ...]]
    previous_edition: str | None
    next_edition: str | None
    translation_of: str | None
    translations: tuple[str, ...]
    deleted_at: datetime | None
    source_archive: str
    creator_orcids: tuple[str, ...] = ()  # ORCID iD of each creator in order ("" for none)
    access_rights: str = AccessRights.OPEN
    embargo_until: date | None = None
    access_reason: str = ""
    # Every value with its field of the registry, in order: (field, value, language,
    # authority, confidence); empty from a peer of a version before issue 34 (then `dc`).
    metadata: tuple[tuple[str, str, str, str, int], ...] = ()


def base_url(text: str) -> str:
    """http(s)://host[:port][/prefix] without a trailing slash, or PeerError."""
    parts = urlsplit((text or "").strip())
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query \
            or parts.fragment or parts.username or parts.password:
        raise PeerError(_(
            "%(text)r is not the base URL of an Archive, e.g. https://archive.example.org")
            % {"text": text})
    return f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}"


def _endpoint(scheme: str, host: str, port: int | None) -> tuple[str, str, int]:
    return scheme, host.lower().strip("[]"), port or DEFAULT_PORTS[scheme]


def _allowed_endpoints() -> set[tuple[str, str, int]]:
    found = set()
    for url in settings.IBI_PEER_ARCHIVES:
        parts = urlsplit(url)
        found.add(_endpoint(parts.scheme, parts.hostname, parts.port))
    for address in RegisteredArchive.objects.exclude(address="").values_list("address",
                                                                             flat=True):
        try:
            found.add(_endpoint("http", *guarded.split_address(address)))
        except guarded.AddressError:
            continue  # recorded before the address rules tightened: not a peer
    return found


def allowed_base(text: str) -> str:
    """The base URL of an Archive this one may ask, checked before any connection, or
    PeerError: not a base URL, not an allowed Archive, or in a denied network."""
    base = base_url(text)
    parts = urlsplit(base)
    endpoint = _endpoint(parts.scheme, parts.hostname, parts.port)
    if endpoint not in _allowed_endpoints():
        raise PeerError(_(
            "%(base)s is not an allowed Archive: register it at this resolver or list it in "
            "IBI_PEER_ARCHIVES")
            % {"base": base})
    try:
        guarded.checked_ips(endpoint[1], endpoint[2], settings.IBI_RESOLVER_DENY_NETWORKS)
    except guarded.AddressError as exc:
        logger.warning("%s refused: %s", base, exc)
        raise PeerError(_("%(base)s is not reachable") % {"base": base}) from None
    return base


def client() -> httpx.Client:
    return outgoing.client(user_agent=USER_AGENT, timeout=TIMEOUT)


def _unreachable(what: str, url: str, exc: Exception) -> PeerError:
    logger.warning("%s: %s: %s: %s", what, url, type(exc).__name__, exc)
    return PeerError(_("%(what)s: %(url)s is not reachable") % {"what": what, "url": url})


def _read_capped(response: httpx.Response, what: str, url: str) -> bytes:
    try:
        return outgoing.read(response, cap=MAX_RECORD_BYTES)
    except outgoing.TooLarge:
        raise PeerError(_("%(what)s: %(url)s answered more than %(max_record_bytes)s bytes")
                        % {"what": what, "url": url, "max_record_bytes": MAX_RECORD_BYTES}
                        ) from None


def item_api_url(base: str, ibi: str) -> str:
    """The item in the REST API of the Archive at `base`: this software's own route."""
    return base + reverse("api:item", args=[ibi])


def credentials(base: str) -> dict[str, str]:
    """The Authorization header this Archive shows the Archive at `base` (IBI_PEER_TOKENS),
    or none."""
    token = settings.IBI_PEER_TOKENS.get(base.rstrip("/"))
    return {"Authorization": f"Token {token}"} if token else {}


def get_json(http: httpx.Client, url: str, what: str,
             headers: dict[str, str] | None = None) -> dict:
    try:
        response = outgoing.send(http, "GET", url,
                                 headers={"Accept": "application/json", **(headers or {})})
        try:
            status = response.status_code
            body = _read_capped(response, what, url) if status == 200 else b""
        finally:
            response.close()
    except httpx.HTTPError as exc:
        raise _unreachable(what, url, exc) from None
    if status == 404:
        raise PeerError(_("%(what)s: %(url)s answered 404, no such item there")
                        % {"what": what, "url": url})
    if status != 200:
        raise PeerError(_("%(what)s: %(url)s answered %(status)s")
                        % {"what": what, "url": url, "status": status})
    try:
        data = values.read_json(body)
    except values.TooDeep:
        raise PeerError(_("%(what)s: %(url)s answered JSON nested deeper than %(depth)d levels")
                        % {"what": what, "url": url, "depth": values.MAX_JSON_DEPTH}) from None
    except ValueError:
        raise PeerError(_("%(what)s: %(url)s did not answer JSON")
                        % {"what": what, "url": url}) from None
    if not isinstance(data, dict):
        raise PeerError(_("%(what)s: %(url)s did not answer an item record")
                        % {"what": what, "url": url})
    return data


def _text(data: dict, name: str, *, required: bool = True, limit: int = 1000) -> str:
    value = data.get(name)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or len(value) > limit:
        raise PeerError(_("the record's %(name)s is not a text of at most %(limit)s characters")
                        % {"name": name, "limit": limit})
    return _printable(name, value)


def _printable(name: str, value: str) -> str:
    # What a deposit here would refuse (archive.deposit.services), a copy refuses too.
    if any(unicodedata.category(c) == "Cc" and c not in "\t\n\r" for c in value):
        raise PeerError(_("the record's %(name)s contains a control character")
                        % {"name": name})
    return value


def _moment(data: dict, name: str, *, required: bool = True) -> datetime | None:
    value = data.get(name)
    if value is None and not required:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except (TypeError, ValueError):
        raise PeerError(_("the record's %(name)s is not an ISO 8601 date: %(value)r")
                        % {"name": name, "value": value}) from None
    if moment.tzinfo is None:
        raise PeerError(_("the record's %(name)s has no time zone")
                        % {"name": name})
    return moment


def _ibi_or_none(value) -> str | None:
    if value is None:
        return None
    try:
        ibilib.parse(value)
    except (TypeError, ValueError):
        raise PeerError(_("%(value)r in the record is not an IBI") % {"value": value}) from None
    return value


def _file(data) -> RemoteFile:
    if not isinstance(data, dict):
        raise PeerError(_("a file of the record is not an object"))
    name = _text(data, "name", limit=storage.MAX_NAME_BYTES)
    try:
        safe = storage.safe_name(name)
    except storage.FileNameError as exc:
        raise PeerError(_("file name %(name)r: %(reason)s")
                        % {"name": name, "reason": exc}) from None
    if safe != name:
        raise PeerError(_("file name %(name)r is not a bare file name") % {"name": name})
    size, sha = data.get("size"), data.get("sha256")
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise PeerError(_("%(name)s: size is not a number of bytes") % {"name": name})
    try:
        limits.check_size(name, size)
    except limits.LimitExceeded as exc:
        raise PeerError(str(exc)) from None
    if sha is None:
        raise PeerError(_("%(name)s is not open to all, and the other Archive did not let this "
                          "one read it: ask it for a token (its manage.py createpeer) and name "
                          "it in IBI_PEER_TOKENS") % {"name": name})
    if not isinstance(sha, str) or len(sha) != 64 or set(sha) - set("0123456789abcdef"):
        raise PeerError(_("%(name)s: sha256 is not 64 lower-case hexadecimal digits")
                        % {"name": name})
    content_type = _text(data, "content_type", required=False, limit=255)
    restricted = data.get("restricted", False)
    if not isinstance(restricted, bool):
        raise PeerError(_("%(name)s: restricted is not true or false") % {"name": name})
    # The other Archive's type is a claim like a client's: the same rule as a deposit here.
    return RemoteFile(name, size, sha, content_types.stored_type(name, content_type),
                      restricted)


def _access(data, authenticated: bool) -> tuple[str, date | None, str]:
    """(level, embargo's first open day, reason) of a record (absent: a peer of an older
    version, whose files are all open)."""
    if data is None:
        return AccessRights.OPEN, None, ""
    if not isinstance(data, dict):
        raise PeerError(_("the record's access is not an object"))
    rights, day = data.get("rights"), data.get("embargo_until")
    if rights not in AccessRights.values:
        raise PeerError(_("the record's access level %(rights)r is not one of %(values)s")
                        % {"rights": rights, "values": AccessRights.values})
    try:
        day = date.fromisoformat(day) if day is not None else None
    except (TypeError, ValueError):
        raise PeerError(_("the record's embargo_until %(day)r is not a date") % {"day": day}
                        ) from None
    if (rights == AccessRights.EMBARGOED) != (day is not None):
        raise PeerError(_("the record's embargo_until does not go with its level %(rights)s")
                        % {"rights": rights})
    if rights == AccessRights.METADATA_ONLY and not authenticated:
        raise PeerError(_("the files of a metadata-only item are shown to no one but the "
                          "other Archive's librarians: ask it for a token (its manage.py "
                          "createpeer) and name it in IBI_PEER_TOKENS"))
    return rights, day, _text(data, "reason", required=False)


def parse_record(data: dict, asked: str, *, authenticated: bool = False) -> Record:
    """A Record from an item JSON, checked to be the item asked for (either IBI form);
    `authenticated`: asked with a token, so that every file is shown."""
    rep, ibip = _text(data, "ibi", limit=255), _text(data, "ibip", limit=128)
    try:
        rep_parsed, ibip_parsed, asked_parsed = map(ibilib.parse, (rep, ibip, asked))
    except ValueError as exc:
        raise PeerError(_("the record names no valid IBI: %(reason)s") % {"reason": exc}) from None
    if rep_parsed.form != "rep" or ibip_parsed.form != "ibip" \
            or asked_parsed not in (rep_parsed, ibip_parsed):
        raise PeerError(_("the record is of %(rep)s (%(ibip)s), not of %(asked)s")
                        % {"rep": rep, "ibip": ibip, "asked": asked})
    state = data.get("state")
    if state not in Item.State.values:
        raise PeerError(_("the record's state %(state)r is not one of %(values)s")
                        % {"state": state, "values": Item.State.values})
    files = data.get("files")
    if files is None and state == Item.State.DELETED:
        files = []  # a tombstone's record lists no files (the API's tombstone policy)
    if not isinstance(files, list):
        raise PeerError(_("the record has no file list"))
    try:
        limits.check_count(len(files))
    except limits.LimitExceeded as exc:
        raise PeerError(str(exc)) from None
    parsed_files = tuple(_file(f) for f in files)
    names = [f.name for f in parsed_files]
    if len(set(names)) != len(names):
        raise PeerError(_("the record lists a file name twice"))
    target = _text(data, "target_file", required=False, limit=255)
    if target and target not in names:
        raise PeerError(_("the target file %(target)r is not one of the files")
                        % {"target": target})
    dc = {}
    for element in DC_ELEMENTS:
        values = data.get(element) or []
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise PeerError(_("the record's %(element)s is not a list of texts")
                            % {"element": element})
        dc[element] = tuple(_printable(element, v) for v in values)
    translations = data.get("translations") or []
    if not isinstance(translations, list):
        raise PeerError(_("the record's translations are not a list"))
    transferable = data.get("transferable", True)
    if not isinstance(transferable, bool):
        raise PeerError(_("the record's transferable is not true or false"))
    access = _access(data.get("access"), authenticated) if state != Item.State.DELETED \
        else (AccessRights.OPEN, None, "")
    return Record(
        ibi=rep, ibip=ibip, state=state, title=_text(data, "title"),
        language=_text(data, "language", required=False, limit=35),
        timestamp=_moment(data, "timestamp"), target_file=target, transferable=transferable,
        files=parsed_files, dc=dc,
        previous_edition=_ibi_or_none(data.get("previous_edition")),
        next_edition=_ibi_or_none(data.get("next_edition")),
        translation_of=_ibi_or_none(data.get("translation_of")),
        translations=tuple(_ibi_or_none(t) for t in translations),
        deleted_at=_moment(data, "deleted_at", required=False),
        source_archive=_text(data, "source_archive", required=False, limit=255),
        creator_orcids=_creator_orcids(data.get("creators"), dc["creator"]),
        access_rights=access[0], embargo_until=access[1], access_reason=access[2],
        metadata=_metadata(data.get("metadata")))


def _metadata(values) -> tuple[tuple[str, str, str, str, int], ...]:
    """A record's `metadata` ({field, value, language, authority, confidence} each, as the
    API gives them), checked; none from a peer of an older version."""
    if values is None:
        return ()
    bad = PeerError(_("the record's metadata is not a list of values with their fields"))
    if not isinstance(values, list):
        raise bad
    rows = []
    for entry in values:
        if not isinstance(entry, dict):
            raise bad
        field, value = entry.get("field"), entry.get("value")
        language, authority = entry.get("language") or "", entry.get("authority") or ""
        confidence = entry.get("confidence", -1)
        if not all(isinstance(text, str) for text in (field, value, language, authority)) \
                or not isinstance(confidence, int) or isinstance(confidence, bool) \
                or len(field) > 200 or len(language) > 35 or len(authority) > 255:
            raise bad
        rows.append((field, _printable(field, value), language, authority, confidence))
    return tuple(rows)


def _creator_orcids(creators, names: tuple[str, ...]) -> tuple[str, ...]:
    """The ORCID iDs of a record's `creators` ({name, orcid} in the order of `creator`; absent
    from a peer of an older version: none), each checked."""
    if creators is None:
        return ("",) * len(names)
    if (not isinstance(creators, list) or len(creators) != len(names)
            or not all(isinstance(c, dict) and isinstance(c.get("orcid", ""), str)
                       for c in creators)):
        raise PeerError(_("the record's creators do not match its creator list"))
    try:
        return tuple(orcid.normalize(c["orcid"]) if c.get("orcid") else "" for c in creators)
    except orcid.OrcidError as exc:
        raise PeerError(_("the record's creators: %(reason)s")
                        % {"reason": exc}) from None


def fetch_record(http: httpx.Client, base: str, ibi: str) -> Record:
    """GET <base>/api/items/<ibi> (with this Archive's token there, if any), checked."""
    shown = credentials(base)
    return parse_record(get_json(http, item_api_url(base, ibi), f"item {ibi}", shown), ibi,
                        authenticated=bool(shown))


def file_url(base: str, rep: str, name: str) -> str:
    """A file at another Archive, by URLib's layout (deposit/links.py `file_url`)."""
    return f"{base}/col/{rep}/doc/{quote(name)}"


def download(http: httpx.Client, base: str, rep: str, remote: RemoteFile, watch=None
             ) -> TemporaryUploadedFile:
    """The file in a temporary file (close it when done), its checksum verified; `watch`
    (preservation/jobs.py Watch) is told of each chunk as it arrives.

    It carries .sha256 and .size, so storage.store does not read it again.
    """
    url = file_url(base, rep, remote.name)
    temp = outgoing.Download(remote.name, remote.content_type, remote.size,
                             (watch.prefix if watch is not None else "") or "copy-")
    if remote.size == 0:  # nothing to fetch; and a range of an empty file is unsatisfiable
        if remote.sha256 != EMPTY_SHA256:
            temp.close()
            raise ChecksumError(_("%(name)s: an empty file has sha256 %(empty_sha256)s")
                                % {"name": remote.name, "empty_sha256": EMPTY_SHA256})
        temp.sha256, temp.size = remote.sha256, remote.size
        return temp
    try:
        response = outgoing.send(http, "GET", url, redirects=MAX_REDIRECTS,
                                 headers={"Range": "bytes=0-", **credentials(base)})
        try:
            if response.status_code not in (200, 206) or (
                    response.status_code == 206
                    and not response.headers.get("Content-Range", "").startswith("bytes 0-")):
                raise PeerError(_("%(url)s answered %(status_code)s")
                                % {"url": url, "status_code": response.status_code})
            outgoing.download(response, temp, cap=remote.size,
                              arrived=watch.arrived if watch is not None else None)
        finally:
            response.close()
    except outgoing.TooLarge:
        raise ChecksumError(_("%(name)s is longer than the %(size)s bytes its record announced")
                            % {"name": remote.name, "size": remote.size}) from None
    except (httpx.HTTPError, outgoing.OutgoingError) as exc:
        temp.close()
        raise _unreachable(remote.name, url, exc) from None
    except BaseException:
        temp.close()
        raise
    if temp.size != remote.size or temp.sha256 != remote.sha256:
        temp.close()
        raise ChecksumError(_(
            "%(name)s: got %(size)s bytes with sha256 %(digest)s, the record says %(size2)s "
            "bytes with %(sha256)s")
            % {"name": remote.name, "size": temp.size, "digest": temp.sha256,
               "size2": remote.size, "sha256": remote.sha256})
    return temp


def tell_copied(http: httpx.Client, base: str, ibi: str, *, archive: str,
                refreshed: bool) -> None:
    """Tell the Archive at `base`, with this Archive's account there, that a Copy of its item
    was made (or refreshed) here, `archive` being this Archive's archive service IBI."""
    url = base + reverse("api:item-copies", args=[ibi])
    try:
        response = outgoing.send(http, "POST", url,
                                 json={"archive": archive, "refreshed": refreshed},
                                 headers={**credentials(base), "Accept": "application/json"})
        try:
            status = response.status_code
            _read_capped(response, "copy notice", url)
        finally:
            response.close()
    except httpx.HTTPError as exc:
        raise _unreachable("copy notice", url, exc) from None
    if status != 201:
        raise PeerError(_("copy notice: %(url)s answered %(status)s")
                        % {"url": url, "status": status})


def hand_over_request(http: httpx.Client, base: str, ibi: str, *, target: str,
                      token: str) -> dict:
    """Ask the Archive holding the Original to hand it over to target (see
    archive.preservation.copies)."""
    url = base + reverse("api:item-handover", args=[ibi])
    try:
        response = outgoing.send(http, "POST", url, json={"target": target},
                                 headers={"Authorization": f"Token {token}",
                                          "Accept": "application/json"})
        try:
            body = _read_capped(response, "hand-over", url)
        finally:
            response.close()
    except httpx.HTTPError as exc:
        raise _unreachable("hand-over", url, exc) from None
    try:
        data = values.read_json(body)
    except values.TooDeep:
        raise PeerError(_("hand-over: %(url)s answered JSON nested deeper than %(depth)d levels")
                        % {"url": url, "depth": values.MAX_JSON_DEPTH}) from None
    except ValueError:
        data = {}
    if response.status_code != 200:
        detail = data.get("detail") if isinstance(data, dict) else None
        raise PeerError(_("hand-over refused by %(base)s (%(status_code)s): %(value)s")
                        % {"base": base,
                           "status_code": response.status_code,
                           "value": detail or response.reason_phrase})
    if not isinstance(data, dict):
        raise PeerError(_("hand-over: %(url)s did not answer an item record") % {"url": url})
    return data
