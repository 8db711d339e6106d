"""The COUNTER API's keys (writes): issued by a librarian for a customer, revoked by one."""
from __future__ import annotations

import secrets

from django.db import transaction
from django.utils import timezone

from ..models import CounterApiKey, CounterCustomer
from .selectors import key_hash


@transaction.atomic
def issue_key(customer: CounterCustomer) -> str:
    """A new API key of the customer: returned once (only its hash is kept)."""
    key = secrets.token_urlsafe(32)
    CounterApiKey.objects.create(customer=customer, key_hash=key_hash(key), prefix=key[:8])
    return key


def revoke_keys(keys) -> int:
    """Revoke the keys not revoked yet (a queryset of CounterApiKey); how many were."""
    return keys.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
