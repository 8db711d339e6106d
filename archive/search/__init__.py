"""Search and browse: full text on PostgreSQL, folded substrings on SQLite.

- query: a reader's search text read into terms, and accent folding (pure).
- selectors: `search_items`, `filtered`, `Results` (capped counts, the first results' ids),
  `facets`, the home page's figures.
- fulltext: search inside files (issue 37): the items whose pages open to all match, and a
  result's matching pages with their snippets; never a closed file's text.
- lookup: `items_named`, the items a whole identifier names (IBI, Handle, DOI) by indexed
  lookups, for the admin's search.
- index: `reindex`, the rebuild of the search entries in short batches by id.

The search entries are written by the database, never by Python: the functions and triggers
of migration 0007_full_text_search (0010 for the refresh as it is now) keep them current on
every write to an item or its Dublin Core.
"""
__all__ = ["fulltext", "index", "lookup", "query", "selectors"]
