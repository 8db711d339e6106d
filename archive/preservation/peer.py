"""Talking to another Archive running this software, over its REST API (/api/items/…).

A peer's answers are read as untrusted input: `fetch_record` turns the item JSON into a
`Record` or raises PeerError with a message an operator can act on, and `download` streams one
file to a temporary file while hashing it, stopping as soon as it grows past its announced
size, so memory stays bounded and nothing unverified is ever stored.

Files are fetched from the peer's own download path (`<base>/col/<rep>/doc/<name>`), built
here from the base URL the operator gave, never from a URL in the answer; redirects are
followed because an Archive on S3 redirects downloads to its bucket. The request carries
`Range: bytes=0-`: a copy is not a reader, and the peer counts only full 200 downloads.
"""
from __future__ import annotations

import hashlib
import unicodedata
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import quote, urlsplit

import httpx
from django.conf import settings
from django.core.files.uploadedfile import TemporaryUploadedFile

from ..deposit import content_types, storage
from ..identifiers import ibi as ibilib
from ..models import DC_ELEMENTS, Item

CHUNK = 1024 * 1024
TIMEOUT = httpx.Timeout(30.0)
USER_AGENT = "ibirepo-copy/1"
EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()


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


def base_url(text: str) -> str:
    """http(s)://host[:port][/prefix] without a trailing slash, or PeerError."""
    parts = urlsplit((text or "").strip())
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query \
            or parts.fragment or parts.username or parts.password:
        raise PeerError(f"{text!r} is not the base URL of an Archive, e.g. "
                        "https://archive.example.org")
    return f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}"


def client() -> httpx.Client:
    return httpx.Client(timeout=TIMEOUT, follow_redirects=True,
                        headers={"User-Agent": USER_AGENT})


def item_api_url(base: str, ibi: str) -> str:
    return f"{base}/api/items/{quote(ibi, safe='/')}"


def get_json(http: httpx.Client, url: str, what: str) -> dict:
    try:
        response = http.get(url, headers={"Accept": "application/json"})
    except httpx.HTTPError as exc:
        raise PeerError(f"{what}: {url} could not be reached ({exc})") from None
    if response.status_code == 404:
        raise PeerError(f"{what}: {url} answered 404, no such item there")
    if response.status_code != 200:
        raise PeerError(f"{what}: {url} answered {response.status_code}")
    try:
        data = response.json()
    except ValueError:
        raise PeerError(f"{what}: {url} did not answer JSON") from None
    if not isinstance(data, dict):
        raise PeerError(f"{what}: {url} did not answer an item record")
    return data


def _text(data: dict, name: str, *, required: bool = True, limit: int = 1000) -> str:
    value = data.get(name)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or len(value) > limit:
        raise PeerError(f"the record's {name} is not a text of at most {limit} characters")
    return _printable(name, value)


def _printable(name: str, value: str) -> str:
    # What a deposit here would refuse (archive.deposit.services), a copy refuses too.
    if any(unicodedata.category(c) == "Cc" and c not in "\t\n\r" for c in value):
        raise PeerError(f"the record's {name} contains a control character")
    return value


def _moment(data: dict, name: str, *, required: bool = True) -> datetime | None:
    value = data.get(name)
    if value is None and not required:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except (TypeError, ValueError):
        raise PeerError(f"the record's {name} is not an ISO 8601 date: {value!r}") from None
    if moment.tzinfo is None:
        raise PeerError(f"the record's {name} has no time zone")
    return moment


def _ibi_or_none(value) -> str | None:
    if value is None:
        return None
    try:
        ibilib.parse(value)
    except (TypeError, ValueError):
        raise PeerError(f"{value!r} in the record is not an IBI") from None
    return value


def _file(data) -> RemoteFile:
    if not isinstance(data, dict):
        raise PeerError("a file of the record is not an object")
    name = _text(data, "name", limit=storage.MAX_NAME_BYTES)
    try:
        safe = storage.safe_name(name)
    except storage.FileNameError as exc:
        raise PeerError(f"file name {name!r}: {exc}") from None
    if safe != name:
        raise PeerError(f"file name {name!r} is not a bare file name")
    size, sha = data.get("size"), data.get("sha256")
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise PeerError(f"{name}: size is not a number of bytes")
    if size > settings.IBI_MAX_FILE_SIZE:
        raise PeerError(f"{name} is larger than IBI_MAX_FILE_SIZE ({size} bytes)")
    if not isinstance(sha, str) or len(sha) != 64 or set(sha) - set("0123456789abcdef"):
        raise PeerError(f"{name}: sha256 is not 64 lower-case hexadecimal digits")
    content_type = _text(data, "content_type", required=False, limit=255)
    # The other Archive's type is a claim like a client's: the same rule as a deposit here.
    return RemoteFile(name, size, sha, content_types.stored_type(name, content_type))


