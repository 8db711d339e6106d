"""Preservation: copies from other Archives, migration and hand-over of Originals, fixity,
and BagIt export and rebuild.

- copies: copy and refresh items held by other Archives (RTC-11 §5.2).
- migration: an Original handed over from one Archive to another, never two at once.
- peer: another Archive running this software, over its REST API.
- fixity: hash stored bytes again and compare.
- bagit: one BagIt bag per item; the database rebuilt from them.
- jobs: a copy asked for, kept in the database until done (a killed worker's taken over).
- tasks: copies and fixity in the background.
"""
__all__ = ["bagit", "copies", "fixity", "jobs", "migration", "peer", "tasks"]
