"""Submission profiles and controlled vocabularies in the admin: librarians order a profile's
fields, make them required or repeatable, choose how each is entered and its help, and keep
the vocabularies' terms. A collection names its profile on its own page (communities.py)."""
from __future__ import annotations

from django import forms
from django.contrib import admin
from django.db.models import Count
from django.forms.utils import flatatt
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from ..models import ProfileField, SubmissionProfile, Vocabulary, VocabularyTerm
from ..web.profile_fields import LONG_LIST


class _Select(forms.Select):
    """A list drawn without a template for each of its options: a profile's page has a score
    of fields to choose among the registry's 250, which Django's option templates took
    seconds to draw."""

    def render(self, name, value, attrs=None, renderer=None) -> str:
        widget = self.get_context(name, value, attrs)["widget"]
        options = format_html_join("", "<option value=\"{}\"{}>{}</option>", (
            (option["value"], " selected" if option["selected"] else "", option["label"])
            for _group, group_options, _index in widget["optgroups"]
            for option in group_options))
        return format_html("<select name=\"{}\"{}>{}</select>", widget["name"],
                           flatatt(widget["attrs"]), options)


class ProfileFieldInline(admin.StackedInline):
    model = ProfileField
    extra = 1
    fields = ["position", "field", "language", "required", "repeatable", "input_type",
              "vocabulary", "authority", "label_pt_br", "label_en", "help_pt_br", "help_en"]
    ordering = ["position", "id"]

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("field__schema")

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        kwargs["widget"] = _Select
        field = super().formfield_for_foreignkey(db_field, request, **kwargs)
        if db_field.name == "field":  # by name, dc.contributor.advisor, in one query
            field.queryset = field.queryset.select_related("schema")
        return field


@admin.register(SubmissionProfile)
class SubmissionProfileAdmin(admin.ModelAdmin):
    list_display = ["name_pt_br", "name_en", "slug"]
    search_fields = ["slug", "name_pt_br", "name_en"]
    inlines = [ProfileFieldInline]
    fieldsets = [(None, {"fields": ["slug", "name_pt_br", "name_en", "description"],
                         "description": _(
                             "The fields a collection's items have: the admin's item form "
                             "and the API refuse a field outside it, a required one missing, "
                             "a single-valued one repeated, a value outside its list.")})]


# Stacked, not tabular: a tabular inline's inputs are named by their column only (axe-core:
# "label"), a stacked one's by their own labels.
class TermInline(admin.StackedInline):
    model = VocabularyTerm
    extra = 1
    fields = ["position", "value", "label_pt_br", "label_en"]


@admin.register(Vocabulary)
class VocabularyAdmin(admin.ModelAdmin):
    """A short vocabulary's terms are edited on its page; a long one's (CNPq's table: some
    1 300 terms, thousands of inputs, more than a request may send) on a searchable list of
    its own, which its page links to."""

    list_display = ["name_pt_br", "name_en", "slug", "term_count"]
    search_fields = ["slug", "name_pt_br", "name_en"]
    inlines = [TermInline]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(term_total=Count("terms"))

    @admin.display(description=_("terms"), ordering="term_total")
    def term_count(self, obj: Vocabulary) -> int:
        return obj.term_total

    def _long(self, obj: Vocabulary | None) -> bool:
        return obj is not None and obj.terms.count() > LONG_LIST

    def get_inlines(self, request, obj):
        return [] if self._long(obj) else super().get_inlines(request, obj)

    def get_fields(self, request, obj=None):
        fields = ["slug", "name_pt_br", "name_en"]
        return [*fields, "term_list"] if self._long(obj) else fields

    def get_readonly_fields(self, request, obj=None):
        return ["term_list"] if self._long(obj) else []

    @admin.display(description=_("terms"))
    def term_list(self, obj: Vocabulary) -> str:
        count = obj.terms.count()
        url = reverse("admin:archive_vocabularyterm_changelist")
        return format_html('<a href="{}?vocabulary__id__exact={}">{}</a>', url, obj.pk, ngettext(
            "%(count)d term: find and edit it on the list of terms",
            "%(count)d terms: find and edit them on the list of terms", count) % {"count": count})


@admin.register(VocabularyTerm)
class VocabularyTermAdmin(admin.ModelAdmin):
    """Every vocabulary's terms, searched by value or label: how a long vocabulary's are
    kept."""

    list_display = ["value", "label_pt_br", "label_en", "vocabulary", "position"]
    list_filter = ["vocabulary"]
    search_fields = ["value", "label_pt_br", "label_en"]
    list_select_related = ["vocabulary"]
    list_per_page = 100
    fields = ["vocabulary", "position", "value", "label_pt_br", "label_en"]
