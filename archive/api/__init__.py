"""The REST API under /api/: thin DRF views and serializers over deposit's services.

- items: /api/items/ and an item's files.
- copies: an item's statistics and its hand-over.
- archive: /api/archive.
- urls: the routes.
"""
__all__ = ["archive", "copies", "items", "urls"]
