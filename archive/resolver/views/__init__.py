"""The resolver's HTTP edge: persistent URLs and the resolver service.

- persistent_urls: ``/<ibi>[mdf][/path]`` → a 302 with its Link headers, or an alert page.
- negotiation: content negotiation (Accept → a metadata format), tombstones per format.
- memento: Memento (RFC 7089): the TimeGate on persistent URLs, the TimeMap and TimeGate
  routes.
- inspection: ``/inspect/<ibi>[mdf][/path]``: what a resolution found, as a page or JSON.
- service: the resolver service (§7.2) at ``/J8LNKB5R7W/3FUQHC5``.

The site's catch-all route (archive/urls.py `dispatch`) chooses between these and the archive
service's view.
"""
from .inspection import inspect
from .memento import timegate, timemap
from .persistent_urls import persistent_url_view
from .service import is_resolver_service, resolver_service_view

__all__ = ["inspect", "is_resolver_service", "persistent_url_view", "resolver_service_view",
           "timegate", "timemap"]
