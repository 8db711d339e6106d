"""Memento (RFC 7089) over an IBI edition chain: the TimeGate's choice, the TimeMap, the links.

An edition chain (``Item.previous_edition``, flattened as ``edition_family`` and
``edition_number``) is the history of one work: each edition is a state of it, frozen under
its own IBI, and RTC-11's ``!`` (last edition, §8.1) names the work as it is now. RFC 7089 §4
offers several patterns; this Archive uses Pattern 2.2 (URI-R ≠ URI-G ≠ URI-M, 302-style
negotiation), so that a persistent URL always answers what RTC-11 says it answers, whatever
``Accept-Datetime`` a request carries, and so that a client given a persistent URL alone
(``memento_client``) finds the TimeGate in its Link header (issue 43):

* URI-R, the Original Resource: ``/<first IBI>!``, the last edition of the chain named by its
  first edition (every edition carries that IBI as ``edition_family``). The first edition's
  plain persistent URL would not do: it is frozen (it always resolves to the first edition),
  and it is already that edition's Memento.
* URI-G, the TimeGate: ``/timegate/<URI-R>`` (also named by any persistent URL of the chain or
  a bare IBI, as aggregators name theirs). It answers 302 to the Memento of the edition
  current at ``Accept-Datetime`` (now without one): the newest whose creation (to the second,
  as HTTP dates go) is not after it. A datetime before the first edition gets the first
  edition, not 404: RFC 7089 §4.1 leaves the "best" Memento to the TimeGate, and the first
  state is the closest there is (as web archives do).
* URI-M, the Mementos: the persistent URL of each edition, ``/<IBI of the edition>``. It
  answers as it always does (302 to the edition's file, 410 for a deleted edition); asked
  with ``Accept-Datetime`` (a Memento client sends it again when it follows the TimeGate's
  redirect) it adds ``Memento-Datetime``, the edition's creation.
* Every answer about an item of a chain of two editions or more (its persistent URLs, its
  files, its landing page) links the chain's original, TimeGate and TimeMap (`chain_links`).
* The TimeMap, ``/timemap/link/<IBI>`` (any edition's IBI, either form): RFC 7089 §5 in
  ``application/link-format`` (RFC 6690): original, TimeGate, self (from, until), and every
  edition as a memento with its datetime, the first and last marked. Deleted editions stay
  listed: their persistent URL answers 410, which is what that state of the work now is.

Only the editions held here are known, so only a chain held here whole has a TimeGate: a
chain continued or begun on another Archive (a Copy whose Original has a next edition, an
Original migrated away from its previous edition) and an item held elsewhere have none here.

Pure: no Django import. A worked example, three editions of one work::

    >>> from datetime import datetime, timezone
    >>> utc = timezone.utc
    >>> chain = [Edition("a/1", datetime(2020, 1, 1, tzinfo=utc)),
    ...          Edition("a/2", datetime(2021, 1, 1, tzinfo=utc)),
    ...          Edition("a/3", datetime(2022, 1, 1, tzinfo=utc))]
    >>> choose(chain, parse_accept_datetime("Wed, 30 Jun 2021 12:00:00 GMT")).ibi
    'a/2'
    >>> choose(chain, parse_accept_datetime("Sun, 01 Jan 1995 00:00:00 GMT")).ibi
    'a/1'
    >>> http_date(chain[2].created)
    'Sat, 01 Jan 2022 00:00:00 GMT'
"""
from __future__ import annotations

import email.utils
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

LINK_FORMAT = "application/link-format"
# RFC 1123 (RFC 7231's IMF-fixdate), the only form RFC 7089 §2.1.1 allows in Accept-Datetime.
_RFC1123 = re.compile(r"(Mon|Tue|Wed|Thu|Fri|Sat|Sun), [0-9]{2} "
                      r"(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [0-9]{4} "
                      r"[0-9]{2}:[0-9]{2}:[0-9]{2} GMT")


@dataclass(frozen=True)
class Edition:
    """One edition of a chain, oldest first in a chain: its IBI (as URLs name it) and when it
    was created (aware)."""

    ibi: str
    created: datetime
    deleted: bool = False

    @property
    def moment(self) -> datetime:
        """Its Memento-Datetime: the creation in UTC, to the second (what an HTTP date says)."""
        return self.created.astimezone(UTC).replace(microsecond=0)


