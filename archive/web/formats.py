"""A Record as the HTTP answer of one metadata format: what the item's metadata pages
(archive/site/metadata_formats.py) and the resolver's content negotiation and tombstones
(archive/resolver/views/negotiation.py) both answer. A citation that cannot be rendered is a
400 saying why, in the reader's language (the pure modules' messages are templates).
"""
from __future__ import annotations

from django.http import HttpResponse
from django.utils.translation import gettext as _

from ..metadata import accept, csl, oai_dc, serialize
from ..metadata.record import Record
from ..models import DcElement, Item

_TEXT = "text/plain; charset=utf-8"


def dc_values(record: Record) -> dict[str, list[str]]:
    """oai_dc elements of a Record (a tombstone's: what its Record still says)."""
    return {DcElement.TITLE: [record.title],
            DcElement.CREATOR: [c.name for c in record.creators],
            DcElement.SUBJECT: list(record.subjects),
            DcElement.DESCRIPTION: list(record.descriptions),
            DcElement.PUBLISHER: [record.publisher] if record.publisher else [],
            DcElement.CONTRIBUTOR: list(record.contributors),
            DcElement.DATE: [record.date] if record.date else [],
            DcElement.TYPE: list(record.types), DcElement.FORMAT: list(record.formats),
            DcElement.IDENTIFIER: [record.persistent_url,
                                   *map(oai_dc.handle_url, record.handles), *record.identifiers],
            DcElement.LANGUAGE: [record.language] if record.language else [],
            DcElement.RELATION: list(record.relations), DcElement.RIGHTS: list(record.rights)}


def bad_request(error: csl.CitationError) -> HttpResponse:
    """400 saying why, in the reader's language (the pure modules' messages are templates)."""
    reason = _(error.message) % error.params if error.params else _(error.message)
    return HttpResponse(_("Cannot answer in this format: %(reason)s\n") % {"reason": reason},
                        content_type=_TEXT, status=400)


def render(record: Record, wanted: accept.Wanted, *, item: Item | None = None,
           status: int = 200) -> HttpResponse:
    """The answer of one record in one format (a bibliography: 400 when its CSL style
    cannot be rendered). `item`: the live item, for oai_dc's complete Dublin Core."""
    if wanted.format == "oai_dc":
        values = (oai_dc.item_values(item, identifiers=[
            record.persistent_url, *map(oai_dc.handle_url, record.handles)])
                  if item is not None and not item.is_deleted else dc_values(record))
        return HttpResponse(oai_dc.to_bytes(oai_dc.dc_element(values)), status=status,
                            content_type=serialize.content_type("oai_dc"))
    try:
        body, content_type = serialize.cite(record, wanted)
    except csl.CitationError as exc:
        return bad_request(exc)
    return HttpResponse(body, content_type=content_type, status=status)
