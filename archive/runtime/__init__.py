"""What a process runs beside its requests, and how it copes with what it depends on:
infrastructure, no standard here.

- threads: a helper thread of this process, started when first needed, woken when work
  comes (the access counter's writer, the nudges to the broker).
- breaker: the circuit breaker (closed / open / half-open) over what may fail: an Archive
  the resolver asks, the cache's Redis, the read replica.
"""
__all__ = ["breaker", "threads"]
