"""Harvesting: the OAI-PMH 2.0 data provider and its metadata formats, and the sitemaps.

- oai: the /oai endpoint (formats oai_dc, dim, oai_datacite, oai_openaire).
- sitemap: sitemaps and sitemap indexes for crawlers (pure).
- selectors: the items of a set, the sets with items, the pages of the sitemaps.

Inside: sets (the setSpecs, pure).
"""
__all__ = ["oai", "selectors", "sitemap"]
