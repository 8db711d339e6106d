"""The item list's filters that no model field gives: the type (dc:type, one of the
vocabulary's choices) and the year (of dc:date, else of the deposit), both as the site's
/search narrows (search.selectors.filtered), so that a librarian and a reader find the same
items. The access level and the collection are the fields' own filters (ItemAdmin)."""
from __future__ import annotations

from django.contrib import admin
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from ..deposit import controlled
from ..search import selectors as search


class TypeFilter(admin.SimpleListFilter):
    title = _("type")
    parameter_name = "type"

    def lookups(self, request, model_admin) -> list[tuple[str, str]]:
        return [(uri, gettext(label)) for uri, label in controlled.TYPE_CHOICES]

    def queryset(self, request, queryset):
        return search.filtered(queryset, type=self.value()) if self.value() else queryset


class YearFilter(admin.SimpleListFilter):
    title = pgettext_lazy("a filter of the item list", "year")
    parameter_name = "year"

    def lookups(self, request, model_admin) -> list[tuple[str, str]]:
        return [(year, year) for year in search.years()]

    def queryset(self, request, queryset):
        value = self.value() or ""
        if not (len(value) == 4 and value.isdigit()):
            return queryset  # not a year: the list unfiltered, as for a value no item has
        return search.filtered(queryset, year=value)


class LanguageFilter(admin.AllValuesFieldListFilter):
    """Django's list of the languages there are, where an item without one (a tombstone, a
    report deposited without it) is named, not an empty link (axe-core: link-name)."""

    def choices(self, changelist):
        for choice in super().choices(changelist):
            if not choice["display"]:
                choice = {**choice, "display": gettext("(no language)")}
            yield choice
