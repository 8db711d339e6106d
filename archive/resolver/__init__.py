"""The resolver (RTC-11 §7–§8): persistent URLs to one URL, here or at another Archive.

- resolve: the resolution process of Figure 8.1, the fan-out and the choice.
- service: the resolver service: registration, inclusion, exclusion.
- switch: this Archive switching itself on and off at a resolver.
- tasks: the acknowledgment sent to the chosen Archive.
- memento: Memento (RFC 7089) over edition chains: the TimeGate's choice, the TimeMap (pure).
- inspection: what a resolution found, for ``?noredirect`` / ``?info``.
- messages: the errors of the pure persistent-URL parser and IBI codec, in the reader's
  language.
- views: the HTTP edge: persistent URLs (with content negotiation, Memento and inspection)
  and the resolver service.
"""
# What other packages use; resolve and tasks are the views' own (Celery finds the tasks).
__all__ = ["service", "switch", "views"]
