"""Celery tasks of preservation: thin, idempotent, plain values in (ids and strings).

Task names keep the ``archive.tasks.`` prefix they had before the code moved into packages:
messages already queued, and the beat schedule, name them so.

Copies and fixity: scheduled by CELERY_BEAT_SCHEDULE (settings) — `refresh_copies` hourly,
`check_fixity` daily. A second delivery of any of them harms nothing: a copy that is current
writes nothing, and a fixity check only stamps rows again.
"""
from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings

from ..deposit import services
from . import copies, fixity

logger = logging.getLogger(__name__)


@shared_task(name="archive.tasks.copy_item", bind=True, max_retries=5)
def copy_item(self, ibi: str, source: str) -> str:
    """Copy or refresh one item from the Archive at source; retried while the peer fails."""
    try:
        result = copies.copy_item(ibi=ibi, source=source)
    except copies.PeerFailed as exc:
        if self.request.is_eager:  # in process: report, a later refresh tries again
            logger.warning("copy of %s from %s failed: %s", ibi, source, exc)
            return f"failed: {exc}"
        raise self.retry(exc=exc, countdown=min(60 * 2 ** self.request.retries, 3600)) \
            from None
    except services.ServiceError as exc:  # refused for good: retrying changes nothing
        logger.warning("copy of %s from %s refused: %s", ibi, source, exc)
        return f"refused: {exc}"
    return result.outcome


@shared_task(name="archive.tasks.refresh_copies")
def refresh_copies() -> int:
    """Queue a copy of every Copy from its source, least recently copied first."""
    found = copies.copies_to_refresh()
    for ibi, source in found:
        copy_item.delay(ibi, source)
    return len(found)


@shared_task(name="archive.tasks.check_fixity")
def check_fixity() -> str:
    """Hash stored files again, IBI_FIXITY_BATCH of them (0: all), oldest-checked first."""
    limit = settings.IBI_FIXITY_BATCH or None
    checked = bad = 0
    for finding in fixity.check(limit):
        checked += 1
        if not finding.ok:
            bad += 1
            logger.error("fixity: %s %s", finding.key, finding.problem)
    return f"{checked} files checked: {bad} changed or missing"
