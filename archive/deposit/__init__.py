"""Items and their files: deposit, files, metadata, editions, translations, tombstones.

- services: every write (`item_deposit`, `add_files`, `set_metadata`, `tombstone`, …).
- selectors: every read of items by IBI and of their relations.
- links: the URLs handed out for items, from a base URL.
- storage: the uniform layout col/<repository name>/doc/<file> on Django's storage API.
- uploads: bounded-memory uploads, the checksum on the way in.
- pending: files on their way to a deposit (resumable tus uploads, an admin form's files kept
  after a validation error), outside col/ until a deposit stores them; swept when abandoned.
- limits: the file size and count limits, one rule for every way a file comes in.
- idempotency: Idempotency-Key, a deposit at most once per key.
- bulk_import: which files `manage.py importitems` may read (inside its folder, no links).
- content_types: the one rule for the content type a file is stored with.
- values: what a date (EDTF level 0) and a language tag (BCP 47) may be, and JSON from outside
  read within bounds (pure).
- controlled: the type and licence choices, stored as their URIs however named (pure; services).
- staging: the journal of files stored before their rows commit, which fsck reads (imports).
"""
__all__ = ["bulk_import", "content_types", "controlled", "idempotency", "limits", "links",
           "pending", "selectors", "services", "staging", "storage", "uploads", "values"]