def parse_accept_datetime(text: str) -> datetime:
    """An ``Accept-Datetime`` value → an aware UTC datetime; ValueError saying why if it is not
    an RFC 1123 date in GMT. The shape is checked here, the calendar by the standard library
    (``email.utils``: 31 Feb or a wrong weekday's day number are refused)::

        >>> parse_accept_datetime("Tue, 20 Mar 2001 20:35:00 GMT").isoformat()
        '2001-03-20T20:35:00+00:00'
    """
    text = text.strip()
    if not _RFC1123.fullmatch(text):
        raise ValueError(f"Accept-Datetime {text[:100]!r} is not an RFC 1123 date such as "
                         "'Tue, 20 Mar 2001 20:35:00 GMT'")
    try:
        parsed = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"Accept-Datetime {text!r} is no date: {exc}") from exc
    if email.utils.format_datetime(parsed, usegmt=True)[:3] != text[:3]:
        raise ValueError(f"Accept-Datetime {text!r}: that day is not a {text[:3]}")
    return parsed.astimezone(UTC)


def http_date(when: datetime) -> str:
    """An aware datetime as an RFC 1123 date in GMT (Memento-Datetime, TimeMap datetimes)."""
    return email.utils.format_datetime(when.astimezone(UTC).replace(microsecond=0), usegmt=True)


def choose(chain: Sequence[Edition], when: datetime) -> Edition:
    """The edition current at `when`: the newest created at or before it (to the second), or
    the first edition when `when` is before all of them. `chain` is oldest first, not empty."""
    current = chain[0]
    for edition in chain:
        if edition.moment <= when:
            current = edition
    return current


def _link(uri: str, rel: str, **params: str) -> str:
    quoted = "".join(f'; {name}="{value}"' for name, value in params.items())
    return f'<{uri}>; rel="{rel}"{quoted}'


def memento_rel(chain: Sequence[Edition], edition: Edition) -> str:
    """``memento``, with ``first`` / ``last`` when the edition ends the chain (RFC 7089 §2.2)."""
    words = ["first"] if edition == chain[0] else []
    words += ["last"] if edition == chain[-1] else []
    return " ".join([*words, "memento"])


def timegate_links(original: str, timemap: str, chain: Sequence[Edition], chosen: Edition,
                   url_of) -> list[str]:
    """The ``Link`` values of a TimeGate's redirect (RFC 7089 §4.2.1): original, timemap, and
    the chosen, first and last Mementos with their datetimes. `url_of(edition)` is its URI-M."""
    links = [_link(original, "original"), _link(timemap, "timemap", type=LINK_FORMAT)]
    for edition in dict.fromkeys([chain[0], chosen, chain[-1]]):
        links.append(_link(url_of(edition), memento_rel(chain, edition),
                           datetime=http_date(edition.created)))
    return links


def chain_links(original: str, timegate: str, timemap: str) -> list[str]:
    """The ``Link`` values that name a chain (RFC 7089 §4.2.2 and §4.2.3: what a Memento and
    its Original Resource carry): its original, its TimeGate and its TimeMap::

        >>> chain_links("http://h/a/1!", "http://h/timegate/http://h/a/1!",
        ...             "http://h/timemap/link/a/1")[:2]
        ['<http://h/a/1!>; rel="original"', '<http://h/timegate/http://h/a/1!>; rel="timegate"']
    """
    return [_link(original, "original"), _link(timegate, "timegate"),
            _link(timemap, "timemap", type=LINK_FORMAT)]


def timemap(original: str, timegate: str, self_url: str, chain: Sequence[Edition], url_of
            ) -> str:
    """The TimeMap of a chain in ``application/link-format`` (RFC 7089 §5.1.1, RFC 6690): one
    link per line, separated by commas, the Mementos oldest first::

        >>> from datetime import datetime, timezone
        >>> one = [Edition("a/1", datetime(2020, 1, 1, tzinfo=timezone.utc))]
        >>> print(timemap("http://h/a/1!", "http://h/timegate/http://h/a/1!",
        ...               "http://h/timemap/link/a/1", one, lambda e: "http://h/" + e.ibi),
        ...       end="")
        <http://h/a/1!>; rel="original",
        <http://h/timegate/http://h/a/1!>; rel="timegate",
        <http://h/timemap/link/a/1>; rel="self"; type="application/link-format"; \
from="Wed, 01 Jan 2020 00:00:00 GMT"; until="Wed, 01 Jan 2020 00:00:00 GMT",
        <http://h/a/1>; rel="first last memento"; datetime="Wed, 01 Jan 2020 00:00:00 GMT"
    """
    lines = [_link(original, "original"), _link(timegate, "timegate"),
             _link(self_url, "self", type=LINK_FORMAT, **{
                 "from": http_date(min(e.created for e in chain)),
                 "until": http_date(max(e.created for e in chain))})]
    for edition in chain:
        lines.append(_link(url_of(edition), memento_rel(chain, edition),
                           datetime=http_date(edition.created)))
    return ",\n".join(lines) + "\n"
