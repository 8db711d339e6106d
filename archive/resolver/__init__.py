"""The resolver (RTC-11 §7–§8): persistent URLs to one URL, here or at another Archive.

- resolve: the resolution process of Figure 8.1, round after round (`resolve`, `Outcome`).
- relations: the relations of Table 9.5 as steps, and the verbs that ask for them (pure).
- languages: ``+`` without a language, by the reader's Accept-Language (pure).
- reading: one Archive's answer as the resolver reads it: its URL, or the IBI to ask next
  (the answers themselves are written by archive_service/answers.py).
- selection: the choice among the answers of a round (§8.2 step 3; pure).
- safety: only URLs on the Archive that gave them are taken.
- fanout: asking this Archive in process and the included Archives over HTTP at once.
- federation: one round's asking of the other Archives: what is remembered, the IBI's home
  Archive first, then every other one.
- memory: other Archives' answers remembered, and the IBIs nobody holds (Django's cache).
- health: how each other Archive answers: its circuit breaker, its last answer and times.
- report: what the administrator sees of the federation (every Archive, its breaker).
- acknowledgments: what the chosen Archive is owed (Table 8.11).
- service: the resolver service: registration, inclusion, exclusion.
- switch: this Archive switching itself on and off at a resolver.
- outbox: the acknowledgments owed, kept in the database until a worker sends them.
- tasks: the acknowledgments owed, sent by a worker.
- memento: Memento (RFC 7089) over edition chains: the TimeGate's choice, the TimeMap, the
  links that name a chain (pure; the site names chains on landing pages and files too).
- inspection: what a resolution found, for ``/inspect/<ibi>…``.
- messages: the errors of the pure persistent-URL parser and IBI codec, in the reader's
  language.
- views: the HTTP edge: persistent URLs (with content negotiation, Memento and inspection)
  and the resolver service.
"""
# What other packages use; the rest are the views' own (Celery finds the tasks).
__all__ = ["health", "memento", "report", "service", "switch", "views"]
