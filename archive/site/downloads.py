"""Downloads at /col/<repository name>/doc/<file>: the URLib layout (RTC-11 §5.2), served here.

What this view promises, and why:

- Only a file recorded as an ItemFile of the item the path names is ever opened, and its
  storage key is built from that database row, never from the request: `..`, `%2e%2e`,
  backslashes, extra segments or another item's file name find no row and answer 404.
  Names are percent-decoded as UTF-8, or as Latin-1 as in RTC-11's example URL.
- Local storage: the bytes stream from `default_storage.open` in chunks (FileResponse). The
  ETag is the file's sha256 (strong: files are never overwritten) and Last-Modified its
  deposit time; If-None-Match / If-Modified-Since answer 304 (Django's conditional logic), a
  single byte range answers 206 (werkzeug parses Range and If-Range), an unsatisfiable one 416.
  Several ranges are ignored (a full 200), which HTTP allows.
- S3 (`storages.backends.s3.S3Storage`): a GET answers 302 to a presigned GET URL of the
  configured bucket, valid for AWS_QUERYSTRING_EXPIRE seconds (300 by default), carrying the
  Content-Type and Content-Disposition as signed `response-*` overrides. We redirect rather
  than proxy so that a web worker never carries the bytes; S3 then answers ranges itself. The
  target is `default_storage.url()` of our own bucket and endpoint, never anything from the
  request. HEAD and 304 are answered here, from the database, without touching the bucket.
- Whatever a browser could execute (HTML, SVG, XML, scripts, anything unknown) is sent as an
  attachment: only an allow-list of passive types is shown inline, and always with
  `X-Content-Type-Options: nosniff`.
- A file whose last fixity check found its bytes changed or missing (ItemFile.fixity_problem,
  archive/preservation/fixity.py) answers 503 with Retry-After, GET and HEAD alike, never its
  old checksum as ETag; once it is restored and a check passes, it is served again. (Serving a
  verified Copy from another Archive instead is left to the resolver: the persistent URL still
  redirects here.)
- A full download — a 200 GET, or a GET without Range redirected to S3 — counts one download
  (archive/usage/counter.py: off the request, robots and double clicks left out). HEAD,
  304 and partial requests count nothing.
- A file not open to all (archive/access/policy.py) is served only to whom the policy lets
  read it: a librarian, another Archive's account copying (an API token), the holder of a
  secret link to its item (``?token=``). Anyone else gets 403, a page offering access
  (site/access.py), before anything of the file is looked at: no ETag, no size, no checksum,
  no presigned URL, no X-Accel-Redirect. A metadata-only item answers so for any name, held
  or not. Each GET of a closed file that is served is recorded in the audit trail (who or
  which link, when; no address), and kept by no cache.
"""
from __future__ import annotations

import logging
import re
import unicodedata
from urllib.parse import quote, unquote

from django.conf import settings
from django.core.files.storage import default_storage
from django.http import (
    FileResponse,
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseRedirect,
)
from django.utils import timezone
from django.utils.cache import get_conditional_response
from django.utils.http import content_disposition_header, http_date, parse_header_parameters
from django.utils.translation import gettext as _
from django.views.decorators.clickjacking import xframe_options_sameorigin
from django.views.decorators.http import require_safe
from werkzeug.http import dump_options_header, parse_if_range_header, parse_range_header

from ..access import policy
from ..access import services as access
from ..deposit import links, selectors
from ..deposit.selectors import item_by_ibi
from ..deposit.storage import file_key, on_s3
from ..metadata import selectors as metadata
from ..metadata import signposting
from ..models import AccessKind, Item, ItemFile
from ..resolver import memento
from ..usage import counter as access_counter
from ..web import readers
from ..web.addresses import base_url
from ..web.throttling import client_ip
from .access import closed

logger = logging.getLogger(__name__)

# Passive types a browser shows without running anything; everything else is an attachment.
INLINE_TYPES = frozenset({
    "application/pdf", "text/plain", "text/csv",
    "image/png", "image/jpeg", "image/gif", "image/webp", "image/avif", "image/tiff",
    "audio/mpeg", "audio/ogg", "audio/wav", "audio/flac", "video/mp4", "video/webm", "video/ogg",
})
_MEDIA_TYPE = re.compile(r"[a-z0-9][a-z0-9!#$&^_.+-]*/[a-z0-9][a-z0-9!#$&^_.+-]*")
_CHARSET = re.compile(r"[A-Za-z0-9._:-]{1,40}")


def content_type_of(stored: str) -> str:
    """The stored (client-given) content type, reduced to something safe to send back.

    >>> content_type_of("Text/Plain; charset=UTF-8; x=y")
    'text/plain; charset=UTF-8'
    """
    media, params = parse_header_parameters(stored or "")
    media = media.lower()
    if not _MEDIA_TYPE.fullmatch(media):
        return "application/octet-stream"
    charset = params.get("charset", "")
    if media.startswith("text/") and _CHARSET.fullmatch(charset):
        return f"{media}; charset={charset}"
    return media


