"""Review before publication (issue 35): roles per collection, workflows as data, submissions
and their tasks.

- policy.py: THE rule, pure: who may do which transition, and `may_publish_directly` /
  `check_deposit`, which every write path asks (deposit/services.py `item_deposit` through
  the app config)
- selectors.py: roles a person holds in a collection, a collection's workflow, the tasks in
  a person's pools (computed from the roles when asked, never kept per person)
- tasks.py: the beat's nightly publication of what was approved for a day that has come;
  the checks before review, nudged by the edges and run by the beat when a nudge is lost;
  the mailing of the notices and digests
- checks.py: the checks before review decided, pure (a file's format against the accepted
  ones, a PDF's text layer, clamscan's answer, a likely duplicate, which result blocks)
- checking.py: the checks run (through tools.py: siegfried, pypdf, ClamAV) and kept per
  content; `refuse_blocked`, which `submit` asks
- notices.py: the mails owed to whoever must act next after a transition, and each
  reviewer's daily digest; kept until mailed (a mail server's failure delays, never loses)
- services.py: the transitions, atomic, with optimistic concurrency (a stale version: 409);
  publication deposits the item (deposit/services.py) and mints its IBI then, not before

The models are archive/models/review.py.
"""
__all__ = ["checking", "checks", "notices", "policy", "selectors", "services", "tasks"]
