"""Admin for copies and fixity: "Copy from another Archive", "Refresh from source", and the
files whose stored bytes fixity found changed or missing.

`CopiesAdminMixin` is mixed into ItemAdmin (archive/admin/items.py), whose import registers the
fixity changelist (an ItemFile admin) too. Work that talks to other Archives goes through the
Celery tasks (in process when no broker is set).
"""
from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.defaultfilters import filesizeformat
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from ..deposit import selectors, storage
from ..identifiers import ibi as ibilib
from ..models import CopyJob, FixityCheck, Item, ItemFile
from ..preservation import fixity, jobs, peer, tasks
from ..web import nudges


class ReadOnlyAdmin(admin.ModelAdmin):
    """Records that only services write: shown, never added, changed or deleted here."""

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class CopyForm(forms.Form):
    ibi = forms.CharField(label=_("IBI"), max_length=255,
                          help_text=_("either form, e.g. 8JMKD3MGP7W/3EPGUE5"))
    source = forms.CharField(label=_("Archive holding it"), max_length=255,
                             help_text=_("its base URL, e.g. https://archive-b.example.org"))

    def clean_ibi(self) -> str:
        text = self.cleaned_data["ibi"].strip()
        try:
            ibilib.parse(text)
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from None
        held = selectors.item_by_ibi(text)
        if held is not None and held.state != Item.State.COPY:
            raise forms.ValidationError(_("%(ibi)s is held here as %(state)s: an Archive "
                                          "cannot also hold a copy of it") %
                                        {"ibi": held.ibi, "state": held.get_state_display()})
        return text

    def clean_source(self) -> str:
        try:
            return peer.allowed_base(self.cleaned_data["source"])
        except peer.PeerError as exc:
            raise forms.ValidationError(str(exc)) from None


def _copy(modeladmin, request: HttpRequest, ibi: str, source: str) -> None:
    """Ask for the copy (a job in the database, preservation/jobs.py), nudge a worker without
    waiting for the broker, and say what the job's row says: queued, or (tasks in process)
    done. Never a task's result: there is no result backend."""
    job = jobs.request(ibi=ibi, source=source)
    nudges.soon(tasks.run_copy_job, job.pk)
    job.refresh_from_db()
    if job.state == CopyJob.State.DONE:
        modeladmin.message_user(request, _("Copy of %(ibi)s: %(outcome)s") % {
            "ibi": job.ibi, "outcome": job.outcome}, messages.SUCCESS)
    elif job.state == CopyJob.State.FAILED or job.outcome:
        modeladmin.message_user(request, _("Copy of %(ibi)s: %(outcome)s") % {
            "ibi": job.ibi, "outcome": job.outcome}, messages.ERROR)
    else:
        modeladmin.message_user(request, _("Copy of %(ibi)s queued: its progress is in Copy "
                                           "jobs.") % {"ibi": job.ibi})


class CopiesAdminMixin:
    """For ItemAdmin: a "copy from another Archive" page and a "refresh" action."""

    actions = ["refresh_copies"]

    def get_urls(self):
        return [path("copy/", self.admin_site.admin_view(self.copy_view),
                     name="archive_item_copy"), *super().get_urls()]

    def copy_view(self, request: HttpRequest) -> HttpResponse:
        if not self.has_add_permission(request):
            raise PermissionDenied
        form = CopyForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            _copy(self, request, form.cleaned_data["ibi"], form.cleaned_data["source"])
            return HttpResponseRedirect(reverse("admin:archive_item_changelist"))
        return TemplateResponse(request, "admin/archive/item/copy.html", {
            **self.admin_site.each_context(request), "form": form, "opts": self.model._meta,
            "title": _("Copy an item from another Archive")})

    @admin.action(description=_("Refresh selected copies from their source"),
                  permissions=["change"])
    def refresh_copies(self, request: HttpRequest, queryset) -> None:
        copies = queryset.filter(state=Item.State.COPY).exclude(source_archive="")
        skipped = queryset.count() - copies.count()
        for ibi, source in copies.values_list("ibi", "source_archive"):
            _copy(self, request, ibi, source)
        if skipped:
            self.message_user(request, ngettext(
                "%(n)d selected item is not a copy: left alone.",
                "%(n)d selected items are not copies: left alone.", skipped)
                % {"n": skipped}, messages.WARNING)


