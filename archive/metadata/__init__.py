"""An item described in the formats PID clients, citation managers and harvesters speak.

- record: `Record`, the one plain description every format is built from (pure).
- formats: `FORMATS`, the names, media types and profiles of the formats served.
- selectors: `record_of(item, request)`, the Record of a stored item.
"""
__all__ = ["formats", "record", "selectors"]
