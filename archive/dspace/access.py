"""Who may read an item that DSpace did not show to everyone: its access level here.

crosswalk.py reads DSpace's access (an access right, an embargo date, a resource policy naming
a group other than Anonymous); here it becomes this repository's levels (issue #26,
access/policy.py decides for every channel), set through the deposit services' own
`Access` and `restricted_files`:

    embargo date to come             → embargoed, open from that day (liftembargoes opens it)
    restrictedAccess, embargoed with
    no day, an embargo "forever"     → restricted
    closedAccess, metadataOnlyAccess → metadata only
    an access value no one knows     → metadata only (closed), and the report says so
    a file readable by a group only  → that file restricted, the others open

The words are crosswalk.py's one vocabulary (`access_of`). Nothing DSpace restricted is ever
imported open.
"""
from __future__ import annotations

from ..deposit import services as deposit
from ..deposit import storage
from .crosswalk import Mapped


def of(mapped: Mapped) -> tuple[deposit.Access | None, list[str]]:
    """(the item's Access, None when open; the names of its restricted files)."""
    files = [storage.safe_name(name) for name in mapped.restricted_files]
    if not mapped.level:
        return None, files
    return deposit.Access(rights=mapped.level, embargo_until=mapped.embargo_until,
                          reason=mapped.access[:1000]), files
