"""Celery task of the resolver: the acknowledgment to the chosen Archive (RTC-11 §8.2 step 5).

Thin, idempotent, plain values in, enqueued after commit (resolve.py). Our own accesses are
counted in the request (accesses/counter.py). The task name keeps the ``archive.tasks.`` prefix
it had before the code moved into packages: messages already queued name it so.
"""
from __future__ import annotations

import logging

from celery import shared_task

from ..models import RegisteredArchive
from ..protocol import client as resolver_client

logger = logging.getLogger(__name__)


class AcknowledgmentNotDelivered(RuntimeError):
    """The Archive did not answer the acknowledgment (retried a few times)."""


@shared_task(name="archive.tasks.send_acknowledgment", bind=True,
             autoretry_for=(AcknowledgmentNotDelivered,), max_retries=3,
             retry_backoff=5, retry_backoff_max=60, retry_jitter=True)
def send_acknowledgment(self, archive_id: int, pairs: dict[str, str]) -> str:
    """Table 8.11 to a registered Archive (RTC-11 §8.2 step 5, "Agradecer").

    Sent only while the Archive is still included; a second delivery harms nothing (the
    Archive counts one access per urlkey). Returns what happened, for the worker's log.
    """
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
