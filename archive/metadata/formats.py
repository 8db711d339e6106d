"""The metadata formats an item is served in: one name each, as the persistent URL's metadata
modifier writes it (`:(bibtex)`), the archive service's `url.metadata(bibtex)` pair names it, and
`/items/<repository name>/metadata/<name>` serves it. Pure: no Django.

    >>> FORMATS["bibtex"].media_type
    'application/x-bibtex'
    >>> by_media_type("application/vnd.datacite.datacite+xml").name
    'datacite'
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Format:
    name: str  # as in :(name) and url.metadata(name)
    media_type: str  # what Accept asks for and Content-Type says
    extension: str  # of a download's file name
    profile: str = ""  # the schema or namespace (Signposting's profile, OAI's metadataNamespace)


FORMATS: dict[str, Format] = {f.name: f for f in (
    Format("oai_dc", "application/xml", "xml", "http://www.openarchives.org/OAI/2.0/oai_dc/"),
    Format("datacite", "application/vnd.datacite.datacite+xml", "xml",
           "http://datacite.org/schema/kernel-4"),
    Format("csljson", "application/vnd.citationstyles.csl+json", "json",
           "https://resource.citationstyles.org/schema/latest/input/json/csl-data.json"),
    Format("bibtex", "application/x-bibtex", "bib"),
    Format("ris", "application/x-research-info-systems", "ris"),
    Format("schemaorg", "application/ld+json", "jsonld", "https://schema.org/"),
)}


# The pair of an archive service's answers that announces these formats to resolvers, in the
# answers to a urlRequest asking for metadata: RTC-11's Table 8.4 names oai_dc only, so a
# resolver asks another Archive for the others only once it announced them
# (archive/resolver/formats.py).
ANNOUNCEMENT = "metadataformats"


def by_media_type(media_type: str) -> Format | None:
    """The format served as this media type (case-insensitive), or None."""
    wanted = media_type.strip().lower()
    return next((f for f in FORMATS.values() if f.media_type == wanted), None)
