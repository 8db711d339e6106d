"""What is inside the files, for librarians: each file's text extraction, the flagged ones
first (an empty or garbage result, a failure with its reason: never a silent success), with a
filter "flagged"; an action reads the selected files again. The item's own page lists its
files' flagged extractions too (items.py `text_extraction`). Rows change through
archive/fulltext/ only."""
from __future__ import annotations

from django.contrib import admin, messages
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from ..fulltext import selectors, tasks
from ..models import FileExtraction, Item
from ..web import nudges
from .copies import ReadOnlyAdmin


@admin.register(FileExtraction)
class FileExtractionAdmin(ReadOnlyAdmin):
    list_display = ["file", "state", "flagged", "method", "pages", "reason", "finished"]
    list_filter = ["flagged", "state", "method"]
    search_fields = ["file__item__ibi", "file__item__ibip", "file__name"]
    list_select_related = ["file__item"]
    actions = ["extract_again"]
    list_per_page = 100
    empty_value_display = "—"

    def get_queryset(self, request):
        return super().get_queryset(request).order_by("-flagged", "-finished", "-pk")

    @admin.action(description=_("Read the selected files again"), permissions=["view"])
    def extract_again(self, request: HttpRequest, queryset) -> None:
        ids = list(queryset.values_list("file_id", flat=True))
        if ids:
            nudges.soon(tasks.extract_files, *ids)
        self.message_user(request, ngettext(
            "%(n)d file will be read again.", "%(n)d files will be read again.", len(ids))
            % {"n": len(ids)}, messages.SUCCESS)


def flagged_table(item: Item) -> str:
    """The item's files whose extraction a librarian should look at, with their reasons."""
    rows = list(selectors.flagged_of(item))
    if not rows:
        return _("No problem found.") if item.pk else ""
    return format_html("<ul>{}</ul>", format_html_join("", '<li><a href="{}">{}</a>: {}{}</li>', (
        (reverse("admin:archive_fileextraction_change", args=[row.pk]), row.file.name,
         row.get_state_display(), f" ({row.reason})" if row.reason else "") for row in rows)))
