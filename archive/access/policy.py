"""Who may see what of an item's files: the one decision every channel asks. Pure: no Django.

An item's access level is one of the COAR access rights; metadata are public at every level,
files are not:

- ``open``: every file is open to all, except a file marked restricted (a public article
  with a restricted dataset), which is as a restricted item's file;
- ``embargoed``: the files are closed until `embargo_until`, the first day they are open
  (`manage.py liftembargoes`, run by a task shortly after midnight, opens the item then);
- ``restricted``: the files are for librarians and for holders of a secret link (a link a
  librarian made, or the one an approved request brought);
- ``metadata-only``: no file, not even its name, for anyone but librarians.

A reader is a `Reader`: `privileged` (a librarian, or the account another Archive copies
with) reads everything; `link_item` is the item a valid secret link opens, for its embargoed
or restricted files only. Reading is all privilege gives: the peer account reads files and
records and nothing else (secret links, requests for a copy and the audit trail need their
own permissions, which librarians hold and the peer does not). Everyone else is `PUBLIC`,
the reader every cached answer is built for (the archive service's, the resolver's, every
metadata format's, OAI-PMH's)::

    >>> may_read(PUBLIC, 7, OPEN, restricted=False), may_read(PUBLIC, 7, EMBARGOED)
    (True, False)
    >>> may_read(Reader(link_item=7), 7, RESTRICTED), may_read(Reader(link_item=7), 8, RESTRICTED)
    (True, False)
    >>> may_read(Reader(link_item=7), 7, METADATA_ONLY), shows_files(PUBLIC, METADATA_ONLY)
    (False, False)
"""
from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

OPEN = "open"
EMBARGOED = "embargoed"
RESTRICTED = "restricted"
METADATA_ONLY = "metadata-only"

# COAR Access Rights vocabulary v1.0 (http://purl.org/coar/access_right/): label and URI.
COAR = "http://purl.org/coar/access_right/"
COAR_RIGHTS = {
    OPEN: ("open access", COAR + "c_abf2"),
    EMBARGOED: ("embargoed access", COAR + "c_f1cf"),
    RESTRICTED: ("restricted access", COAR + "c_16ec"),
    METADATA_ONLY: ("metadata only access", COAR + "c_14cb"),
}


@dataclass(frozen=True)
class Reader:
    """Who asks: privileged (reads everything), or the holder of a valid secret link to one
    item (`link_item`, its id), or neither: the public."""

    privileged: bool = False
    link_item: int | None = None

    @property
    def public(self) -> bool:
        return not self.privileged and self.link_item is None


PUBLIC = Reader()
LIBRARIAN = Reader(privileged=True)


def is_open(level: str, restricted: bool = False) -> bool:
    """Whether a file is open to all: its item open and the file not restricted. The only
    question an answer kept for everyone may ask (archive service, metadata, OAI-PMH)."""
    return level == OPEN and not restricted


def counter_access_type(level: str, restricted: bool = False) -> str:
    """COUNTER R5.1's Access_Type of an access now (AccessType's value): "open" when the file
    (or, with no file, the item) is open to all, else "controlled".

    >>> counter_access_type(OPEN), counter_access_type(OPEN, True), counter_access_type(EMBARGOED)
    ('open', 'controlled', 'controlled')
    """
    return "open" if is_open(level, restricted) else "controlled"


def may_read(reader: Reader, item_id: int | None, level: str, restricted: bool = False) -> bool:
    """Whether `reader` may have a file's bytes (and its URL, checksum and ETag)."""
    if is_open(level, restricted) or reader.privileged:
        return True
    return level != METADATA_ONLY and reader.link_item is not None and reader.link_item == item_id


def shows_files(reader: Reader, level: str) -> bool:
    """Whether the item's files are shown at all, by name and size: not those of a
    metadata-only item, but to the privileged."""
    return level != METADATA_ONLY or reader.privileged


