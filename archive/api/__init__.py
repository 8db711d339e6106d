"""The REST API under /api/: thin DRF views and serializers over deposit's services, as
pretix splits its API.

- views: /api/items/, an item's files, statistics and hand-over, /api/archive.
- serializers: what is answered and what is taken.
- pagination: the item list, walked by cursor.
- permissions: anonymous reads, writes by model permission.
- exceptions: every error as {"detail": …} with its status.
- schema: the OpenAPI schema's own rules (anonymous reads, the shape of errors).
- urls: the routes.
"""
# What the project uses: the routes, /api/archive, and the schema and error rules settings name.
__all__ = ["exceptions", "schema", "urls", "views"]
