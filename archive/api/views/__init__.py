"""The API's views: thin DRF views over the services and selectors.

- items: /api/items/, /api/items/<ibi>, an item's files.
- copies: an item's statistics and its hand-over to another Archive.
- archive: /api/archive, who this Archive is for the resolution system.
- links: an item's secret links (archive/access/), for librarians.
"""