def opens_by_link(level: str, restricted_flags: Iterable[bool] = ()) -> bool:
    """Whether a secret link (or a request for a copy) has anything to open: an embargoed or
    restricted item, or an open one with a restricted file; never a metadata-only item."""
    return level in (EMBARGOED, RESTRICTED) or (level == OPEN and any(restricted_flags))


def coar(level: str) -> tuple[str, str]:
    """(label, URI) of the COAR access right of a level."""
    return COAR_RIGHTS[level]


def lifted(level: str, embargo_until: date | None, today: date) -> bool:
    """Whether an embargo has come to its end: its first open day is today or before."""
    return level == EMBARGOED and embargo_until is not None and embargo_until <= today


# -- Bundles: what an item from DSpace keeps beside its work's files (issue 34) ------------

ORIGINAL, TEXT, THUMBNAIL, LICENSE = "ORIGINAL", "TEXT", "THUMBNAIL", "LICENSE"


def lists_as_work(bundle: str) -> bool:
    """Whether a file of this bundle is one of the work's files, listed, served and counted
    as such in every channel: the ORIGINAL bundle only. The others are kept for a DSpace
    round trip (models/files.py keeps them out of every listing: `ItemFile.objects`)::

        >>> lists_as_work(ORIGINAL), lists_as_work(TEXT), lists_as_work(LICENSE)
        (True, False, False)
    """
    return bundle == ORIGINAL


def may_read_bundle(reader: Reader, item_id: int | None, level: str, restricted: bool,
                    bundle: str) -> bool:
    """Whether `reader` may have a file of a bundle: the work's files as `may_read` says;
    its extracted text and thumbnails show what the files hold, so they are as closed as
    the files are; the deposit licence is between the depositor and the repository, for the
    privileged only; a bundle not named here, for no one but them::

        >>> may_read_bundle(PUBLIC, 7, OPEN, False, THUMBNAIL)
        True
        >>> may_read_bundle(PUBLIC, 7, EMBARGOED, False, TEXT)
        False
        >>> may_read_bundle(PUBLIC, 7, OPEN, False, LICENSE), may_read_bundle(
        ...     LIBRARIAN, 7, OPEN, False, LICENSE)
        (False, True)
    """
    if bundle in (ORIGINAL, TEXT, THUMBNAIL):
        return may_read(reader, item_id, level, restricted)
    return reader.privileged


# -- A collection's defaults: the access a deposit gets when it names none (issue 34) -------

def default_access(level: str, embargo_days: int, today: date) -> tuple[str, date | None]:
    """(level, first open day) of a deposit that names no access, in a collection whose
    default is `level`, embargoed for `embargo_days` days (counted from the deposit)::

        >>> default_access(OPEN, 0, date(2026, 1, 31))
        ('open', None)
        >>> default_access(EMBARGOED, 30, date(2026, 1, 31))
        ('embargoed', datetime.date(2026, 3, 2))
    """
    if level == EMBARGOED:
        return level, date.fromordinal(today.toordinal() + embargo_days)
    return level, None


def defaults_problem(level: str, embargo_days: int) -> str | None:
    """What is wrong with a collection's defaults ("" names nothing wrong): an embargo needs
    its days, and days go with an embargo only. The message is English; callers translate.

        >>> defaults_problem(EMBARGOED, 0), defaults_problem(OPEN, 10), defaults_problem(OPEN, 0)
        ('embargo days', 'embargo days without embargo', None)
    """
    if level == EMBARGOED and embargo_days <= 0:
        return "embargo days"
    if level != EMBARGOED and embargo_days:
        return "embargo days without embargo"
    return None


# -- Secret links: what is kept of a token, and what a token is ------------------------------

TOKEN_BYTES = 32  # 256 random bits (the issue asks for at least 128)


def new_token() -> str:
    """A fresh secret link token: 43 URL-safe characters."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_hash(token: str) -> str:
    """What is kept of a token: its SHA-256. A token is random, so no slow hash is needed to
    make guessing from the hash hopeless; and a lookup by hash costs the same whatever the
    token, so time tells nothing about how close a guess came."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()
