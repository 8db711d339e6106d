"""Usage: accesses counted and reported (COUNTER R5), downloads here and acknowledgments from
resolvers. Who may read at all is archive/access/.

- counter: daily counts written in batches, after the response went out.
- filters: COUNTER R5's rules (the robots list, double clicks), applied by the counter; the
  resolver asks `is_robot` before it acknowledges an access to another Archive only when the
  operator set IBI_ACKNOWLEDGMENT_FILTERS_ROBOTS.
- selectors: the statistics per item, per edition family and per translation family; the
  COUNTER API's key lookup.
- cop: COUNTER R5.1's Code of Practice as plain functions: the reports, their filters and
  attributes, the Exceptions, Data_Type and YOP.
- rollup: a month's daily counts rolled up into what the reports and dashboards read
  (tasks: on day 1 of every month); reports: the Platform and Item Reports (streamed).
- dashboard, charts: the librarians' usage dashboards, their SVG charts.
- services: the COUNTER API's keys issued and revoked.
"""
__all__ = ["charts", "cop", "counter", "dashboard", "filters", "reports", "rollup",
           "selectors", "services", "tasks"]
