"""RTC-11's wire, shared by the archive service and the resolver.

- pairs: the text/plain pair lists of every answer (Table 6.2).
- persistent_url: the grammar of /<ibi>[modifier][/path] (Tables 8.1–8.5).
- client: outgoing HTTP whose answers are pair lists (guarded, bounded, concurrent): the
  resolver's fan-out, and the address rules (the deny-list) of all outgoing HTTP.
- outgoing: the one client for every other outgoing request (other Archives' REST API,
  OAI-PMH sources, documents): guarded, redirects and Retry-After, capped, hashed downloads.
"""
__all__ = ["client", "outgoing", "pairs", "persistent_url"]
