"""Search and browse: full text on PostgreSQL, folded substrings on SQLite.

- query: a reader's search text read into terms, and accent folding (pure).
- selectors: `search_items`, `Results` (capped counts, the first results' ids), `facets`.
- index: `reindex`, the rebuild of the search entries in short batches by id.
- schema: the database's functions and triggers, installed by migration 0007.
"""
__all__ = ["index", "query", "schema", "selectors"]
