"""RTC-11's wire, shared by the archive service and the resolver.

- pairs: the text/plain pair lists of every answer (Table 6.2).
- persistent_url: the grammar of /<ibi>[modifier][/path] (Tables 8.1–8.5).
- client: outgoing HTTP whose answers are pair lists (guarded, bounded, concurrent).
"""
__all__ = ["client", "pairs", "persistent_url"]
