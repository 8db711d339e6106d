"""Month names as Brazilian Portuguese writes them, in lower case ("4 de setembro de 2013"),
which Django's own pt_BR catalogue does not ("4 de Setembro de 2013").

Nothing imports this module: it only marks for `make messages` the msgids of
django.utils.dates.MONTHS, whose lower-case translations in locale/pt_BR/LC_MESSAGES/django.po
take precedence over Django's catalogue (LOCALE_PATHS come first), for every ``|date`` with
``F`` (DATE_FORMAT, DATETIME_FORMAT) on every page.
"""
from __future__ import annotations

from django.utils.translation import gettext_noop

MONTHS = (
    gettext_noop("January"), gettext_noop("February"), gettext_noop("March"),
    gettext_noop("April"), gettext_noop("May"), gettext_noop("June"), gettext_noop("July"),
    gettext_noop("August"), gettext_noop("September"), gettext_noop("October"),
    gettext_noop("November"), gettext_noop("December"),
)
