"""Sitemaps (https://www.sitemaps.org/protocol.html) built with lxml: a sitemap index and its
sitemaps, each of at most 50 000 URLs. Pure: no database, no request::

    >>> from datetime import UTC, datetime
    >>> print(urlset([("http://a.org/items/x", datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC))]
    ...              ).decode())  # doctest: +NORMALIZE_WHITESPACE
    <?xml version='1.0' encoding='UTF-8'?>
    <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://a.org/items/x</loc><lastmod>2026-01-02T03:04:05Z</lastmod></url></urlset>
"""
from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from lxml import etree

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
MAX_URLS = 50_000  # per sitemap, and sitemaps per index (the protocol's limits)


def w3c_datetime(moment: datetime) -> str:
    """The W3C Datetime a sitemap's lastmod takes, in UTC: 2026-01-02T03:04:05Z."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _document(root: str, child: str, entries: Iterable[tuple[str, datetime | None]]) -> bytes:
    top = etree.Element(f"{{{NS}}}{root}", nsmap={None: NS})
    for count, (loc, lastmod) in enumerate(entries, start=1):
        if count > MAX_URLS:
            raise ValueError(f"a sitemap holds at most {MAX_URLS} entries")
        entry = etree.SubElement(top, f"{{{NS}}}{child}")
        etree.SubElement(entry, f"{{{NS}}}loc").text = loc
        if lastmod is not None:
            etree.SubElement(entry, f"{{{NS}}}lastmod").text = w3c_datetime(lastmod)
    return etree.tostring(top, xml_declaration=True, encoding="UTF-8")


def urlset(urls: Iterable[tuple[str, datetime | None]]) -> bytes:
    """A sitemap: <urlset> of (page URL, last modified)."""
    return _document("urlset", "url", urls)


def sitemap_index(sitemaps: Iterable[tuple[str, datetime | None]]) -> bytes:
    """A sitemap index: <sitemapindex> of (sitemap URL, newest lastmod in it)."""
    return _document("sitemapindex", "sitemap", sitemaps)
