"""The public site: pages, downloads and citations for readers.

- views: home, search, an item's landing, files and metadata pages.
- downloads: /col/<repository name>/doc/<file>.
- citation: BibTeX and a readable citation (pure).
- throttling: the site's rate limits (API writes, wrong tokens, refused registration keys,
  the admin login's lockout answer).
- dropped_connections: the middleware that retries a read and answers a write 503 when the
  database dropped the connection.
- replica: reads that may lag (home, search, OAI-PMH, statistics) go to the read replica.
"""
__all__ = ["citation", "downloads", "dropped_connections", "replica", "throttling", "views"]
