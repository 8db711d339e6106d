"""Coming from DSpace: a collection in (and out), every old link kept.

- imports: `importsaf`, a Simple Archive Format export (folder or zip) into items.
- exports: `exportsaf`, items out as Simple Archive Format for DSpace's ItemImport.
- harvest: `harvest`, the records of an OAI-PMH repository into items, resumably.
- oaipmh: OAI-PMH answers, ore and mets file lists read strictly (no database).
- remote: the harvester's guarded HTTP (allowed hosts only, caps, Retry-After).
- saf: the format itself, read and written (pure but for messages).
- crosswalk: DSpace's qualified Dublin Core ↔ ours, access and editions (no database).
- handles: Handles and DSpace UUIDs as they are written (pure).
- packages: a folder or a zip read safely (no zip slip, no links, sizes capped).
- services: an item written with its alternate identifiers (Handle, UUIDs, OAI identifier).
- ibis: an item that comes with an IBI keeps it: held, copied, migrated or restored, never
  minted again.
- selectors: the item or file an old identifier names.
- report: what became of each item, as CSV.
- access: what a restricted DSpace item becomes here.
- placement: which collections an item goes into (its SAF `collections` file or its OAI-PMH
  header's `col_` sets, the map of DSpace Handles to our collections).
"""
__all__ = ["access", "crosswalk", "exports", "handles", "harvest", "ibis", "imports", "oaipmh",
           "packages", "placement", "remote", "report", "saf", "selectors", "services"]
