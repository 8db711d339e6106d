"""Who may see what: access levels, embargoes, secret links, requests for a copy, the audit
trail (issue 26). Every channel that can reveal a file (its bytes, URL, name, size, checksum)
asks `policy`, the one decision point.

- policy: the decision (pure): levels, readers, whether a file may be read or shown.
- selectors: who is privileged, what a secret link's token opens.
- services: links made and revoked, requests answered (mailed), embargoes lifted, reads
  recorded. An item's level is set by deposit.services `item_set_access`.
- tasks: lifting embargoes every night, mailing answers.
"""
__all__ = ["policy", "selectors", "services", "tasks"]
