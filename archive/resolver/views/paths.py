"""The path of a persistent URL as the parser (protocol/persistent_url.py) reads it."""
from __future__ import annotations

import re
from urllib.parse import quote, urlsplit

from django.http import HttpRequest
from django.utils.encoding import iri_to_uri

# A "%" in path_info that is not an escape Django kept for a byte that was no UTF-8 (those
# are %80-%FF): it was written %25.
_LITERAL_PERCENT = re.compile(r"%(?![89A-F][0-9A-F])")  # Django writes its escapes in capitals
_SAFE = "/%:@!$&'()*+,;=~"  # RFC 3986's pchar, escapes kept: nothing of the path re-encoded


def raw_path(request: HttpRequest, prefix: str = "") -> str:
    """The path split from the query before any escape is decoded (§8.1): ``/<ibi>/x%3Fy.txt``
    names the file ``x?y.txt``, not a query, and ``/<ibi>/a%2541.txt`` the file ``a%41.txt``.
    The parser decodes every byte exactly once.

    The request line's own path when the server gives it (gunicorn's RAW_URI, REQUEST_URI).
    Else path_info, decoded: bytes that were no UTF-8 (Example 6.2's Latin-1 %F3) stay %XX,
    a "%" that was %25 is written so again (all but one followed by a byte above %7F, which
    path_info cannot tell from a kept escape), iri_to_uri encodes the rest, and a ``?`` can
    only have come from %3F. A route in front of the persistent URL (``/inspect``) is its
    `prefix`."""
    meta = request.META
    given = meta.get("RAW_URI") or meta.get("REQUEST_URI")
    if given and not meta.get("SCRIPT_NAME"):
        # urlsplit drops a query and a fragment alike (gunicorn routes /a#b as /a, and keeps
        # the fragment in RAW_URI), from the origin form and the absolute form.
        path = urlsplit(given).path
        if path.startswith("/") and not given.startswith("//"):
            # Its bytes (a WSGI str is Latin-1), the escapes as they came.
            return quote(path.encode("latin-1", "replace"), safe=_SAFE).removeprefix(prefix)
    path = _LITERAL_PERCENT.sub("%25", request.path_info)
    return iri_to_uri(path).replace("?", "%3F").removeprefix(prefix)