def is_inline(content_type: str) -> bool:
    return content_type.split(";")[0] in INLINE_TYPES


def disposition(name: str, *, attachment: bool) -> str:
    """Content-Disposition (RFC 6266) for a file name. A non-ASCII name gets ``filename*`` (RFC
    8187) and an ASCII ``filename`` beside it for the clients that read only that one, such as
    ``curl -OJ``: accents dropped, other characters ``_``::

        >>> print(disposition("Relatório Final.pdf", attachment=False))
        inline; filename="Relatorio Final.pdf"; filename*=UTF-8''Relat%C3%B3rio%20Final.pdf
    """
    if name.isascii():
        return content_disposition_header(attachment, name)
    fallback = "".join(c if c.isascii() else "_" for c in unicodedata.normalize("NFKD", name)
                       if unicodedata.category(c) != "Mn")
    return dump_options_header("attachment" if attachment else "inline", {
        "filename": fallback, "filename*": "UTF-8''" + quote(name, safe="!#$&+^`|~")})


def _find(rest: str) -> tuple[Item, ItemFile | None]:
    """The item named by `<4 segments of the repository name>/doc/<file>` (or 404), and its
    file of that name, or None."""
    parts = rest.split("/")
    if len(parts) != 6 or parts[4] != "doc" or not all(parts):
        raise Http404("not a path of the form col/<repository name>/doc/<file>")
    name = parts[5]
    if name in (".", "..") or "\\" in name:
        raise Http404("not a file name")
    item = item_by_ibi("/".join(parts[:4]))
    # The layout is keyed by repository name: an IBIp never names a folder.
    if item is None:
        raise Http404("no such item")
    files = ItemFile.objects.filter(item=item)
    found = files.filter(name=name).first()
    if found is None and "%" in name:
        # RTC-11's own example escapes Latin-1 (Relat%f3rio%20Final.pdf); Django leaves the
        # bytes that are not UTF-8 percent-encoded, so read them as Latin-1 once more.
        legacy = unquote(name, encoding="latin-1")
        found = files.filter(name=legacy).first() if legacy != name else None
    if found is not None:
        found.item = item
    return item, found


class _Slice:
    """Bytes [start, stop) of an open file, read in chunks: the body of a 206.

    A file-like rather than a generator: FileResponse closes it even if never read.
    """

    def __init__(self, fh, start: int, stop: int) -> None:
        fh.seek(start)
        self._fh, self._left = fh, stop - start

    def read(self, size: int = -1) -> bytes:
        size = self._left if size < 0 else min(size, self._left)
        data = self._fh.read(size) if size else b""
        self._left -= len(data)
        return data

    def close(self) -> None:
        self._fh.close()


def _byte_range(request: HttpRequest, size: int, etag: str, modified: int):
    """(start, stop) for a single satisfiable range, "unsatisfiable", or None for a full 200."""
    header = request.headers.get("Range")
    if not header:
        return None
    if_range = request.headers.get("If-Range")
    if if_range:
        validator = parse_if_range_header(if_range)
        if validator.date is not None:
            if int(validator.date.timestamp()) != modified:
                return None
        elif f'"{validator.etag}"' != etag:
            return None
    parsed = parse_range_header(header)
    if parsed is None or parsed.units != "bytes" or len(parsed.ranges) != 1:
        return None  # malformed or several ranges: ignoring Range is always allowed
    start = parsed.ranges[0][0]
    if start < 0 and size:
        # The last -start bytes; a suffix longer than the file is the whole file (RFC 9110).
        return max(size + start, 0), size
    return parsed.range_for_length(size) or "unsatisfiable"


# A librarian restores a damaged file from a backup or a Copy, then fixity runs again: hours.
DAMAGED_RETRY_AFTER = 3600


def _damaged(found: ItemFile) -> HttpResponse:
    """503: the stored bytes failed their last fixity check; the librarians see it in the
    admin (Item files, and the item's page) and the file answers again once a check passes."""
    response = HttpResponse(
        _("%(file)s of %(ibi)s is temporarily unavailable: its stored copy failed the last "
          "fixity check and is being restored. Please try again later.\n")
        % {"file": found.name, "ibi": found.item.ibi},
        status=503, content_type="text/plain; charset=utf-8")
    response["Retry-After"] = str(DAMAGED_RETRY_AFTER)
    response["Cache-Control"] = "no-store"
    return response


def _count_download(request: HttpRequest, item: Item, name: str,
                    restricted: bool = False) -> None:
    access_counter.count(item.pk, [client_ip(request)], name, timezone.now(),
                         user_agent=request.META.get("HTTP_USER_AGENT", ""),
                         kind=AccessKind.DOWNLOAD,
                         access_type=policy.counter_access_type(item.access_rights, restricted))


def _headers(response: HttpResponse, etag: str, modified: int) -> HttpResponse:
    response["ETag"] = etag
    response["Last-Modified"] = http_date(modified)
    response["Accept-Ranges"] = "bytes"
    response["X-Content-Type-Options"] = "nosniff"
    return response


