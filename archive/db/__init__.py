"""The database as every part of the app shares it: infrastructure, no standard here.

- changes: the change token the database renews at the commit of every write to items,
  files, Dublin Core and search entries, and `Store`, answers kept per process under it.
- replica: reads that may lag (home, search, OAI-PMH, statistics) sent to the read replica,
  and the router that does it.
- cache: Django's cache on Redis, in each process's own memory while Redis fails.
- arrays: `among`, a column among many ids as one array parameter on PostgreSQL.
- leases: leased, retried work (the queues kept in the database): take due rows, renew,
  give back after a backoff.
- append_only: the database refuses to change or delete a PREMIS event (but for a flush).
"""
__all__ = ["append_only", "arrays", "cache", "changes", "leases", "replica"]
