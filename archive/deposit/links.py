"""The URLs this Archive hands out for its items, from a base URL (``scheme://host[:port]``).

Pure of requests: the edges say where they were reached (archive/web/addresses.py
`base_url`); code with no request (commands, tasks) passes None, the configured
ARCHIVE_ADDRESS (else ``127.0.0.1:8000``). Persistent URLs name the resolver of
IBI_RESOLVER_URL when one is configured, else this Archive.

The pages' paths are archive/urls.py's, by `reverse`; the paths the standards give (a
persistent URL ``/<IBI>``, the archive service at its IBI, URLib's ``/col/<rep>/doc/<file>``)
are written here by their rule.

    >>> landing_url("sid.inpe.br/mtc-m19/2013/09.04.12.27.57", "https://example.org")
    'https://example.org/items/sid.inpe.br/mtc-m19/2013/09.04.12.27.57'
"""
from __future__ import annotations

from urllib.parse import quote, urlencode, urlsplit

from django.conf import settings
from django.urls import reverse

DEFAULT_ADDRESS = "127.0.0.1:8000"


def base_url(base: str | None = None) -> str:
    """`base`, or this Archive's configured address when None."""
    if base:
        return base.rstrip("/")
    return f"http://{settings.ARCHIVE_ADDRESS or DEFAULT_ADDRESS}"


def archive_address(base: str | None = None) -> str:
    """host[:port] of the base URL: the ``archiveaddress`` this Archive gives (RTC-11 §6.1)."""
    return urlsplit(base_url(base)).netloc


def resolver_url(base: str | None = None) -> str:
    """The resolver persistent URLs name: IBI_RESOLVER_URL, else this Archive."""
    return (settings.IBI_RESOLVER_URL or base_url(base)).rstrip("/")


def persistent_url(ibi: str, base: str | None = None) -> str:
    """``<resolver>/<repository name>``: the persistent URL of an IBI."""
    return f"{resolver_url(base)}/{ibi}"


def memento_uris(family: str, base: str) -> tuple[str, str, str]:
    """(URI-R, TimeGate, TimeMap) of the edition chain whose first edition is `family`, at this
    Archive's `base` (resolver/memento.py: ``/<first IBI>!``, ``/timegate/<URI-R>``,
    ``/timemap/link/<first IBI>``)."""
    original = f"{base}/{family}!"
    return (original, base + reverse("archive:timegate", args=[original]),
            base + reverse("archive:timemap", args=[family]))


def file_url(ibi: str, name: str, base: str | None = None) -> str:
    """``/col/<repository name>/doc/<name>``: where a file is served (URLib's uniform layout,
    which the standard's examples show: written by its rule, as other Archives write it)."""
    return f"{base_url(base)}/col/{ibi}/doc/{quote(name)}"


def landing_url(ibi: str, base: str | None = None) -> str:
    return base_url(base) + reverse("archive:item", args=[ibi])


def file_list_url(ibi: str, base: str | None = None) -> str:
    return base_url(base) + reverse("archive:item_files", args=[ibi])


def linkset_url(ibi: str, base: str | None = None, *, json: bool = False) -> str:
    """The item's Signposting linkset (RFC 9264), as JSON or as link-format text."""
    name = "archive:item_linkset_json" if json else "archive:item_linkset"
    return base_url(base) + reverse(name, args=[ibi])


def service_url(ibi: str, base: str | None = None) -> str:
    """The archive service's own URL: ``/<its IBI>``."""
    return f"{base_url(base)}/{ibi}"


def metadata_url(ibi: str, base: str | None = None, fmt: str = "") -> str:
    """The metadata page (no fmt), or the record in a format of metadata/formats.py:
    ``/items/<repository name>/metadata/<fmt>``; oai_dc keeps the URL it has always had,
    ``/items/<repository name>/oai_dc.xml`` (``/metadata/oai_dc`` serves it too)."""
    if fmt == "oai_dc":
        path = reverse("archive:item_oai_dc", args=[ibi])
    elif fmt:
        path = reverse("archive:item_metadata_format", args=[ibi, fmt])
    else:
        path = reverse("archive:item_metadata", args=[ibi])
    return base_url(base) + path


def secret_link_url(ibi: str, token: str, base: str | None = None) -> str:
    """A secret link (archive/access/): the landing page with its token, ``?token=…``, which
    the page passes on to the files it opens."""
    return f"{landing_url(ibi, base)}?{urlencode({'token': token})}"
