"""Who may read an item that DSpace restricted: until this repository has access levels
(issue #26), a restricted item is refused with its reason, never imported open."""
from __future__ import annotations

from django.utils.translation import gettext as _

from ..deposit.services import ServiceError


class Restricted(ServiceError):
    """An item DSpace did not show to everyone, which cannot be kept as restricted here."""


def refuse(reason: str) -> None:
    """Refuse a restricted item, saying why (DSpace's access) and what it would take."""
    raise Restricted(_("restricted in DSpace (%(reason)s): not imported, since this "
                       "repository cannot yet keep an item restricted; it is never made "
                       "open") % {"reason": reason})
