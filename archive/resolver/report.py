"""What the administrator sees of the federation (`manage.py federation`, the admin's
Federation page): every included Archive, its breaker and its answers (health.py)."""
from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime

from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from ..models import RegisteredArchive
from ..runtime.breaker import CLOSED, HALF_OPEN, OPEN
from . import health
from .health import Health

# The breaker's states as the administrator reads them.
STATES = {CLOSED: _("closed: asked"), OPEN: _("open: left alone"),
          HALF_OPEN: _("half-open: the next request tries it")}


@dataclass(frozen=True)
class Row:
    """One included Archive as the administrator sees it (`federation`)."""

    archive: RegisteredArchive
    health: Health
    state: str  # closed | open | half-open

    @property
    def median_ms(self) -> int | None:
        median = self.health.median
        return None if median is None else round(median * 1000)

    @property
    def state_label(self) -> str:
        return str(STATES[self.state])

    @property
    def last_answer(self) -> str:
        """What it last said: an answer, or why none came; "" when never asked."""
        if not self.health.last_at:
            return ""
        return self.health.last_said or str(pgettext_lazy("an Archive", "answered"))

    @property
    def last_at(self) -> datetime | None:
        return datetime.fromtimestamp(self.health.last_at, UTC) if self.health.last_at else None


def federation() -> list[Row]:
    """Every included Archive with what this resolver knows of its answers."""
    archives = list(RegisteredArchive.objects.filter(included=True))
    known = health.of(a.pk for a in archives)
    now, failures = time.time(), health.threshold()
    return [Row(a, known[a.pk], known[a.pk].state(now, threshold=failures)) for a in archives]
