"""{% item_statistics item as stats %}: the access statistics (accesses/selectors.py) for a page."""
from __future__ import annotations

from django import template

from ..accesses.selectors import item_statistics as _item_statistics
from ..models import Item

register = template.Library()


@register.simple_tag
def item_statistics(item: Item) -> dict:
    return _item_statistics(item)
