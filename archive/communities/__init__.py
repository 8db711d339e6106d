"""Communities and collections (issue 34): the tree items belong to.

- tree.py: the tree's shape, pure: a cycle found, a community's descendants
- services.py: the tree written (checked first: a slug taken, a cycle, a collection with items
  deleted are refused), items moved and mapped, the default collection
- selectors.py: the tree read, a collection's items, the OAI-PMH sets an item is in

The models are archive/models/collections.py.
"""
__all__ = ["selectors", "services"]
