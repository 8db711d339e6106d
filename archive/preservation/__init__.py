"""Preservation: copies from other Archives, migration and hand-over of Originals, fixity,
BagIt export and rebuild, and the events (PREMIS) that tell what was done.

- copies: copy and refresh items held by other Archives (RTC-11 §5.2).
- migration: an Original handed over from one Archive to another, never two at once.
- peer: another Archive running this software, over its REST API.
- fixity: hash stored bytes again and compare; every check kept; every file within 90 days in
  daily slices; the alarm.
- bagit: one BagIt bag per item; the database rebuilt from them.
- ocfl: the collection as an OCFL 1.1 storage root; the database rebuilt from one.
- lockss: LOCKSS manifests (Rede Cariniana), collection by collection and year by year.
- jobs: a copy asked for, kept in the database until done (a killed worker's taken over).
- tasks: copies and fixity in the background.
- events: the preservation events (PREMIS 3) every action records, and their agents.
- premis: an item's events as PREMIS 3.0 XML (premis.xml in its bag), and read back.
- formats: each file's format from its content (PRONOM, siegfried), the format-risk report.
"""
__all__ = ["bagit", "copies", "events", "fixity", "formats", "jobs", "lockss", "migration",
           "ocfl", "peer", "premis", "tasks"]
