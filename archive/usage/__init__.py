"""Usage: accesses counted and reported (COUNTER R5), downloads here and acknowledgments from
resolvers. Who may read at all is archive/access/.

- counter: daily counts written in batches, after the response went out.
- filters: COUNTER R5's rules (the robots list, double clicks), applied by the counter; the
  resolver asks `is_robot` before it acknowledges an access to another Archive only when the
  operator set IBI_ACKNOWLEDGMENT_FILTERS_ROBOTS.
- selectors: the statistics per item, per edition family and per translation family.
"""
__all__ = ["counter", "filters", "selectors"]
