"""An item described in the formats PID clients, citation managers and harvesters speak.

- record: `Record`, the one plain description every format is built from (pure).
- formats: `FORMATS`, the names, media types and profiles of the formats served.
- signposting: FAIR Signposting's typed links of an item, as a Link header, <link> elements
  and RFC 9264 linksets (pure).
- highwire: the Highwire Press citation_* meta tags Google Scholar reads (pure).
- selectors: `record_of(item, request)`, the Record of a stored item; `signposts_of`, its
  Signposting.
"""
__all__ = ["formats", "highwire", "record", "selectors", "signposting"]
