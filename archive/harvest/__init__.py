"""Harvesting: the OAI-PMH 2.0 data provider and its metadata formats, and the sitemaps.

- oai: the /oai endpoint.
- oai_dc: an item's Dublin Core as an oai_dc record (pure).
- sitemap: sitemaps and sitemap indexes for crawlers (pure).
"""
__all__ = ["oai", "oai_dc", "sitemap"]
