"""Review before publication (issue 35): roles per collection, workflows as data, submissions
and their tasks.

- policy.py: THE rule, pure: who may do which transition, and `may_publish_directly` /
  `check_deposit`, which every write path asks (deposit/services.py `item_deposit` through
  the app config)
- selectors.py: roles a person holds in a collection, a collection's workflow, the tasks in
  a person's pools (computed from the roles when asked, never kept per person)
- tasks.py: the beat's nightly publication of what was approved for a day that has come
- services.py: the transitions, atomic, with optimistic concurrency (a stale version: 409);
  publication deposits the item (deposit/services.py) and mints its IBI then, not before

The models are archive/models/review.py.
"""
__all__ = ["policy", "selectors", "services"]
