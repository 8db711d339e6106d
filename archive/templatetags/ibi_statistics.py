"""{% item_statistics item as stats %}: the access statistics (usage/selectors.py) for a page."""
from __future__ import annotations

from django import template

from ..db import replica
from ..models import Item
from ..usage import counter as access_counter
from ..usage.selectors import item_statistics as _item_statistics

register = template.Library()


@register.simple_tag
def item_statistics(item: Item) -> dict:
    access_counter.flush()  # what this process counted is written first: the page shows it
    with replica.lagging_reads():  # counts may lag: from the read replica when there is one
        return _item_statistics(item)
