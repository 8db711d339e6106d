"""Review before publication (issue 35): roles per collection, workflows as data, submissions
and their tasks.

- policy.py: THE rule, pure: who may do which transition, and `may_publish_directly` /
  `check_deposit`, which every write path asks (deposit/services.py `item_deposit` through
  the app config)
- selectors.py: roles a person holds in a collection, a collection's workflow, the tasks in
  a person's pools (computed from the roles when asked, never kept per person)
- notices.py: the mails owed to whoever must act next after a transition, and each
  reviewer's daily digest; kept until mailed (a mail server's failure delays, never loses)
- tasks.py: the beat's nightly publication of what was approved for a day that has come, and
  the mailing of the notices and digests
- services.py: the transitions, atomic, with optimistic concurrency (a stale version: 409);
  publication deposits the item (deposit/services.py) and mints its IBI then, not before

The models are archive/models/review.py.
"""
__all__ = ["notices", "policy", "selectors", "services", "tasks"]
