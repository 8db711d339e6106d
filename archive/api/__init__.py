"""The REST API under /api/: thin DRF views and serializers over deposit's services.

- items: /api/items/ and an item's files.
- copies: an item's statistics and its hand-over.
- archive: /api/archive.
- urls: the routes.
- schema: the OpenAPI schema's own rules (anonymous reads, the shape of errors).
"""
__all__ = ["archive", "copies", "items", "schema", "urls"]