# The landing page previews a PDF or an image of this site in an <object>: only this site may
# frame a file (X-Frame-Options, and the policy's frame-ancestors 'self').
@xframe_options_sameorigin
@require_safe
def download(request: HttpRequest, rest: str) -> HttpResponse:
    item, found = _find(rest)
    if found is None and (item.is_deleted or item.access_rights != policy.METADATA_ONLY):
        raise Http404("no such file")
    if item.is_deleted or (found is not None
                           and policy.is_open(item.access_rights, found.restricted)):
        return _signposted(request, found, _download(request, found))
    # Closed to the public (or a name a metadata-only item may or may not hold).
    reading = readers.reading(request, item)
    if found is None or not policy.may_read(reading.reader, item.pk, item.access_rights,
                                            found.restricted):
        if found is None and reading.reader.privileged:
            raise Http404("no such file")
        return closed(request, item, reading)
    response = _download(request, found)
    response["Cache-Control"] = "private, no-store"
    if request.method == "GET" and response.status_code in (200, 206, 302):
        access.record_read(item=item, file_name=found.name, user=reading.user,
                           link=reading.link)
    return _signposted(request, found, response)


def _signposted(request: HttpRequest, found: ItemFile, response: HttpResponse
                ) -> HttpResponse:
    if response.status_code in (200, 206, 302, 304):
        # FAIR Signposting of a content resource: its landing page, its own persistent URL,
        # and its item's signposts (a client that followed a persistent URL lands here).
        base = base_url(request)
        response["Link"] = ", ".join([signposting.to_header(metadata.file_answer_links(
            found.item, found.name, base)), *_memento(found.item, base)])
    return response


def _memento(item: Item, base: str) -> list[str]:
    """A file of an edition of a chain held here whole names the chain's original, TimeGate
    and TimeMap (resolver/memento.py): a Memento client that followed a persistent URL to the
    file finds the editions here (memento_client reads the answer it was redirected to)."""
    if item.is_deleted or links.resolver_url(base) != base or (
            selectors.memento_chain(item) is None):
        return []
    return memento.chain_links(*links.memento_uris(item.edition_family, base))


def _download(request: HttpRequest, found: ItemFile) -> HttpResponse:
    item = found.item
    if item.is_deleted:
        return HttpResponse(_("%(ibi)s was deleted\n") % {"ibi": item.ibi}, status=410,
                            content_type="text/plain; charset=utf-8")
    if found.fixity_problem:
        # Before the conditional answers: the ETag is the recorded sha256, which these bytes
        # no longer have, so neither a 304 nor a 200 may vouch for them.
        return _damaged(found)

    etag, modified = f'"{found.sha256}"', int(found.created.timestamp())
    ctype = content_type_of(found.content_type)
    header = disposition(found.name, attachment=not is_inline(ctype))
    probe = _headers(HttpResponse(), etag, modified)
    conditional = get_conditional_response(request, etag=etag, last_modified=modified,
                                           response=probe)
    if conditional is not probe:
        return conditional

    if request.method == "HEAD":
        # Answered from the database: nothing opened, locally or in the bucket.
        response = _headers(HttpResponse(content_type=ctype), etag, modified)
        response["Content-Length"] = str(found.size)
        response["Content-Disposition"] = header
        return response

    key = file_key(found.item.ibi, found.name)
    if on_s3():
        url = default_storage.url(key, parameters={"ResponseContentType": ctype,
                                                   "ResponseContentDisposition": header})
        response = HttpResponseRedirect(url)
        response["Cache-Control"] = "private, no-store"  # the signature expires
        if "Range" not in request.headers:
            _count_download(request, item, found.name, found.restricted)
        return response

    if settings.IBI_ACCEL_REDIRECT:
        # nginx sends the bytes, Range included, from its internal location over MEDIA_ROOT
        # (deploy/nginx.conf): gunicorn's worker is free as soon as the headers are out.
        response = _headers(HttpResponse(content_type=ctype), etag, modified)
        response["X-Accel-Redirect"] = settings.IBI_ACCEL_REDIRECT + quote(key)
        response["Content-Disposition"] = header
        if "Range" not in request.headers:
            _count_download(request, item, found.name, found.restricted)
        return response

    try:
        fh = default_storage.open(key, "rb")
    except FileNotFoundError:
        logger.error("%s is recorded but missing from storage (see manage.py fsck)", key)
        raise Http404("file missing from storage") from None
    size = fh.size
    wanted = _byte_range(request, size, etag, modified)
    if wanted == "unsatisfiable":
        fh.close()
        response = _headers(HttpResponse(status=416), etag, modified)
        response["Content-Range"] = f"bytes */{size}"
        return response
    if wanted is None:
        response = _headers(FileResponse(fh, content_type=ctype), etag, modified)
        _count_download(request, item, found.name, found.restricted)
    else:
        start, stop = wanted
        response = _headers(FileResponse(_Slice(fh, start, stop), content_type=ctype,
                                         status=206), etag, modified)
        response["Content-Range"] = f"bytes {start}-{stop - 1}/{size}"
        response["Content-Length"] = str(stop - start)
    response["Content-Disposition"] = header
    return response
