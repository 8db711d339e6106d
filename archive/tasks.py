"""Celery tasks: thin, idempotent, plain values in (ids and strings), enqueued after commit.

Resolution: the acknowledgment to the chosen Archive (our own accesses are counted in the
request, archive_service.count_access).
Copies and fixity: scheduled by CELERY_BEAT_SCHEDULE (settings) — `refresh_copies` hourly,
`check_fixity` daily. A second delivery of any of them harms nothing: a copy that is current
writes nothing, and a fixity check only stamps rows again.
"""
from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings

logger = logging.getLogger(__name__)


class AcknowledgmentNotDelivered(RuntimeError):
    """The Archive did not answer the acknowledgment (retried a few times)."""


@shared_task(bind=True, autoretry_for=(AcknowledgmentNotDelivered,), max_retries=3,
             retry_backoff=5, retry_backoff_max=60, retry_jitter=True)
def send_acknowledgment(self, archive_id: int, pairs: dict[str, str]) -> str:
    """Table 8.11 to a registered Archive (RTC-11 §8.2 step 5, "Agradecer").

    Sent only while the Archive is still included; a second delivery harms nothing (the
    Archive counts one access per urlkey). Returns what happened, for the worker's log.
    """
    from . import resolver_client
    from .models import RegisteredArchive

    archive = RegisteredArchive.objects.filter(pk=archive_id, included=True).first()
    if archive is None or not archive.address:
        return "not sent: the Archive is no longer included"
    try:
        base = resolver_client.archive_base(archive.address, archive.archive_service_ibi)
    except resolver_client.AddressError:
        return "not sent: the Archive's address is unusable"
    reply = resolver_client.get_pairs(base, pairs)
    if not reply.ok:
        if reply.status is not None and 400 <= reply.status < 500:
            # Refused for good (the Archive found the pairs wrong): a retry changes nothing.
            logger.warning("acknowledgment refused by %s: %s", archive.archive_service_ibi,
                           reply.error)
            return f"refused: {reply.error}"
        message = f"{archive.archive_service_ibi}: {reply.error}"
        if self.request.is_eager:
            # In process (no broker) the reader is waiting: no retries, the loss is logged.
            logger.warning("acknowledgment not delivered to %s", message)
            return f"not delivered: {reply.error}"
        raise AcknowledgmentNotDelivered(message)
    return "delivered"


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
