"""Coming from DSpace: a collection in (and out), every old link kept.

- imports: `importsaf`, a Simple Archive Format export (folder or zip) into items.
- saf: the format itself, read and written (pure but for messages).
- crosswalk: DSpace's qualified Dublin Core ↔ ours, access and editions (no database).
- handles: Handles and DSpace UUIDs as they are written (pure).
- packages: a folder or a zip read safely (no zip slip, no links, sizes capped).
- services: an item written with its alternate identifiers (Handle, UUIDs, OAI identifier).
- selectors: the item or file an old identifier names.
- report: what became of each item, as CSV.
- access: what a restricted DSpace item becomes here.
"""
__all__ = ["access", "crosswalk", "handles", "imports", "packages", "report", "saf",
           "services"]
