"""The links that verify an address: signed with SECRET_KEY (django.core.signing), expiring
after PASSWORD_RESET_TIMEOUT seconds, naming the account and the address they were made for.
A link verifies once: the account's state says it was used (services.py `verify_email`).

>>> token = make(7, "Ana@Example.org")
>>> read(token, max_age=60)
(7, 'ana@example.org')
>>> try:
...     read(token[:-1] + ("x" if token[-1] != "x" else "y"), max_age=60)
... except signing.BadSignature:
...     print("refused")
refused
"""
from __future__ import annotations

from django.core import signing

SALT = "archive.accounts.verify"


def make(user_id: int, email: str) -> str:
    """A token for the account's address (URL-safe: base64 and colons)."""
    return signing.dumps([user_id, email.lower()], salt=SALT, compress=False)


def read(token: str, *, max_age: int) -> tuple[int, str]:
    """(user id, address) the token was made for; `signing.SignatureExpired` past `max_age`
    seconds, `signing.BadSignature` for anything forged or garbled."""
    found = signing.loads(token, salt=SALT, max_age=max_age)
    if (not isinstance(found, list) or len(found) != 2 or not isinstance(found[0], int)
            or not isinstance(found[1], str)):
        raise signing.BadSignature("not a verification token")
    return found[0], found[1]
