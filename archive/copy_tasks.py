"""Celery tasks for copies and fixity: thin, idempotent, plain values in.

Listed in CELERY_IMPORTS (settings), scheduled by CELERY_BEAT_SCHEDULE: `refresh_copies`
hourly, `check_fixity` daily. A second delivery of any of them harms nothing: a copy that is
current writes nothing, and a fixity check only stamps rows again.
"""
from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings

logger = logging.getLogger(__name__)


@shared_task(bind=True, max_retries=5)
def copy_item(self, ibi: str, source: str) -> str:
    """Copy or refresh one item from the Archive at source; retried while the peer fails."""
    from . import copies, services

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


@shared_task
def refresh_copies() -> int:
    """Queue a copy of every Copy from its source, least recently copied first."""
    from .copies import copies_to_refresh

    found = copies_to_refresh()
    for ibi, source in found:
        copy_item.delay(ibi, source)
    return len(found)


@shared_task
def check_fixity() -> str:
    """Hash stored files again, IBI_FIXITY_BATCH of them (0: all), oldest-checked first."""
    from . import fixity

    limit = settings.IBI_FIXITY_BATCH or None
    checked = bad = 0
    for finding in fixity.check(limit):
        checked += 1
        if not finding.ok:
            bad += 1
            logger.error("fixity: %s %s", finding.key, finding.problem)
    return f"{checked} files checked: {bad} changed or missing"
