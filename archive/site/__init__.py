"""The public site: pages, downloads and citations for readers.

- views: home, search, an item's landing, files and metadata pages.
- downloads: /col/<repository name>/doc/<file>.
- citation: BibTeX and a readable citation (pure).
"""
__all__ = ["citation", "downloads", "views"]
