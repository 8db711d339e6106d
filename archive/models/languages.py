"""An item's language: a BCP 47 tag, validated and written as RFC 5646 recommends."""
from __future__ import annotations

import re

import langcodes
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

# A BCP 47 language tag as an item's language is written (RFC 5646 §2.1): a 2- or 3-letter
# language, then an optional script, region and variants, extensions, and a private-use tail.
# Not taken, though langcodes would: underscores (pt_BR, a locale name, not a tag), extended
# language subtags (zh-yue: RFC 5646 §4.1.2 prefers the language itself, yue; and pt-BRA is a
# mistyped region far more often than an extlang), grandfathered tags (i-klingon) and tags that
# are private use only (x-private): an item's language must mean the same to another Archive and
# to a harvester, which cannot know what a private-use tag means here.
LANGUAGE_TAG = re.compile(
    r"[A-Za-z]{2,3}(?:-[A-Za-z]{4})?(?:-(?:[A-Za-z]{2}|[0-9]{3}))?"
    r"(?:-(?:[A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3}))*"
    r"(?:-[0-9A-WYZa-wyz](?:-[A-Za-z0-9]{2,8})+)*"
    r"(?:-[Xx](?:-[A-Za-z0-9]{1,8})+)?")


def validate_language(value: str) -> None:
    """Refuse what is not a valid BCP 47 tag: well formed (LANGUAGE_TAG), and every subtag in
    the IANA registry (langcodes.tag_is_valid: zz, xx-YY and en-QQ are well formed, not valid).

    The admin, the API and the search form all validate through this one function, so they
    refuse the same tags. An empty value is no language, which the model allows.
    """
    if not value:
        return
    if "_" in value:
        raise ValidationError(
            _("%(value)s is a locale name, not a BCP 47 language tag: write %(tag)s"),
            params={"value": value, "tag": value.replace("_", "-")}, code="invalid")
    if not LANGUAGE_TAG.fullmatch(value) or not langcodes.tag_is_valid(value):
        raise ValidationError(_("%(value)s is not a BCP 47 language tag such as en or pt-BR"),
                              params={"value": value}, code="invalid")


def normalize_language(value: str) -> str:
    """The case RFC 5646 §2.1.1 recommends: pt-br → pt-BR, ZH-HANT-tw → zh-Hant-TW; language,
    variants, extensions and private use in lower case, script in title case, region in upper.

    >>> normalize_language("en-us-x-TWAIN")
    'en-US-x-twain'
    """
    parts = value.split("-")
    out = [parts[0].lower()]
    tail = False  # after a singleton (an extension or x): all lower case
    for part in parts[1:]:
        tail = tail or len(part) == 1
        if not tail and len(part) == 4 and part.isalpha():
            out.append(part.title())
        elif not tail and len(part) in (2, 3) and len(out) < 3:
            out.append(part.upper())
        else:
            out.append(part.lower())
    return "-".join(out)
