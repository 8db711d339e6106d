"""The item list's acts on many items at once (issue 43): change their access level or
embargo, and delete them with one reason, each after a confirmation page that asks why.

The writes are the single item's: deposit.services.item_set_access (as the item's form saves
its access) and item_delete (as the delete page makes a tombstone), once per item, in one
transaction: all the items change, or none. ItemAdmin inherits the mixin
(archive/admin/items.py).
"""
from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import actions, helpers
from django.db import transaction
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from ..deposit import services
from ..models import AccessRights, Item
from ..refusals import Refusal


class AccessChangeForm(forms.Form):
    """The "change access level or embargo" page: the level, its embargo's date, and why,
    checked as the access service checks them (services.clean_access)."""

    access_rights = forms.ChoiceField(label=_("New access level"),
                                      choices=AccessRights.choices)
    embargo_until = forms.DateField(
        label=_("Embargo until"), required=False,
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
        help_text=_("with embargoed only: the first day the files open to all; the items "
                    "open themselves that day"))
    reason = forms.CharField(
        label=_("Reason"), max_length=Item._meta.get_field("access_reason").max_length,
        widget=forms.Textarea(attrs={"rows": 2, "cols": 60}),
        help_text=_("why the access changes, e.g. a patent pending; kept with each item "
                    "and shown on its landing page"))

    def clean(self) -> dict:
        cleaned = super().clean()
        if "access_rights" not in cleaned:
            return cleaned
        try:
            services.clean_access(rights=cleaned["access_rights"],
                                  embargo_until=cleaned.get("embargo_until"),
                                  reason=cleaned.get("reason", ""))
        except Refusal as exc:
            embargo = (cleaned["access_rights"] == AccessRights.EMBARGOED
                       or cleaned.get("embargo_until"))
            self.add_error("embargo_until" if embargo else "access_rights", str(exc))
        return cleaned


class DeletionForm(forms.Form):
    """The reason of a bulk delete, one for every item: a tombstone says why it is one."""

    reason = forms.CharField(
        label=_("Reason, shown on the tombstones"),
        max_length=Item._meta.get_field("deletion_reason").max_length,
        error_messages={"required": _("Write the reason: each tombstone shows it.")},
        widget=forms.TextInput(attrs={"size": 60}))
    at_creators_request = forms.BooleanField(
        label=_("Removed at their creators' request: the tombstones cite it without their "
                "names"), required=False)


def _changeable(queryset):
    """The items an act on many changes: never a tombstone, nor the archive service."""
    return queryset.filter(is_archive_service=False).exclude(state=Item.State.DELETED)


class BulkActsMixin:
    """ItemAdmin's bulk acts; its `actions` name them (Django's own delete_selected is
    replaced by this one, which asks for a reason)."""

    actions = ["change_access", "delete_selected"]

    @admin.action(description=_("Change access level or embargo"), permissions=["change"])
    def change_access(self, request: HttpRequest, queryset) -> TemplateResponse | None:
        """The confirmation page with the new level, its date and why; once confirmed, each
        item's access set by the access service, its history saying why, and back to the
        list."""
        form = AccessChangeForm(request.POST if request.POST.get("post") else None)
        if form.is_valid():
            data = form.cleaned_data
            items = list(_changeable(queryset).order_by("pk"))
            try:
                with transaction.atomic():
                    for item in items:
                        services.item_set_access(
                            item=item, rights=data["access_rights"],
                            embargo_until=data["embargo_until"], reason=data["reason"])
            except Refusal as exc:
                self.message_user(request, str(exc), messages.ERROR)
                return None
            level = AccessRights(data["access_rights"]).label
            for item in items:
                self.log_change(request, item, gettext(
                    "Access changed to %(level)s: %(reason)s") % {
                        "level": level, "reason": data["reason"]})
            self.message_user(request, ngettext(
                "Access changed to %(level)s on %(count)d item.",
                "Access changed to %(level)s on %(count)d items.", len(items)) % {
                    "level": level, "count": len(items)}, messages.SUCCESS)
            return None
        return TemplateResponse(request, "admin/archive/item/access_action.html", {
            **self.admin_site.each_context(request), "opts": self.model._meta,
            "title": _("Change the access of items"), "form": form,
            "queryset": queryset.select_related("collection"), "action": "change_access",
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME})

    @admin.action(description=_("Delete the selected items (tombstones)"),
                  permissions=["delete"])
    def delete_selected(self, request: HttpRequest, queryset) -> TemplateResponse | None:
        """Django's delete_selected, its page asking for one reason for all the items
        (templates/admin/archive/item/delete_selected_confirmation.html); without one, the
        page again with its error, and nothing deleted."""
        form = DeletionForm(request.POST if request.POST.get("post") else None)
        if request.POST.get("post") and not form.is_valid():
            request.POST = request.POST.copy()
            del request.POST["post"]  # Django's action then draws its page again
        response = actions.delete_selected(self, request, queryset)
        if response is not None:
            response.context_data["deletion_form"] = form
        return response

    def delete_queryset(self, request: HttpRequest, queryset) -> None:
        """The tombstones of delete_selected, each with the reason its page asked for."""
        form = DeletionForm(request.POST)
        if not form.is_valid():  # delete_selected asks again first: never reached so
            raise Refusal(gettext("a tombstone needs a reason"))
        with transaction.atomic():
            for item in queryset.filter(is_archive_service=False):
                services.item_delete(
                    item=item, reason=form.cleaned_data["reason"],
                    at_creators_request=form.cleaned_data["at_creators_request"])
