"""The metadata registry (issue 34): which fields a value may name, `schema.element.qualifier`,
and what its authority id may be.

- names.py: a field's name read and written, a qualified value as the edges give it (pure)
- authorities.py: an authority id checked (ORCID iD, Lattes CV id, another authority's key)
- selectors.py: the registry's fields by name, in one query
- services.py: a field added or changed (the librarians' admin)
- seed.py: DSpace 7's registries and the thesis fields, put back where the registry is empty

The schemas and fields themselves are models (archive/models/registry.py), seeded by
migration 0028 from DSpace 7's registries in data/.
"""
__all__ = ["authorities", "names", "seed", "selectors", "services"]
