"""{% pending_requests as count %}: how many requests for a copy wait for an answer, for the
admin's index and the badge in its menu (templates/admin/app_list.html, index.html).
{% fixity_alarms as alarms %}: the fixity alarms every admin page shows staff
(templates/admin/base_site.html; archive/preservation/fixity.py)."""
from __future__ import annotations

from django import template

from ..access.selectors import pending_requests as _pending_requests
from ..preservation import fixity

register = template.Library()


@register.simple_tag(takes_context=True)
def pending_requests(context) -> int:
    # Counted once a page: the index shows the menu's list too.
    request = context.get("request")
    if request is None:
        return _pending_requests()
    if not hasattr(request, "_ibi_pending_requests"):
        request._ibi_pending_requests = _pending_requests()
    return request._ibi_pending_requests


@register.simple_tag
def fixity_alarms() -> list[str]:
    return fixity.alarms()
