"""The tree's pages: a community (its sub-communities and collections, its newest items) and a
collection (its items newest first, with the facets, paged: the site's browse filtered by the
collection, archive/search/selectors.py, with the same caps), and each collection's feeds of
new items, Atom and RSS 2.0 (Django's syndication framework)."""
from __future__ import annotations

import copy

from django.contrib.syndication.views import Feed
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed, Rss201rev2Feed
from django.utils.translation import gettext as _

from ..communities import selectors as tree
from ..deposit import links, selectors
from ..models import Collection, Item
from ..search import selectors as searching
from ..web.addresses import base_url
from . import thumbnails
from .views import PAGE_SIZE, _facet_links, _figure

FEED_SIZE = 20


def community_page(request: HttpRequest, slug: str) -> HttpResponse:
    community = tree.community_by_slug(slug)
    if community is None:
        raise Http404(_("No community has this path."))
    newest = tree.newest_of(searching.search_items(), tree.collection_ids_under(community), 10)
    return render(request, "archive/site/community.html", {
        "community": community, "ancestors": tree.ancestors(community),
        "children": tree.community_tree(community),
        "recent": searching.in_order(selectors.summaries(), newest),
    })


def collection_page(request: HttpRequest, slug: str) -> HttpResponse:
    collection = tree.collection_by_slug(slug)
    if collection is None:
        raise Http404(_("No collection has this path."))
    criteria = {"collection": slug}
    results = searching.find(sort="newest", **criteria)
    page = Paginator(results, PAGE_SIZE).get_page(request.GET.get("page"))
    page.object_list = thumbnails.for_lists(
        searching.in_order(selectors.summaries(), list(page.object_list)))
    return render(request, "archive/site/collection.html", {
        "collection": collection,
        "ancestors": [*tree.ancestors(collection.community), collection.community],
        "page": page, "total": results.count(), "more": results.more,
        "cap": _figure(searching.COUNT_CAP), "sampled": results.sampled,
        "sample": _figure(searching.FACET_SAMPLE),
        "facets": _facet_links(request, results.facets(), criteria),
        "page_base": "?page=",
    })


class CollectionFeed(Feed):
    """A collection's newest items (owned and mapped), newest first: RSS 2.0."""

    feed_type = Rss201rev2Feed
    base = ""  # where the request reached this Archive: set on each request's own copy

    def __call__(self, request: HttpRequest, *args, **kwargs) -> HttpResponse:
        # One instance serves every request (urls.py): each request gets its own copy.
        mine = copy.copy(self)
        mine.base = base_url(request)
        return Feed.__call__(mine, request, *args, **kwargs)

    def get_object(self, request: HttpRequest, slug: str) -> Collection:
        found = tree.collection_by_slug(slug)
        if found is None:
            raise Http404(_("No collection has this path."))
        return found

    def title(self, collection: Collection) -> str:
        return collection.name

    def link(self, collection: Collection) -> str:
        return reverse("archive:collection", args=[collection.slug])

    def description(self, collection: Collection) -> str:
        return collection.description or _("New items of %(name)s") % {"name": collection.name}

    subtitle = description

    def items(self, collection: Collection) -> list[Item]:
        # The ids first, as the page reads them: the details' joins would turn the planner
        # away from reading the listing's order (1.4 s for a collection of 500 000 items).
        newest = searching.search_items(collection=collection.slug)
        ids = list(newest.values_list("pk", flat=True)[:FEED_SIZE])
        return searching.in_order(selectors.with_details(Item.objects.all()), ids)

    def item_title(self, item: Item) -> str:
        return item.title

    def item_description(self, item: Item) -> str:
        return " ".join(item.dc("description"))

    def item_link(self, item: Item) -> str:
        return links.landing_url(item.ibi, self.base)

    def item_guid(self, item: Item) -> str:
        return links.persistent_url(item.ibi, self.base)

    item_guid_is_permalink = True

    def item_author_name(self, item: Item) -> str | None:
        return "; ".join(item.dc("creator")) or None

    def item_pubdate(self, item: Item):
        return item.created

    def item_updateddate(self, item: Item):
        return item.updated


class CollectionAtomFeed(CollectionFeed):
    """The same, as Atom 1.0."""

    feed_type = Atom1Feed
