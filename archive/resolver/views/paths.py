"""The path of a persistent URL as the parser (protocol/persistent_url.py) reads it."""
from __future__ import annotations

from django.http import HttpRequest
from django.utils.encoding import iri_to_uri


def raw_path(request: HttpRequest, prefix: str = "") -> str:
    """The path split from the query before any escape is decoded (§8.1): ``/<ibi>/x%3Fy.txt``
    names the file ``x?y.txt``, not a query.

    path_info is decoded, but bytes that were no UTF-8 (Example 6.2's Latin-1 %F3) stay %XX:
    iri_to_uri encodes the rest and leaves those as they are, and a ``?`` in path_info can only
    have come from %3F, so it is written so again: the parser decodes every byte exactly once.
    A route in front of the persistent URL (``/inspect``) is its `prefix`.
    """
    return iri_to_uri(request.path_info).replace("?", "%3F").removeprefix(prefix)
