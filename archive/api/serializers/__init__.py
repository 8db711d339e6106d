"""The API's serializers: they translate, the services decide.

- items: an item's record (or its tombstone) as answered.
- inputs: what the writes take (deposit, files, a change, a deletion, a hand-over).
- fields: Dublin Core elements, creators, IBIs, checksums, files.
- statistics: an item's access counts.
"""
