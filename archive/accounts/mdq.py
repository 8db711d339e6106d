"""An identity provider's metadata by the Metadata Query protocol (draft-young-md-query): when
IBI_SAML_MDQ names a service, the metadata pysaml2 reads to send a request to an identity
provider and to check its answer is that provider's own entity, asked of the service when
it is chosen (GET <IBI_SAML_MDQ>/entities/<the url-encoded entityID>, or its
`{sha1}<hex>` form with IBI_SAML_MDQ_TRANSFORM=sha1, Accept: application/samlmetadata+xml),
rather than the whole aggregate (CAFe's is megabytes, parsed anew by every process).

The list of institutions on the discovery page still comes from the last good aggregate
(IBI_SAML_METADATA, federation.py): the federation publishes which institutions belong to it
there; MDQ answers for one at a time.

An entity is taken on the aggregate's terms (federation.check_aggregate): plain XML, an
EntityDescriptor of the entityID asked, of an identity provider, with a `validUntil` to come,
signed as a whole by the MDQ service's certificate (IBI_SAML_MDQ_CERT) and by no other key.
It is kept in the shared cache until its `cacheDuration` (else IBI_SAML_MDQ_CACHE seconds)
runs out, never past its `validUntil`; then asked again. An answer refused (unsigned, signed
by another key, expired, another entity, no answer) is logged and never used: the last good
entity stays in use while it is valid.
"""
from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import quote

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone
from django.utils.dateparse import parse_datetime, parse_duration

from . import federation

logger = logging.getLogger(__name__)

ACCEPT = "application/samlmetadata+xml"


@dataclass(frozen=True)
class Entity:
    """An identity provider's checked metadata, shaped as FederationMetadata is for
    saml.sp_config (`xml`, `sha256`) and its provider as providers_of reads it."""

    xml: str
    sha256: str
    valid_until: datetime
    fresh_until: datetime
    provider: dict


def query_url(base: str, entity_id: str, transform: str = "") -> str:
    """The MDQ request for `entity_id` (draft-young-md-query §2.5, §2.6).

    >>> query_url("https://mdq.example.org/", "https://idp.uni.br/idp")
    'https://mdq.example.org/entities/https%3A%2F%2Fidp.uni.br%2Fidp'
    >>> query_url("https://mdq.example.org", "https://idp.uni.br/idp", "sha1")
    'https://mdq.example.org/entities/%7Bsha1%7D14543179fd3739c0e8855e0f6ee4fc8a8f46b705'
    """
    if transform == "sha1":
        key = "{sha1}" + hashlib.sha1(entity_id.encode(), usedforsecurity=False).hexdigest()
    else:
        key = entity_id
    return f"{base.rstrip('/')}/entities/{quote(key, safe='')}"


def fresh_until(cache_duration: str | None, valid_until: datetime, now: datetime,
                default: float) -> datetime:
    """Until when an entity is used without asking again: its cacheDuration (ISO 8601), else
    `default` seconds, never past its validUntil.

    >>> from datetime import UTC, datetime
    >>> now, end = datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 1, 2, tzinfo=UTC)
    >>> fresh_until("PT6H", end, now, 3600).hour, fresh_until("P3D", end, now, 3600) == end
    (6, True)
    """
    duration = parse_duration(cache_duration or "") or timedelta(seconds=default)
    return min(now + max(duration, timedelta(0)), valid_until)


def check_entity(data: bytes, *, entity_id: str, cert_file: str,
                 now: datetime | None = None) -> Entity:
    """`data` as the checked Entity of `entity_id`, or federation.AggregateRefused saying
    why (module docstring)."""
    now = now or timezone.now()
    checked = federation.check_aggregate(data, cert_file=cert_file, now=now)
    root = federation.parse_strict(data)
    if root.tag != f"{{{federation.MD}}}EntityDescriptor" or root.get("entityID") != entity_id:
        raise federation.AggregateRefused(f"the answer is not the entity {entity_id}")
    if len(checked.providers) != 1:
        raise federation.AggregateRefused(f"{entity_id} is not an identity provider")
    return Entity(xml=checked.xml, sha256=checked.sha256, valid_until=checked.valid_until,
                  fresh_until=fresh_until(root.get("cacheDuration"), checked.valid_until, now,
                                          settings.IBI_SAML_MDQ_CACHE),
                  provider=checked.providers[0])


def _key(entity_id: str) -> str:
    return "saml-mdq:" + hashlib.sha256(entity_id.encode()).hexdigest()


def _kept(entity_id: str, now: datetime) -> Entity | None:
    found = cache.get(_key(entity_id))
    if found is None:
        return None
    entity = Entity(xml=found["xml"], sha256=found["sha256"],
                    valid_until=parse_datetime(found["valid_until"]),
                    fresh_until=parse_datetime(found["fresh_until"]), provider=found["provider"])
    return entity if entity.valid_until > now else None


def entity(entity_id: str, *, now: datetime | None = None) -> Entity:
    """The identity provider's metadata: the one kept while fresh, else asked of the MDQ
    service and checked; when the answer is refused, the one kept while valid, else
    AggregateRefused."""
    now = now or timezone.now()
    kept = _kept(entity_id, now)
    if kept is not None and kept.fresh_until > now:
        return kept
    url = query_url(settings.IBI_SAML_MDQ, entity_id, settings.IBI_SAML_MDQ_TRANSFORM)
    try:
        found = check_entity(federation.fetch(url), entity_id=entity_id,
                             cert_file=settings.IBI_SAML_MDQ_CERT, now=now)
    except federation.AggregateRefused as exc:
        logger.warning("SAML metadata of %s from MDQ refused%s: %s", entity_id,
                       ", the last good one kept" if kept else "", exc)
        if kept is None:
            raise
        return kept
    cache.set(_key(entity_id), {
        "xml": found.xml, "sha256": found.sha256, "provider": found.provider,
        "valid_until": found.valid_until.isoformat(),
        "fresh_until": found.fresh_until.isoformat()},
        timeout=max(1, int((found.valid_until - now).total_seconds())))
    return found
