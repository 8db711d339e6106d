"""Preservation for librarians (issue 38): an item's event history on its page, and the
format-risk report (each file's format from its content, by count and size).

`PreservationAdminMixin` is mixed into ItemAdmin (archive/admin/items.py): the read-only
"Preservation events" section of an item's page, its files' events among them (the file
column), and the page admin/archive/item/formats/. Both need archive.view_premisevent,
which the Librarians group holds; nothing here writes.
"""
from __future__ import annotations

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.template.defaultfilters import filesizeformat
from django.template.response import TemplateResponse
from django.urls import path
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext

from ..models import Item, PremisEvent
from ..preservation import events, formats

EVENTS_SHOWN = 500  # the newest an item's page lists; the API walks them all


def may_read_events(request: HttpRequest) -> bool:
    return request.user.has_perm("archive.view_premisevent")


def event_table(item: Item) -> str:
    """The item's events, newest first, as a table (the file column names a file's)."""
    found = list(events.of_item(item.ibi).order_by("-at", "-id")[:EVENTS_SHOWN])
    if not found:
        return _("No preservation event recorded yet.")
    rows = format_html_join("", (
        '<tr class="outcome-{}"><td><time datetime="{}">{}</time></td><td>{}</td>'
        "<td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>"), (
        (e.outcome, e.at.isoformat(), timezone.localtime(e.at).strftime("%Y-%m-%d %H:%M:%S"),
         e.get_type_display(), e.file or "—", _agent_said(e), e.get_outcome_display(),
         " — ".join(part for part in (e.detail, e.outcome_detail) if part))
        for e in found))
    return format_html(
        '<div class="ibi-files-wrap"><table class="ibi-files ibi-events"><thead><tr>'
        "<th>{}</th><th>{}</th><th>{}</th><th>{}</th><th>{}</th><th>{}</th></tr></thead>"
        "<tbody>{}</tbody></table></div>",
        pgettext("PREMIS event", "when"), _("event"), _("file"), _("agent"), _("outcome"),
        _("detail"), rows)


def _agent_said(event: PremisEvent) -> str:
    agent = event.agent
    return f"{agent.name} ({agent.get_kind_display()})"


class PreservationAdminMixin:
    """For ItemAdmin: the events section and the format-risk report."""

    preservation = (gettext_lazy("Preservation events"), {
        "fields": ["event_history"],
        "description": gettext_lazy(
            "What was done to the item and its files (PREMIS 3): ingestion, publication, "
            "fixity and virus checks, format identification, copies, hand-overs, changes of "
            "metadata and access, deletion. Newest first; recorded once, never changed.")})

    @admin.display(description=gettext_lazy("History"))
    def event_history(self, obj: Item) -> str:
        return event_table(obj)

    def get_urls(self):
        return [path("formats/", self.admin_site.admin_view(self.formats_view),
                     name="archive_item_formats"), *super().get_urls()]

    def formats_view(self, request: HttpRequest) -> HttpResponse:
        if not may_read_events(request):
            raise PermissionDenied
        rows = formats.report()
        return TemplateResponse(request, "admin/archive/item/formats.html", {
            **self.admin_site.each_context(request), "opts": self.model._meta,
            "title": _("Formats held, and their risk"),
            "rows": [{**row, "size": filesizeformat(row["bytes"])} for row in rows],
            "files": sum(row["files"] for row in rows),
            "size": filesizeformat(sum(row["bytes"] for row in rows)),
            "at_risk": sum(row["files"] for row in rows if not row["open"])})
