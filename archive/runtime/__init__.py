"""What a process runs beside its requests, and how it copes with what it depends on:
infrastructure, no standard here.

- threads: a helper thread of this process, started when first needed, woken when work
  comes (the access counter's writer, the nudges to the broker).
"""
__all__ = ["threads"]