def parse_record(data: dict, asked: str) -> Record:
    """A Record from an item JSON, checked to be the item asked for (either IBI form)."""
    rep, ibip = _text(data, "ibi", limit=255), _text(data, "ibip", limit=128)
    try:
        rep_parsed, ibip_parsed, asked_parsed = map(ibilib.parse, (rep, ibip, asked))
    except ValueError as exc:
        raise PeerError(f"the record names no valid IBI: {exc}") from None
    if rep_parsed.form != "rep" or ibip_parsed.form != "ibip" \
            or asked_parsed not in (rep_parsed, ibip_parsed):
        raise PeerError(f"the record is of {rep} ({ibip}), not of {asked}")
    state = data.get("state")
    if state not in Item.State.values:
        raise PeerError(f"the record's state {state!r} is not one of {Item.State.values}")
    files = data.get("files")
    if not isinstance(files, list):
        raise PeerError("the record has no file list")
    if len(files) > settings.IBI_MAX_FILES:
        raise PeerError(f"the item has more than IBI_MAX_FILES ({settings.IBI_MAX_FILES}) files")
    parsed_files = tuple(_file(f) for f in files)
    names = [f.name for f in parsed_files]
    if len(set(names)) != len(names):
        raise PeerError("the record lists a file name twice")
    target = _text(data, "target_file", required=False, limit=255)
    if target and target not in names:
        raise PeerError(f"the target file {target!r} is not one of the files")
    dc = {}
    for element in DC_ELEMENTS:
        values = data.get(element) or []
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise PeerError(f"the record's {element} is not a list of texts")
        dc[element] = tuple(_printable(element, v) for v in values)
    translations = data.get("translations") or []
    if not isinstance(translations, list):
        raise PeerError("the record's translations are not a list")
    transferable = data.get("transferable", True)
    if not isinstance(transferable, bool):
        raise PeerError("the record's transferable is not true or false")
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
        source_archive=_text(data, "source_archive", required=False, limit=255))


def fetch_record(http: httpx.Client, base: str, ibi: str) -> Record:
    """GET <base>/api/items/<ibi>, checked."""
    return parse_record(get_json(http, item_api_url(base, ibi), f"item {ibi}"), ibi)


def file_url(base: str, rep: str, name: str) -> str:
    return f"{base}/col/{rep}/doc/{quote(name)}"


def download(http: httpx.Client, base: str, rep: str, remote: RemoteFile
             ) -> TemporaryUploadedFile:
    """The file in a temporary file (close it when done), its checksum verified.

    It carries .sha256 and .size, so storage.store does not read it again.
    """
    url = file_url(base, rep, remote.name)
    # A temporary upload: on the local disk, storing it is a rename, not a second write.
    temp = TemporaryUploadedFile(remote.name, remote.content_type, remote.size, None)
    if remote.size == 0:  # nothing to fetch; and a range of an empty file is unsatisfiable
        if remote.sha256 != EMPTY_SHA256:
            temp.close()
            raise ChecksumError(f"{remote.name}: an empty file has sha256 {EMPTY_SHA256}")
        return _verified(temp, remote)
    try:
        digest, size = hashlib.sha256(), 0
        with http.stream("GET", url, headers={"Range": "bytes=0-"}) as response:
            if response.status_code not in (200, 206) or (
                    response.status_code == 206
                    and not response.headers.get("Content-Range", "").startswith("bytes 0-")):
                raise PeerError(f"{url} answered {response.status_code}")
            for chunk in response.iter_bytes(CHUNK):
                size += len(chunk)
                if size > remote.size:
                    raise ChecksumError(f"{remote.name} is longer than the {remote.size} "
                                        "bytes its record announced")
                digest.update(chunk)
                temp.write(chunk)
        if size != remote.size or digest.hexdigest() != remote.sha256:
            raise ChecksumError(f"{remote.name}: got {size} bytes with sha256 "
                                f"{digest.hexdigest()}, the record says {remote.size} bytes "
                                f"with {remote.sha256}")
    except httpx.HTTPError as exc:
        temp.close()
        raise PeerError(f"{url} could not be fetched ({exc})") from None
    except BaseException:
        temp.close()
        raise
    return _verified(temp, remote)


def _verified(temp: TemporaryUploadedFile, remote: RemoteFile) -> TemporaryUploadedFile:
    temp.flush()
    temp.seek(0)
    temp.sha256, temp.size = remote.sha256, remote.size
    return temp


def hand_over_request(http: httpx.Client, base: str, ibi: str, *, target: str,
                      token: str) -> dict:
    """Ask the Archive holding the Original to hand it over to target (see
    archive.preservation.copies)."""
    url = f"{item_api_url(base, ibi)}/handover"
    try:
        response = http.post(url, json={"target": target},
                             headers={"Authorization": f"Token {token}",
                                      "Accept": "application/json"})
    except httpx.HTTPError as exc:
        raise PeerError(f"hand-over: {url} could not be reached ({exc})") from None
    try:
        data = response.json()
    except ValueError:
        data = {}
    if response.status_code != 200:
        detail = data.get("detail") if isinstance(data, dict) else None
        raise PeerError(f"hand-over refused by {base} ({response.status_code}): "
                        f"{detail or response.reason_phrase}")
    if not isinstance(data, dict):
        raise PeerError(f"hand-over: {url} did not answer an item record")
    return data
