"""Harvesting: the OAI-PMH 2.0 data provider and its metadata formats.

- oai: the /oai endpoint.
- oai_dc: an item's Dublin Core as an oai_dc record (pure).
"""
__all__ = ["oai", "oai_dc"]
