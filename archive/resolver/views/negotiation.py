"""Content negotiation on persistent URLs, as doi.org does it: ``Accept`` picks a metadata
format (archive/metadata/accept.py reads the header), which the resolver then asks for like the
modifier would: ``Accept: application/x-bibtex`` on ``/<ibi>`` resolves ``/<ibi>:(bibtex)``,
``Accept: text/x-bibliography; style=…; locale=…`` resolves ``/<ibi>:(csljson)`` (that URL
renders the citation for the same Accept header). Through another Archive too: the format travels
as the ``GetMetadata(<format>)`` verb of the urlRequest and comes back as ``url.metadata(…)``.

Against an Archive that follows RTC-11 only (#25, 6): Table 8.4 allows ``GetMetadata`` and
``GetMetadata(oai_dc)``, so such an Archive is asked ``GetMetadata(oai_dc)`` (resolver/formats.py:
only an Archive that announced the other formats is asked for them), and the format is rendered
here from the oai_dc record it gives (`rendered`: the same Record, the same writers as for an
item held here; a 200, not a redirect). When no Archive gives even that, the persistent URL
answers as it would without ``Accept`` (a redirect to the item): never a 404 for an item that
exists. A modifier typed in the URL (``:(bibtex)``) is no negotiation: without a record to
render from, it answers what it finds (404, or 502 when the record cannot be read).

Decisions:

* ``text/html``, ``application/xhtml+xml``, ``*/*``, a family wildcard (``application/*``), no
  Accept at all, or only types no format has: the redirect of today, unchanged. Not a 406:
  ``/<ibi>`` may well redirect to a file of exactly the type asked (``application/pdf``), which
  the resolver cannot know before it resolves, and RTC-11 clients send all sorts of headers.
* A URL that names metadata already (``:``, ``:(oai_dc)``), a file (``/<ibi>/a.pdf``) or the file
  list keeps what it names: Accept does not change it (except that the CSL-JSON it leads to may
  be rendered as a citation, as above).
* An unknown CSL style or locale is a 400 saying which, before anything is resolved.
* A tombstone answers 410 with its citation in the format asked (by Accept or by the modifier),
  built from its Record here (`record_of`: no creators, description or files), or, when another
  Archive holds it, from what that Archive said (its IBI, this resolver's persistent URL).

Every answer of a persistent URL says ``Vary: Accept`` (the view's decorator).
"""
from __future__ import annotations

import dataclasses

from django.http import HttpRequest, HttpResponse
from django.utils.cache import add_never_cache_headers

from ...deposit import links, selectors
from ...metadata.accept import AcceptError, Wanted, accept
from ...metadata.formats import FORMATS
from ...metadata.record import Record
from ...metadata.selectors import record_of
from ...protocol.persistent_url import PersistentUrl
from ...web.addresses import base_url
from ...web.formats import bad_request, render
from .. import formats, reading
from .. import resolve as resolver

__all__ = ["AcceptError", "applied", "asked", "bad_accept", "rendered", "tombstone",
           "tombstone_record", "wanted"]


def wanted(request: HttpRequest) -> Wanted | None:
    """What the request's Accept header asks for (None: the redirect); AcceptError."""
    return accept(request.META.get("HTTP_ACCEPT", ""))


def bad_accept(error: AcceptError) -> HttpResponse:
    response = bad_request(error)
    add_never_cache_headers(response)
    return response


def _metadata_verb(url: PersistentUrl) -> str | None:
    """The argument of the URL's GetMetadata verb ("" for a bare ``:``), or None."""
    for verb in url.verbs:
        name, _, argument = verb.partition("(")
        if name == "GetMetadata":
            return argument.rstrip(")")
    return None


def applied(url: PersistentUrl, chosen: Wanted | None) -> PersistentUrl:
    """The persistent URL asking also for the metadata chosen: ``GetMetadata(<format>)`` after
    its verbs (``!`` → ``!:(bibtex)``, ``+(pt)`` → ``+(pt):(bibtex)``), unless it names
    metadata, a file or the file list already."""
    if (chosen is None or url.filepath is not None or "GetFileList" in url.verbs
            or _metadata_verb(url) is not None):
        return url
    return dataclasses.replace(url, verbs=(*url.verbs, f"GetMetadata({chosen.metadata})"))


def asked(url: PersistentUrl, chosen: Wanted | None) -> Wanted | None:
    """The format a (negotiated) persistent URL wants its answer in, or None (a page)."""
    name = _metadata_verb(url)
    if name not in FORMATS:
        return None
    return chosen if chosen is not None and chosen.metadata == name else Wanted(name)


def rendered(request: HttpRequest, url: PersistentUrl, outcome: resolver.Outcome,
             chosen: Wanted | None) -> HttpResponse | None:
    """The format asked, rendered here from the oai_dc record an Archive that knows no other
    format gave (a stand-in answer, resolver/formats.py), with the Record every format of an
    item held here is built from; None when that record cannot be fetched or read."""
    fmt = asked(url, chosen)
    here = f"{request.scheme}://{request.get_host()}"  # this resolver, as the reader reached it
    record = formats.record_from(outcome.answer, outcome.hit.relation, outcome.url,
                                 outcome.ibi, here) if fmt is not None else None
    if record is None:
        return None
    response = render(record, fmt)
    add_never_cache_headers(response)
    return response


def tombstone_record(request: HttpRequest, outcome: resolver.Outcome) -> Record:
    """The tombstone's Record: ours from our records, another Archive's from its answer."""
    answer = outcome.answer
    forms = dict(zip(answer.forms()[0::2], answer.forms()[1::2], strict=False))
    rep = reading.ibi_in(answer.forms()) or outcome.ibi
    item = selectors.item_by_ibi(rep) if answer.source.local else None
    if item is not None:
        return record_of(item, base_url(request))
    here = f"{request.scheme}://{request.get_host()}"  # this resolver, as the reader reached it
    return Record(ibi=rep, ibip=forms.get("ibip", ""), title=rep,
                  persistent_url=links.persistent_url(rep, here),
                  state="Deleted")


def tombstone(request: HttpRequest, url: PersistentUrl, outcome: resolver.Outcome,
              chosen: Wanted | None) -> HttpResponse | None:
    """410 with the tombstone's citation in the format asked; None when the outcome is no
    tombstone or no format was asked (the HTML tombstone page answers then)."""
    fmt = asked(url, chosen)
    if outcome.kind != "deleted" or outcome.answer is None or fmt is None:
        return None
    response = render(tombstone_record(request, outcome), fmt, status=410)
    add_never_cache_headers(response)
    return response
