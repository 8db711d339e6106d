"""The REST API under /api/: thin DRF views and serializers over deposit's services.

- items: /api/items/ and an item's files.
- copies: an item's statistics and its hand-over.
- archive: /api/archive.
- urls: the routes.
- schema: the OpenAPI schema's own rules (anonymous reads, the shape of errors).
"""
# What the project uses: the routes, /api/archive, and the schema and error rules settings name.
__all__ = ["archive", "items", "schema", "urls"]
