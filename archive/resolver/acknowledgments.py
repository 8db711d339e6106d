"""Acknowledgment (Table 8.11, §8.2 step 5): what the chosen Archive is owed for a resolution.

`acknowledge` counts an access of our own here, off the reader's request, without HTTP
(archive/usage/counter.py), or says which pairs the chosen Archive is owed, for the view to
send after the commit (a Celery task, resolver/tasks.py).
"""
from __future__ import annotations

from collections.abc import Sequence

from django.conf import settings
from django.utils import timezone

from ..archive_service import urlkeys
from ..usage import counter as access_counter
from ..usage import filters as access_filters
from .reading import state_of
from .resolve import Outcome


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
                relation: str, user_agent: str | None = None, *, count: bool = True
                ) -> tuple[int, dict[str, str]] | None:
    """Count a local access here (`count_local_access`, COUNTER's filters: `count` False for
    what COUNTER does not count, a HEAD), or say what the chosen Archive is owed: (its id, the
    Table 8.11 pairs), for the view to send after the commit (resolver/tasks.py).

    Every successful resolution is acknowledged, as §8.2 step 5 says, whoever the reader: the
    Archive keeps its own statistics by its own rules. An operator who wants robots on
    COUNTER's list left out sets IBI_ACKNOWLEDGMENT_FILTERS_ROBOTS (off by default). None when
    nothing is owed, or the answer lacks what Table 8.11 needs."""
    if outcome.answer is not None and outcome.answer.source.local:
        item_id = counted_item(outcome)
        if item_id is not None and count:
            count_local_access(item_id, ips, relation, user_agent)
        return None
    if _left_out(user_agent):
        return None
    pairs = acknowledgment_pairs(outcome, ips, persistent)
    if pairs is None:
        return None
    return outcome.answer.source.archive, pairs


def _left_out(user_agent: str | None) -> bool:
    """A robot on COUNTER's list, when the operator opted in to leaving them unacknowledged."""
    return (settings.IBI_ACKNOWLEDGMENT_FILTERS_ROBOTS and user_agent is not None
            and access_filters.is_robot(user_agent))


def counted_item(outcome: Outcome) -> int | None:
    """The item whose access our own answer asks to count (its urlkey's), or None when the
    answer gives nothing an acknowledgment could carry."""
    pairs = acknowledgment_pairs(outcome, [], "")
    return urlkeys.read_urlkey(pairs["urlkey"]) if pairs else None


def count_local_access(item_id: int, ips: Sequence[str], relation: str,
                       user_agent: str | None = None) -> None:
    """The acknowledgment our resolver owes our own archive service, without HTTP: the access
    is counted off the reader's request, or with the transaction it is in, robots and double
    clicks left out (archive/usage/counter.py)."""
    access_counter.count(item_id, ips, relation, timezone.now(), user_agent=user_agent)
