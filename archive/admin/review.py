"""Review in the admin (issue 35): librarians give roles per collection (to groups, or to a
person) and choose each collection's workflow; they read every submission with its tasks and
its history, which no one edits here (the transitions are the review's services', through the
API)."""
from __future__ import annotations

from django import forms
from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from ..models import (
    CheckName,
    CollectionRole,
    Submission,
    SubmissionCheck,
    Task,
    Transition,
    Workflow,
)
from ..review.checks import translated


@admin.register(CollectionRole)
class CollectionRoleAdmin(admin.ModelAdmin):
    list_display = ["collection", "role", "group", "user"]
    list_filter = ["role", "collection"]
    list_select_related = ["collection", "group", "user"]
    raw_id_fields = ["user"]


class WorkflowForm(forms.ModelForm):
    blocking_checks = forms.MultipleChoiceField(
        label=_("blocking checks"), choices=CheckName.choices, required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("the checks whose failure stops a submission; the others only warn"))

    class Meta:
        model = Workflow
        fields = ["collection", "kind", "publish_on", "accepted_formats", "blocking_checks"]


@admin.register(Workflow)
class WorkflowAdmin(admin.ModelAdmin):
    form = WorkflowForm
    list_display = ["collection", "kind", "publish_on"]
    list_filter = ["kind"]
    list_select_related = ["collection"]


class _ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


class TransitionInline(_ReadOnlyInline):
    model = Transition
    fields = readonly_fields = ["at", "actor_name", "action", "step", "from_state",
                                "to_state", "reason"]
    verbose_name_plural = _("history")


class CheckInline(_ReadOnlyInline):
    model = SubmissionCheck
    fields = readonly_fields = ["at", "name", "file_name", "outcome", "shown"]
    verbose_name_plural = _("checks before review")

    @admin.display(description=_("message"))
    def shown(self, row: SubmissionCheck) -> str:
        return translated(row.message, row.params)


class TaskInline(_ReadOnlyInline):
    model = Task
    fields = readonly_fields = ["step", "role", "claimed_by", "created", "closed"]


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    """Read only: a submission changes by its transitions, which the history keeps."""

    list_display = ["__str__", "collection", "owner", "state", "step", "updated"]
    list_filter = ["state", "collection"]
    list_select_related = ["collection", "owner"]
    search_fields = ["title"]
    inlines = [CheckInline, TaskInline, TransitionInline]
    readonly_fields = ["owner", "collection", "title", "language", "metadata", "files",
                       "licence_text", "licence_accepted_at", "access_rights", "embargo_until",
                       "previous_edition", "translation_of", "state", "step", "steps",
                       "version", "item", "created", "updated", "checks_due"]
    fields = readonly_fields

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
