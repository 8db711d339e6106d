"""Accesses counted and reported: downloads here and acknowledgments from resolvers.

- counter: counts written in batches, after the response went out.
- selectors: the statistics per item and per edition family.
"""
__all__ = ["counter", "selectors"]
