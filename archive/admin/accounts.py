"""People's accounts in the admin (issue 36, 4): staff see each account, its ways in and its
state; they disable one (saying why: no way in signs its holder in any more) or enable it
again, and erase the personal data of those who asked (LGPD), through the accounts'
services. Accounts are made by their holders' ways in, never here."""
from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db.models import QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from ..accounts import services
from ..models import Account, Identity
from ..refusals import Refusal


class DisableForm(forms.Form):
    reason = forms.CharField(
        label=_("Why the accounts are disabled"), max_length=2000,
        error_messages={"required": _("Write why: it is kept with each account.")},
        widget=forms.TextInput(attrs={"size": 60}))


class ErasureFilter(admin.SimpleListFilter):
    title = _("erasure")
    parameter_name = "erasure"

    def lookups(self, request, model_admin):
        return [("asked", _("asked for, not done")), ("done", _("done: personal data erased"))]

    def queryset(self, request, queryset):
        if self.value() == "asked":
            return queryset.filter(erasure_requested_at__isnull=False, erased_at=None)
        if self.value() == "done":
            return queryset.filter(erased_at__isnull=False)
        return queryset


@admin.register(Account)
class AccountAdmin(admin.ModelAdmin):
    list_display = ["__str__", "email", "email_verified_at", "disabled_at",
                    "erasure_requested_at", "erased_at"]
    list_filter = ["disabled_at", ErasureFilter]
    list_select_related = ["user"]
    search_fields = ["name", "user__email", "user__username"]
    fields = readonly_fields = ["user", "name", "email", "created", "email_verified_at",
                                "ways_in", "disabled_at", "disabled_reason",
                                "erasure_requested_at", "erased_at"]
    actions = ["disable", "enable", "erase"]

    @admin.display(description=_("email address"), ordering="user__email")
    def email(self, account: Account) -> str:
        return account.user.email

    @admin.display(description=_("ways in"))
    def ways_in(self, account: Account) -> str:
        found = [str(identity) for identity in account.user.identities.all()]
        if account.user.has_usable_password():
            found.insert(0, gettext("a password of their own"))
        return "; ".join(found) or "—"

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # erasure keeps the row, anonymised

    def _confirm(self, request, queryset, action: str, title, intro, button,
                 form=None) -> TemplateResponse:
        return TemplateResponse(request, "admin/archive/account/account_action.html", {
            **self.admin_site.each_context(request), "opts": self.model._meta,
            "title": title, "intro": intro, "button": button, "form": form,
            "queryset": queryset.select_related("user"), "action": action,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME})

    def _each(self, request, queryset: QuerySet, act, done: str, log: str) -> None:
        count = 0
        for account in queryset.select_related("user").order_by("pk"):
            try:
                act(account)
            except Refusal as exc:
                self.message_user(request, f"{account}: {exc}", messages.ERROR)
                continue
            self.log_change(request, account, log)
            count += 1
        if count:
            self.message_user(request, done % {"count": count}, messages.SUCCESS)

    @admin.action(description=_("Disable the selected accounts"), permissions=["change"])
    def disable(self, request: HttpRequest, queryset) -> TemplateResponse | None:
        """The confirmation page asks why; once confirmed, no way in signs them in."""
        form = DisableForm(request.POST if request.POST.get("post") else None)
        if not form.is_valid():
            return self._confirm(
                request, queryset, "disable", _("Disable accounts"),
                _("No way in signs these people in any more: their password, the campus "
                  "directory, CAFe, ORCID. Their sessions end. The reason is kept with each "
                  "account."), _("Yes, disable them"), form)
        reason = form.cleaned_data["reason"]
        count = queryset.count()
        self._each(request, queryset,
                   lambda account: services.disable(account=account, reason=reason),
                   ngettext("%(count)d account disabled.", "%(count)d accounts disabled.",
                            count), gettext("Disabled: %(reason)s") % {"reason": reason})
        return None

    @admin.action(description=_("Enable the selected accounts"), permissions=["change"])
    def enable(self, request: HttpRequest, queryset) -> None:
        count = queryset.count()
        self._each(request, queryset, lambda account: services.enable(account=account),
                   ngettext("%(count)d account enabled.", "%(count)d accounts enabled.",
                            count), gettext("Enabled"))

    @admin.action(description=_("Erase the personal data of the selected accounts (LGPD)"),
                  permissions=["change"])
    def erase(self, request: HttpRequest, queryset) -> TemplateResponse | None:
        """The confirmation page says what goes and what stays; once confirmed, erased."""
        if not request.POST.get("post"):
            return self._confirm(
                request, queryset, "erase", _("Erase personal data"),
                _("Name, address, password, ways in, roles, drafts and withdrawn "
                  "submissions, the requests for a copy made with the address: erased, for "
                  "good. Published items keep their authorship, as the tombstone policy "
                  "says. A person with a submission in review is left alone until it is "
                  "decided or withdrawn."), _("Yes, erase their data"))
        count = queryset.count()
        self._each(request, queryset, lambda account: services.erase(account=account),
                   ngettext("The personal data of %(count)d account were erased.",
                            "The personal data of %(count)d accounts were erased.", count),
                   gettext("Personal data erased (LGPD)"))
        return None


@admin.register(Identity)
class IdentityAdmin(admin.ModelAdmin):
    """Every way in besides a password, by provider; read only (removing one is the
    person's act on their account page, or staff's here)."""

    list_display = ["subject", "provider", "issuer", "user", "last_used"]
    list_filter = ["provider"]
    list_select_related = ["user"]
    search_fields = ["subject", "issuer", "user__email", "user__username"]
    fields = readonly_fields = ["user", "provider", "issuer", "subject", "attributes",
                                "created", "last_used"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
