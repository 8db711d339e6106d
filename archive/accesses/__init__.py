"""Accesses counted and reported: downloads here and acknowledgments from resolvers.

- counter: daily counts written in batches, after the response went out.
- selectors: the statistics per item, per edition family and per translation family.

filters (COUNTER R5: robots, double clicks) is the counter's own.
"""
__all__ = ["counter", "selectors"]
