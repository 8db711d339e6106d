"""The public site: pages, downloads and citations for readers.

- views: home, search, an item's landing, files and metadata pages.
- downloads: /col/<repository name>/doc/<file>.
- citation: the APA-like citation line of the API's tombstones (pure).
- cite: the citation block of the pages: the CSL styles a reader picks (ABNT, APA, Chicago,
  IEEE, Vancouver), rendered in the reader's language.
- languages: language tags named in the reader's language (pure, Babel's names).
- months: the month names Brazilian Portuguese writes in lower case (catalogue only).
- metadata_formats: /items/<repository name>/metadata/<format>, an item's record per format.
- indexing: /robots.txt and the sitemaps, paged for millions of items.
- linksets: an item's FAIR Signposting linkset (RFC 9264), text and JSON.
- throttling: the site's rate limits (API writes, wrong tokens, refused registration keys,
  the admin login's lockout answer).
- dropped_connections: the middleware that retries a read and answers a write 503 when the
  database dropped the connection.
- replica: reads that may lag (home, search, OAI-PMH, statistics) go to the read replica.
"""
__all__ = ["citation", "cite", "downloads", "dropped_connections", "indexing", "languages",
           "linksets", "metadata_formats", "replica", "throttling", "views"]
