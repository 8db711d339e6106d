"""What readers are told when a persistent URL cannot be read, in their language.

protocol/persistent_url.py and identifiers/ibi.py are pure: their errors carry an English
template (marked for the catalogue) and its parameters, translated here.
"""
from __future__ import annotations

from django.utils.translation import gettext as _

from ..identifiers.ibi import IbiError
from ..protocol.persistent_url import PersistentUrlError


def reader_message(error: Exception) -> str:
    if isinstance(error, PersistentUrlError):
        message = _(error.message)
        return message % error.params if error.params else message
    if isinstance(error, IbiError):
        return _("This IBI cannot be read: %(detail)s") % {"detail": error.translated(_)}
    return str(error)
