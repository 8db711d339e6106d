"""What is inside an item's files (issue 37): their text page by page, OCR of the pages that
have none, and thumbnails of their first page.

- text: pure rules — a file's kind, text decoded whatever its encoding, cut into pages, and
  whether OCR's words are words (no Django).
- worker: what runs inside the sandbox, one job a process (no Django): a file's text, one
  page's OCR, a thumbnail.
- sandbox: runs the worker in a subprocess with limits (memory, CPU, time, no network, its
  own temporary directory, removed afterwards).
- services: extraction and thumbnails of a file, recorded (FileExtraction, FilePage); DSpace's
  TEXT and THUMBNAIL bundles kept as a file's text and thumbnail.
- selectors: the thumbnails a reader may see, as the access policy says.
- tasks: the Celery tasks (after a deposit commits; the due ones by the beat).
"""
__all__ = ["sandbox", "selectors", "services", "tasks", "text", "worker"]