@admin.register(CopyJob)
class CopyJobAdmin(ReadOnlyAdmin):
    """Copies asked for and how far they are, read from the jobs' rows (preservation/jobs.py)."""

    list_display = ["ibi", "source", "state", "progress", "attempts", "created", "finished",
                    "outcome"]
    list_filter = ["state"]
    search_fields = ["ibi", "source"]
    list_per_page = 100

    @admin.display(description=_("progress"))
    def progress(self, obj: CopyJob) -> str:
        if not obj.total_bytes:
            return "—"
        return f"{filesizeformat(obj.done_bytes)} / {filesizeformat(obj.total_bytes)}"


@admin.register(FixityCheck)
class FixityCheckAdmin(ReadOnlyAdmin):
    """Every fixity check kept (preservation/fixity.py), newest first: read only."""

    list_display = ["at", "outcome", "key", "size", "sha256", "problem"]
    list_filter = ["outcome"]
    search_fields = ["key"]
    date_hierarchy = "at"
    list_per_page = 100
    show_full_result_count = False  # a count of millions of checks on every page: no


class FixityFilter(admin.SimpleListFilter):
    title = _("fixity")
    parameter_name = "fixity"

    def lookups(self, request, model_admin):
        return [("problem", _("changed or missing")), ("intact", _("intact")),
                ("unchecked", _("never checked"))]

    def queryset(self, request, queryset):
        if self.value() == "problem":
            return queryset.exclude(fixity_problem="")
        if self.value() == "intact":
            return queryset.filter(fixity_problem="", checked_at__isnull=False)
        if self.value() == "unchecked":
            return queryset.filter(checked_at__isnull=True)
        return queryset


@admin.register(ItemFile)
class ItemFileFixityAdmin(ReadOnlyAdmin):
    """Read-only: what fixity found, problems first; for those with archive.view_itemfile
    (administrators: librarians work on items). Rows change through services only."""

    list_display = ["key_column", "size_column", "checked_at", "problem_column"]
    list_filter = [FixityFilter]
    search_fields = ["item__ibi", "item__ibip", "name"]
    list_select_related = ["item"]
    actions = ["check_now"]
    list_per_page = 100
    empty_value_display = "—"

    def get_queryset(self, request):
        return super().get_queryset(request).order_by("-fixity_problem", "checked_at", "pk")

    @admin.display(description=_("file"), ordering="item__ibi")
    def key_column(self, obj: ItemFile) -> str:
        return storage.file_key(obj.item.ibi, obj.name)

    @admin.display(description=ItemFile._meta.get_field("size").verbose_name, ordering="size")
    def size_column(self, obj: ItemFile) -> str:
        return filesizeformat(obj.size)

    @admin.display(description=ItemFile._meta.get_field("fixity_problem").verbose_name,
                   ordering="fixity_problem")
    def problem_column(self, obj: ItemFile) -> str:
        return obj.fixity_problem or ("—" if obj.checked_at else _("not checked yet"))

    @admin.action(description=_("Check the selected files now"), permissions=["view"])
    def check_now(self, request: HttpRequest, queryset) -> None:
        bad = 0
        for row in queryset.select_related("item"):
            bad += not fixity.check_one(row, by=request.user).ok
        level = messages.ERROR if bad else messages.SUCCESS
        checked = queryset.count()
        self.message_user(request, ngettext(
            "%(n)d file checked: %(bad)d changed or missing.",
            "%(n)d files checked: %(bad)d changed or missing.", checked)
            % {"n": checked, "bad": bad}, level)


